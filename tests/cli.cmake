# The installed binaries' common surface: --version / -V print the project's version (and the git
# commit found at configure time), and every command of `zkarena --commands` has a --help.
add_test(NAME cli_version COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli.sh version
         "${ZKA_VERSION}" "${ZKA_GIT_COMMIT}"
         $<TARGET_FILE:zkarena> $<TARGET_FILE:zkarena-gpud> $<TARGET_FILE:zkarena-synth>)
add_test(NAME cli_help COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli.sh help
         $<TARGET_FILE:zkarena>)
