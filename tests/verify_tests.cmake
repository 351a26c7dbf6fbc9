# The verifier: unit tests (axiom files, proofs, small-tensor validation), the
# MPI pool (1 against 3 ranks, resume after a kill) and errors on bad input.
add_executable(verify_tests verify_test.cc verify_grouped_test.cc verify_concat_test.cc conv_bias_test.cc
                            linear_layer_test.cc)
target_link_libraries(verify_tests PRIVATE superopt_verify Catch2::Catch2WithMain)
target_compile_definitions(verify_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(verify_tests)

add_test(NAME mpi_verify_ranks_and_resume
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/verify_mpi_test.sh $<TARGET_FILE:superopt> ${MPIEXEC_EXECUTABLE}
                 ${CMAKE_CURRENT_BINARY_DIR}/verify_mpi)
set_tests_properties(mpi_verify_ranks_and_resume PROPERTIES LABELS mpi TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "verify_mpi_test: ok" FAIL_REGULAR_EXPRESSION "FAIL")
add_test(NAME verify_bad_input
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/verify_errors_test.sh $<TARGET_FILE:superopt>
                 ${CMAKE_CURRENT_BINARY_DIR}/verify_errors)
set_tests_properties(verify_bad_input PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "verify_errors_test: ok"
                     FAIL_REGULAR_EXPRESSION "FAIL")

# The soundness suite: wrong rules never verified nor applied outside their family.
add_executable(soundness_tests soundness_test.cc soundness_concat_test.cc)
target_link_libraries(soundness_tests PRIVATE superopt_verify Catch2::Catch2WithMain)
target_compile_definitions(soundness_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(soundness_tests TEST_PREFIX "soundness:")

add_executable(check_drawn_members check_drawn_members.cc)
target_link_libraries(check_drawn_members PRIVATE superopt_verify)
# The database: the search_rules fixture's `enumerate --max-ops 3` (search_tests.cmake), copied.
add_test(NAME soundness_fresh_3_ops
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/soundness_fresh_test.sh $<TARGET_FILE:superopt>
                 $<TARGET_FILE:check_drawn_members> ${MPIEXEC_EXECUTABLE} ${CMAKE_CURRENT_BINARY_DIR}/soundness_fresh
                 ${search_taso3})
set_tests_properties(soundness_fresh_3_ops PROPERTIES LABELS mpi TIMEOUT 900 FIXTURES_REQUIRED search_rules
                     PASS_REGULAR_EXPRESSION "soundness_fresh_test: ok" FAIL_REGULAR_EXPRESSION "FAIL")

# Derivations: derive, replay, invalidate; the derive and check-proofs commands.
add_executable(derive_tests derive_test.cc)
target_link_libraries(derive_tests PRIVATE superopt_verify Catch2::Catch2WithMain)
target_compile_definitions(derive_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(derive_tests TEST_PREFIX "derive:")
add_test(NAME cli_derive_and_check_proofs
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/derive_cli_test.sh $<TARGET_FILE:superopt>
                 ${CMAKE_CURRENT_BINARY_DIR}/derive_cli)
set_tests_properties(cli_derive_and_check_proofs PROPERTIES TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "derive_cli_test: ok" FAIL_REGULAR_EXPRESSION "FAIL")

# Derivations part by part (verify/rule_parts.h).
add_executable(part_derivation_tests part_derivation_test.cc)
target_link_libraries(part_derivation_tests PRIVATE superopt_verify Catch2::Catch2WithMain)
target_compile_definitions(part_derivation_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(part_derivation_tests TEST_PREFIX "part_derivation:")
# ... and on 1, 2 and 3 ranks alike.
add_executable(part_derivation_mpi_test part_derivation_mpi_test.cc)
target_link_libraries(part_derivation_mpi_test PRIVATE superopt_verify superopt_catch_runner)
target_compile_definitions(part_derivation_mpi_test PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
foreach(ranks 1 2 3)
  add_test(NAME mpi_part_derivation_${ranks}_ranks
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} --oversubscribe
                   $<TARGET_FILE:part_derivation_mpi_test>)
  set_tests_properties(mpi_part_derivation_${ranks}_ranks PROPERTIES LABELS mpi TIMEOUT 120
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endforeach()

# Derivations output by output (verify/derive.h derive_by_outputs).
add_executable(output_derivation_tests output_derivation_test.cc)
target_link_libraries(output_derivation_tests PRIVATE superopt_verify Catch2::Catch2WithMain)
target_compile_definitions(output_derivation_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(output_derivation_tests TEST_PREFIX "output_derivation:")

# Derivations along a fingerprint class (verify/class_paths.h).
add_executable(class_path_tests class_path_test.cc)
target_link_libraries(class_path_tests PRIVATE superopt_verify Catch2::Catch2WithMain)
target_compile_definitions(class_path_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(class_path_tests TEST_PREFIX "class_path:")
# ... and on 1 and 2 ranks alike.
add_executable(class_path_mpi_test class_path_mpi_test.cc)
target_link_libraries(class_path_mpi_test PRIVATE superopt_verify superopt_catch_runner)
target_compile_definitions(class_path_mpi_test PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
foreach(ranks 1 2)
  add_test(NAME mpi_class_path_${ranks}_ranks
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} --oversubscribe
                   $<TARGET_FILE:class_path_mpi_test>)
  set_tests_properties(mpi_class_path_${ranks}_ranks PROPERTIES LABELS mpi TIMEOUT 120
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endforeach()
