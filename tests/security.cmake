# Issue 38: attacks by a second local user (tests/security/: needs root, which CI has; it makes
# a throwaway user with useradd and says loudly that it skipped otherwise).
add_test(NAME security_attacks COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/security/attacks.sh $<TARGET_FILE:zkarena>)
set_tests_properties(security_attacks PROPERTIES TIMEOUT 300 RUN_SERIAL TRUE SKIP_RETURN_CODE 77 LABELS security)
