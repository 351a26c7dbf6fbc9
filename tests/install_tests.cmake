# `cmake --install` into a temporary prefix, moved and run from outside the
# repository: it reads its own data and axioms, not the source tree's.
add_test(NAME install_relocated
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR})
set_tests_properties(install_relocated PROPERTIES LABELS install TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "install_test: ok" FAIL_REGULAR_EXPRESSION "FAIL")
