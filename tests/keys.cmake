# The .zka format, the io_uring loader and resident keys (keys/zka_loader.h, keys/zka_keys.h).
if(TARGET zka_keys)
  zka_test(test_keys test_keys.c LIBS zka_keys ${GMP_LIB} TIMEOUT 300 LABELS keys)
  target_compile_definitions(test_keys PRIVATE ZKA_FMT_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/fmt"
                                               ZKA_TEST_TMP="${CMAKE_CURRENT_BINARY_DIR}")
  add_test(NAME keys_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/keys.sh $<TARGET_FILE:zkarena>)
  set_tests_properties(keys_cli PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE LABELS keys)
endif()
