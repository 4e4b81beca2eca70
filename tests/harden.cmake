# issue 19: other users cannot subvert the node, the node never stops taking work (needs root:
# a second user made with useradd; skipped otherwise).
add_test(NAME pipeline_harden COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/harden.sh $<TARGET_FILE:zkarena>)
set_tests_properties(pipeline_harden PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
