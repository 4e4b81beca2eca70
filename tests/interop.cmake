# Interop with snarkjs (node packages from tests/interop, installed by scripts/install-deps.sh).
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/interop/node_modules/snarkjs)
  add_test(NAME interop_snarkjs
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/interop/run.sh $<TARGET_FILE:zkarena>
                   ${CMAKE_BINARY_DIR}/interop-fixtures)
  set_tests_properties(interop_snarkjs PROPERTIES TIMEOUT 1200)
else()
  message(WARNING "zkarena: snarkjs not installed (run scripts/install-deps.sh): interop tests skipped")
endif()
