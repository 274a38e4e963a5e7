# Writes help2man's include file: one section per subcommand, holding that subcommand's own
# --help text, so that the man page is generated from the program and cannot drift from it.
#   cmake -DSEMSIM=path/to/semsim -DOUTPUT=... -P write_man_include.cmake
set(text "[COMMANDS]\n")
foreach(command run scenario check compare analyze)
  execute_process(COMMAND ${SEMSIM} ${command} --help OUTPUT_VARIABLE help RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "semsim ${command} --help exited ${code}")
  endif()
  # roff: a leading dot or quote would be read as a request; backslashes as escapes.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND text ".SS \"semsim ${command}\"\n.nf\n${help}.fi\n")
endforeach()
string(APPEND text "[FILES]\n.TP\n.I PREFIX/share/semsim/scenarios/\n"
       "The shipped scenarios: every claim of the source documents and the planted bugs, with their "
       "expectations. \\fBsemsim scenario NAME.ini\\fR finds a file there when NAME.ini is not a path "
       "that exists.\n.TP\n.I PREFIX/share/semsim/examples/\n"
       "A script variant (your own Lua semaphore) and a CI job that gates on it.\n")
file(WRITE ${OUTPUT} "${text}")
