# bash completion for quotactl: subcommands, each one's flags, --target values, file names.
# Installed to share/bash-completion/completions/quotactl (loaded on first use of quotactl).
# The flags and every choice's values are read from quotactl's own --help (which the option
# tables print), so the completion never drifts from the program it completes.

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

    # A choice's values, as the command's --help prints them: "--engine auto|lua|module",
    # "--target nginx|envoy|...|all" (the option tables print every choice so).
    if [[ "$prev" == -* ]]; then
        local choices
        local from=$command
        # lint --target ID|all: the export targets are the IDs
        [ "$prev" = --target ] && from=export
        choices=$(_quotactl_help "$from" | grep -o -- "$prev [a-z][a-z0-9-]*|[a-z0-9|-]*" \
            | head -1 | cut -d' ' -f2 | tr '|' ' ')
        if [ -n "$choices" ]; then
            COMPREPLY=($(compgen -W "$choices" -- "$cur"))
            return
        fi
    fi
    case "$prev" in
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
