# GPU suites (label "gpu"): built only with the CUDA library. They exit 0 with
# "SKIP: no CUDA device" where the machine has no GPU, so ctest passes there.
if(TARGET zka_cuda)
  add_executable(gpu_test gpu_test.c)
  target_link_libraries(gpu_test PRIVATE zka_cuda zka_core)
  add_test(NAME gpu_test COMMAND gpu_test quick)
  set_tests_properties(gpu_test PROPERTIES LABELS "gpu" TIMEOUT 900)
endif()
