# Writes help2man's include file: one section per subcommand, holding that subcommand's own
# --help text, so that the man page is generated from the program and cannot drift from it; then
# the files with the paths the Debian package installs them at, and examples that use them.
#   cmake -DSEMSIM=path/to/semsim -DOUTPUT=... -P write_man_include.cmake
set(text "[COMMANDS]\n")
foreach(command run scenario check compare analyze)
  execute_process(COMMAND ${SEMSIM} ${command} --help OUTPUT_VARIABLE help RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "semsim ${command} --help exited ${code}")
  endif()
  # Where the documentation is: said once, under FILES, not after every subcommand.
  string(REGEX REPLACE "\nDocumentation: [^\n]*\n" "\n" help "${help}")
  # roff: a leading dot or quote would be read as a request; backslashes as escapes.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND text ".SS \"semsim ${command}\"\n.nf\n${help}.fi\n")
endforeach()
string(APPEND text "[FILES]\n"
  "Paths as the Debian package installs them; after \\fBcmake --install build --prefix\\fR \\fIP\\fR, read \\fIP\\fR "
  "for \\fI/usr\\fR.\n"
  ".TP\n.I /usr/share/semsim/scenarios/\n"
  "The shipped scenarios: every claim of the source documents and the planted bugs, with their "
  "expectations. \\fBsemsim scenario NAME.ini\\fR finds a file there when NAME.ini is not a path "
  "that exists.\n"
  ".TP\n.I /usr/share/semsim/examples/\n"
  "A script variant (your own Lua semaphore) and a CI job that gates on it.\n"
  ".TP\n.I /usr/share/doc/semsim/\n"
  "The user documentation: README.md; docs/ (script-variants.md, testing-your-library.md, libraries.md, "
  "your-redis.md, contract.md, performance.md, ...); reports/DEFINITIONS.md, what every number of a "
  "summary, a sweep and a chart means; scenarios/README.md.\n"
  ".TP\n.I /usr/lib/semsim/libsemsim_clock.so\n"
  "The clock library preloaded into the embedded redis-server, so that Redis's clock follows virtual time.\n"
  ".TP\n.IR OUT /history.csv ,\\ OUT /summary.csv ,\\ OUT /run.ini ,\\ OUT /timeline.html\n"
  "What a run writes under \\fB--out\\fR: every event, the checker's summary, every option (replay it with "
  "\\fBsemsim scenario\\fR), and a page to zoom into who held a permit when. A sweep writes "
  "\\fIOUT\\fR/report.html.\n"
  "[EXAMPLES]\n"
  "The 10 ms clock-skew steal of the source documents (basic admits two holders with limit 1):\n"
  ".PP\n.nf\n.RS\n"
  "semsim run --variant basic --clients 2 --limit 1 --duration 2s \\\\\n"
  "  --clients-file /usr/share/semsim/scenarios/steal-10ms.clients.csv \\\\\n"
  "  --actions-file /usr/share/semsim/scenarios/steal-10ms.actions.csv --out steal\n"
  "semsim scenario steal-10ms.ini\n"
  ".RE\n.fi\n.PP\n"
  "Five variants against clock skew, five seeds per point; open sweep/report.html:\n"
  ".PP\n.nf\n.RS\n"
  "semsim compare --variants basic,fair,fair-locked,ttl-key,lua \\\\\n"
  "  --skews 0,1ms,5ms,10ms,50ms --seeds 5 --out sweep\n"
  ".RE\n.fi\n.PP\n"
  "Search for a violation and shrink it to a scenario file; re-check a history; gate CI on your own Redis "
  "(password from SEMSIM_REDIS_PASSWORD):\n"
  ".PP\n.nf\n.RS\n"
  "semsim check --variant fair --cases 200 --out check\n"
  "semsim analyze steal/history.csv\n"
  "semsim run --variant lua --redis redis://localhost:6379 --skew uniform:-50ms..50ms \\\\\n"
  "  --expect over_admission_max=0\n"
  ".RE\n.fi\n"
  "[SEE ALSO]\n"
  "redis-server(1), gnuplot(1); /usr/share/doc/semsim/README.md\n")
file(WRITE ${OUTPUT} "${text}")
