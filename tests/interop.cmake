# Interop with snarkjs (node packages from tests/interop, installed by scripts/install-deps.sh).
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/interop/node_modules/snarkjs)
  add_test(NAME interop_snarkjs
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/interop/run.sh $<TARGET_FILE:zkarena>
                   ${CMAKE_BINARY_DIR}/interop-fixtures)
  set_tests_properties(interop_snarkjs PROPERTIES TIMEOUT 1200)
  # fresh random circuits each run (tests/interop/gen-circuit.js; the seed is printed first).
  # It shares the fixture directory (its powers of tau) with interop_snarkjs: under ctest -j
  # it runs after that test, so that only one of them creates the fixtures.
  add_test(NAME interop_random
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/interop/random.sh $<TARGET_FILE:zkarena>
                   ${CMAKE_BINARY_DIR}/interop-fixtures)
  set_tests_properties(interop_random PROPERTIES TIMEOUT 1200 DEPENDS interop_snarkjs)
  # witnesses from input.json against snarkjs (tests/interop/witness.sh): needs g++ for import --c
  add_test(NAME interop_witness
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/interop/witness.sh $<TARGET_FILE:zkarena>
                   ${CMAKE_BINARY_DIR}/interop-fixtures)
  set_tests_properties(interop_witness PROPERTIES TIMEOUT 1500 DEPENDS interop_snarkjs)
  # input.json jobs through the pipeline, a worker killed mid-job (tests/interop/witness_pipeline.sh)
  add_test(NAME interop_witness_pipeline
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/interop/witness_pipeline.sh $<TARGET_FILE:zkarena>
                   ${CMAKE_BINARY_DIR}/interop-fixtures)
  set_tests_properties(interop_witness_pipeline PROPERTIES TIMEOUT 600 DEPENDS interop_snarkjs)
  # bellperson .params keys end to end (tests/interop/bellperson.sh): compiles its circuit
  add_test(NAME interop_bellperson
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/interop/bellperson.sh $<TARGET_FILE:zkarena>)
  set_tests_properties(interop_bellperson PROPERTIES TIMEOUT 600 LABELS "formats;bellperson")
else()
  message(WARNING "zkarena: snarkjs not installed (run scripts/install-deps.sh): interop tests skipped")
endif()
