# libzkarena (include/zkarena.h) against a running CPU pipeline: the flow in both shapes with
# proofs byte-identical to `zkarena prove --r --s` (gpud's ZKA_TEST_RS), the C and Rust examples,
# a producer SIGKILLed between begin and commit, refused commits, a job group of 10.
add_executable(lib_producer lib_producer.c)
target_link_libraries(lib_producer PRIVATE libzkarena_static)
if(TARGET rust-producer)
  set(ZKA_RUST_PRODUCER_BIN ${CMAKE_BINARY_DIR}/examples/rust-producer)
else()
  set(ZKA_RUST_PRODUCER_BIN "")
endif()
add_test(NAME pipeline_library COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/library.sh
  $<TARGET_FILE:zkarena> $<TARGET_FILE:lib_producer> $<TARGET_FILE:c-producer> "${ZKA_RUST_PRODUCER_BIN}")
set_tests_properties(pipeline_library PROPERTIES TIMEOUT 300 RUN_SERIAL TRUE)
if(ZKA_SANITIZE)
  # the sanitizer build's libzkarena wants the ASan runtime loaded first: rustc links it last
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE ZKA_ASAN_SO OUTPUT_STRIP_TRAILING_WHITESPACE)
  set_tests_properties(pipeline_library PROPERTIES ENVIRONMENT "ZKA_RUST_PRELOAD=${ZKA_ASAN_SO}")
endif()
