# The repository itself (issue 33): the tracked tree stays small enough to travel
# to a GPU machine, and scripts/get-rules.sh brings back the large rule
# databases that left it. Label repo.

# The tracked tree under 20 MiB (skipped where the source is not a git checkout).
add_test(NAME tracked_tree_size
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tracked_tree_size_test.sh ${PROJECT_SOURCE_DIR} 20)
set_tests_properties(tracked_tree_size PROPERTIES LABELS repo TIMEOUT 60 SKIP_RETURN_CODE 77
                     FAIL_REGULAR_EXPRESSION "FAIL")
# Over its limit it fails in one line that names the largest files.
if(EXISTS ${PROJECT_SOURCE_DIR}/.git)
  add_test(NAME tracked_tree_size_over_limit
           COMMAND ${superopt_expect} --one-line 1 "over 0 MiB; largest: [^ ]+ \\([0-9.]+ MiB\\)" --
                   bash ${CMAKE_CURRENT_SOURCE_DIR}/tracked_tree_size_test.sh ${PROJECT_SOURCE_DIR} 0)
  set_tests_properties(tracked_tree_size_over_limit PROPERTIES LABELS repo TIMEOUT 60
                       FAIL_REGULAR_EXPRESSION "expect_exit: FAIL")
endif()

# scripts/get-rules.sh: --dry-run on every name it knows writes nothing and says
# what it would do; a bad name or flag is one line and exit 2; taso-4 restored
# from this clone's history into the build folder (skipped in a shallow clone).
set(get_rules ${PROJECT_SOURCE_DIR}/scripts/get-rules.sh)
set(get_rules_test bash ${CMAKE_CURRENT_SOURCE_DIR}/get_rules_test.sh ${PROJECT_SOURCE_DIR})
foreach(name taso-4 matmul-2d-5 taso-3 matmul-2d-2 matmul-2d-3 matmul-2d-4)
  add_test(NAME get_rules_dry_run_${name}
           COMMAND ${get_rules_test} dry-run ${name} ${CMAKE_CURRENT_BINARY_DIR}/get-rules-dry-${name})
  set_tests_properties(get_rules_dry_run_${name} PROPERTIES LABELS repo TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "get_rules_test: ok" FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()
add_test(NAME get_rules_restore_taso-4
         COMMAND ${get_rules_test} restore taso-4 ${CMAKE_CURRENT_BINARY_DIR}/get-rules-restore)
set_tests_properties(get_rules_restore_taso-4 PROPERTIES LABELS repo TIMEOUT 120 SKIP_RETURN_CODE 77
                     FAIL_REGULAR_EXPRESSION "FAIL")
add_test(NAME get_rules_bad_name
         COMMAND ${superopt_expect} --one-line 2 "^get-rules: unknown database 'taso-9'; usage: " --
                 bash ${get_rules} taso-9 --dry-run)
add_test(NAME get_rules_bad_flag
         COMMAND ${superopt_expect} --one-line 2 "^get-rules: unknown flag '--fast'; usage: " --
                 bash ${get_rules} taso-4 --fast)
add_test(NAME get_rules_no_name
         COMMAND ${superopt_expect} --one-line 2 "^get-rules: no NAME; usage: " -- bash ${get_rules} --dry-run)
set_tests_properties(get_rules_bad_name get_rules_bad_flag get_rules_no_name PROPERTIES LABELS repo TIMEOUT 60
                     FAIL_REGULAR_EXPRESSION "expect_exit: FAIL")
