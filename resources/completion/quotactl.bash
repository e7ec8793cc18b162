# bash completion for quotactl: subcommands, each one's flags, --target values, file names.
# Installed to share/bash-completion/completions/quotactl (loaded on first use of quotactl).
# The flags and targets are read from quotactl's own --help, so the completion never drifts
# from the program it completes.

_quotactl_help()
{
    "${COMP_WORDS[0]}" "$@" --help 2>/dev/null
}

_quotactl()
{
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=${COMP_WORDS[COMP_CWORD-1]}

    if [ "$COMP_CWORD" -eq 1 ]; then
        # "  lint      check policy files…": the command list of quotactl --help
        local commands
        commands=$(_quotactl_help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    local command=${COMP_WORDS[1]}

    case "$prev" in
        --target)
            # "--target nginx|envoy|…|all" in the usage line of quotactl export --help
            local targets
            targets=$(_quotactl_help export | grep -o -- '--target [a-z|-]*' | head -1 \
                | cut -d' ' -f2 | tr '|' ' ')
            COMPREPLY=($(compgen -W "$targets" -- "$cur"))
            return ;;
        --format)
            COMPREPLY=($(compgen -W "text json" -- "$cur"))
            return ;;
        --pattern)
            COMPREPLY=($(compgen -W "steady burst zipf" -- "$cur"))
            return ;;
        --engine)
            COMPREPLY=($(compgen -W "auto lua module" -- "$cur"))
            return ;;
        -o|--cacert|--cert|--key|--policy)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
    esac

    if [[ "$cur" == -* ]]; then
        local flags
        flags=$(_quotactl_help "$command" | grep -o -- ' -o \|--[a-z][a-z-]*' | tr -d ' ' \
            | sort -u)
        COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -X '!*.@(yaml|yml|json)' -- "$cur") $(compgen -d -- "$cur"))
    fi
}
complete -F _quotactl quotactl
