# Suites of the arithmetic core (zk/): fields, curves, pairing, NTT, MSM, prover.
zka_test(test_field test_field.c LIBS zka_core ${GMP_LIB} TIMEOUT 300)
zka_test(test_curve test_curve.c LIBS zka_core ${GMP_LIB} TIMEOUT 600)
zka_test(test_prove test_prove.c LIBS zka_core TIMEOUT 600)
zka_test(test_abc test_abc.c LIBS zka_core TIMEOUT 300)
target_compile_definitions(test_abc PRIVATE ZKA_FMT_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/fmt")
zka_test(test_wcg test_wcg.c LIBS zka_witness ${XXHASH_LIB} TIMEOUT 300)
zka_test(test_subgroup test_subgroup.c LIBS zka_core ${GMP_LIB} TIMEOUT 600)
