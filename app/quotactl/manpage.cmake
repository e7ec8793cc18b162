# Writes quotactl.1 from the program's own --help texts (quotactl --help, then each command's),
# so the man page says exactly what the program says. Run at build time:
#   cmake -DQUOTACTL=<path> -DVERSION=<x.y.z> -DOUTPUT=<quotactl.1> -P manpage.cmake

function(help_of out)
  execute_process(COMMAND ${QUOTACTL} ${ARGN} --help OUTPUT_VARIABLE text ERROR_VARIABLE text
    RESULT_VARIABLE status)
  # A command not built yet (probe) says so and exits 2: its words go into the page as they are.
  if(text STREQUAL "")
    message(FATAL_ERROR "quotactl ${ARGN} --help printed nothing (exit status ${status})")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Roff treats a backslash as an escape and a line starting with . or ' as a request.
function(as_roff out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(main)
string(TIMESTAMP today "%Y-%m-%d" UTC)
set(page ".TH QUOTACTL 1 \"${today}\" \"quotactl ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\nquotactl \\- design, test, export and monitor API rate-limit policies without a display\n")
string(APPEND page ".SH SYNOPSIS\n.B quotactl\n.I command\n[\\fIoptions\\fR]\n.br\n.B quotactl\n\\-\\-help | \\-\\-version\n")
as_roff(text "${main}")
string(APPEND page ".SH DESCRIPTION\n.nf\n${text}.fi\n")

# The commands, in the order quotactl --help lists them.
string(REGEX MATCHALL "\n  ([a-z][a-z-]*)  " lines "${main}")
foreach(line IN LISTS lines)
  string(STRIP "${line}" command)
  help_of(help ${command})
  string(TOUPPER "${command}" title)
  as_roff(text "${help}")
  string(APPEND page ".SH \"QUOTACTL ${title}\"\n.nf\n${text}.fi\n")
endforeach()

string(APPEND page ".SH FILES\n.TP\n.I /usr/share/quota-studio/examples/\nexample policies\n")
string(APPEND page ".TP\n.I /usr/share/doc/quota-studio/\nthe policy format, the algorithms, the exporters, monitoring\n")
string(APPEND page ".SH SEE ALSO\nThe desktop workbench, \\fBquota-studio\\fR (\\-\\-help for its options), and /usr/share/doc/quota-studio/README.md.\n")
file(WRITE "${OUTPUT}" "${page}")
