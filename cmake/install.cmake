# Install rules, the man page and the Debian package (cpack -G DEB).
#   cmake --install build --prefix P   ->  P/bin/semsim, P/share/semsim/{scenarios,examples,drivers},
#                                          P/share/man/man1/semsim.1.gz, P/share/doc/semsim/
#   (the .deb: P = /usr)
# The installed binary finds its shipped files relative to itself (../share/semsim), never
# through the build folder or an environment variable.
include(GNUInstallDirs)

install(TARGETS semsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Found relative to bin/semsim. Executable: redis-server also loads it as a module (SEMSIM.AT)
# and refuses one without execute permission (Debian's CMake installs libraries without it).
install(TARGETS semsim_clock LIBRARY DESTINATION lib/semsim
        PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# Preloaded into driver processes (--variant driver:COMMAND), found relative to bin/semsim too.
install(TARGETS semsim_client_clock LIBRARY DESTINATION lib/semsim)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/semsim/scenarios)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/semsim/examples
        USE_SOURCE_PERMISSIONS)
# The driver kits (drivers/node/semsim-driver.js, drivers/python/semsim_driver.py) and the reference
# drivers on them (drivers/reference/, which find the kits relative to themselves): docs/drivers.md.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/drivers/ DESTINATION ${CMAKE_INSTALL_DATADIR}/semsim/drivers
        USE_SOURCE_PERMISSIONS)

# The user documentation, in the source tree's layout so that its links between files still work:
# P/share/doc/semsim/README.md, docs/*.md (script variants, testing your library, libraries,
# drivers, your Redis, the contract, performance, ...), reports/DEFINITIONS.md, scenarios/README.md.
# `--help` and report.html point here (sim/redis/shipped_files.h).
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg")
install(FILES ${CMAKE_SOURCE_DIR}/reports/DEFINITIONS.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/reports)
install(FILES ${CMAKE_SOURCE_DIR}/scenarios/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/scenarios)

# semsim(1), generated from the program's own --help texts by Debian's help2man. From a copy of
# semsim in a folder of its own (MAN_DIR/help/bin): build/semsim's --help names the source tree's
# docs (sim/redis/shipped_files.h), the copy, beside neither a source tree nor an installed tree,
# names the Debian package's /usr/share/doc/semsim, as the man page's FILES section does.
find_program(HELP2MAN help2man REQUIRED)
find_program(GZIP gzip REQUIRED)
set(MAN_DIR ${CMAKE_BINARY_DIR}/man)
set(MAN_SEMSIM ${MAN_DIR}/help/bin/semsim)
add_custom_command(
  OUTPUT ${MAN_DIR}/semsim.1.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${MAN_DIR}/help/bin
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:semsim> ${MAN_SEMSIM}
  COMMAND ${CMAKE_COMMAND} -DSEMSIM=${MAN_SEMSIM} -DOUTPUT=${MAN_DIR}/commands.h2m
          -P ${CMAKE_SOURCE_DIR}/cmake/write_man_include.cmake
  COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section 1
          --name "simulation and correctness-testing harness for Redis counting semaphores"
          --include ${MAN_DIR}/commands.h2m --output ${MAN_DIR}/semsim.1 ${MAN_SEMSIM}
  COMMAND ${CMAKE_COMMAND} -E rm -f ${MAN_SEMSIM}
  COMMAND ${GZIP} -9nf ${MAN_DIR}/semsim.1
  DEPENDS semsim ${CMAKE_SOURCE_DIR}/cmake/write_man_include.cmake
  COMMENT "Generating the man page semsim(1) from --help" VERBATIM)
add_custom_target(semsim_man ALL DEPENDS ${MAN_DIR}/semsim.1.gz)
install(FILES ${MAN_DIR}/semsim.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# What Debian expects of every package in /usr/share/doc/PACKAGE: `copyright` (machine-readable,
# the MIT license of LICENSE as Debian names it, Expat) and the Debian changelog of a native package,
# `changelog.gz` (gzip -9n: no name or time stamp in it, so the .deb is reproducible). The
# changelog's newest entry is the release: configuring fails when it is not PROJECT_VERSION.
file(STRINGS ${CMAKE_SOURCE_DIR}/packaging/debian/changelog CHANGELOG_TOP LIMIT_COUNT 1)
if(NOT CHANGELOG_TOP MATCHES "^semsim \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "packaging/debian/changelog: its first entry (${CHANGELOG_TOP}) is not version ${PROJECT_VERSION}: add one")
endif()
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/debian/changelog.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/debian
  COMMAND ${GZIP} -9nc ${CMAKE_SOURCE_DIR}/packaging/debian/changelog > ${CMAKE_BINARY_DIR}/debian/changelog.gz
  DEPENDS ${CMAKE_SOURCE_DIR}/packaging/debian/changelog
  COMMENT "Compressing the Debian changelog" VERBATIM)
add_custom_target(semsim_debian_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog.gz)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/debian/copyright ${CMAKE_BINARY_DIR}/debian/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The .deb: shared-library dependencies computed by dpkg-shlibdeps, the programs semsim runs
# (redis-server, gnuplot) named here because no library link reveals them.
set(CPACK_PACKAGE_NAME semsim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "semsim developers <semsim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "simulation and correctness-testing harness for Redis counting semaphores")
set(CPACK_PACKAGE_DESCRIPTION "semsim runs Redis semaphore algorithms (and your own Lua scripts) with many simulated clients under clock skew, network delay, pauses and crashes against a real redis-server, records a history and checks it for over-admission, fairness and liveness.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # as Debian ships binaries: no debug info in the package
set(CPACK_DEBIAN_PACKAGE_DEPENDS "redis-server, gnuplot-nox | gnuplot")
set(CPACK_GENERATOR DEB)
include(CPack)
