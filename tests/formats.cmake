# File-format suites: the iden3 container, .zkey, .wtns, .r1cs, snarkjs JSON.
add_library(zka_fmt_testlib STATIC ${CMAKE_CURRENT_SOURCE_DIR}/fmt_testlib.c)
target_link_libraries(zka_fmt_testlib PUBLIC zka_core zka_testutil)
zka_test(test_formats test_formats.c LIBS zka_fmt_testlib zka_core LABELS formats)
zka_test(test_fmt_json test_fmt_json.c LIBS zka_fmt_testlib zka_core LABELS formats)
zka_test(test_fmt_r1cs test_fmt_r1cs.c LIBS zka_fmt_testlib zka_core LABELS formats)
target_compile_definitions(test_fmt_r1cs PRIVATE ZKA_FMT_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/fmt")
zka_test(test_bellperson test_bellperson.c LIBS zka_fmt_testlib zka_core LABELS formats bellperson)
