# `superopt verify-axioms`: validation of the axioms on small symbolic tensors, the
# redundancy check, axiom file errors; unit tests and command-line tests.
add_executable(verify_axioms_tests verify_axioms_test.cc)
target_link_libraries(verify_axioms_tests PRIVATE superopt_verify Catch2::Catch2WithMain)
target_compile_definitions(verify_axioms_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(verify_axioms_tests TEST_PREFIX "verify_axioms: ")

set(axiom_data ${CMAKE_CURRENT_SOURCE_DIR}/data/axioms)
superopt_cli_test(verify_axioms_malformed 2 "^superopt verify-axioms: .*/malformed\\.ax:5: unknown operator or unbound tensor 'frobnicate'" ONE_LINE
                  COMMAND ${superopt_bin} verify-axioms --axioms ${axiom_data}/malformed.ax)
# Found by the axiom fuzzer (tests/fuzz/): a number past int64 escaped as an internal error (exit 1).
superopt_cli_test(verify_axioms_number_out_of_range 2 "^superopt verify-axioms: .*/axiom_number_out_of_range\\.ax:2: number 99999999999999999999 is out of range" ONE_LINE
                  COMMAND ${superopt_bin} verify-axioms --axioms ${CMAKE_CURRENT_SOURCE_DIR}/data/malformed/axiom_number_out_of_range.ax)
superopt_cli_test(verify_axioms_missing_file 2 "cannot open /nonexistent/a\\.ax" ONE_LINE
                  COMMAND ${superopt_bin} verify-axioms --axioms /nonexistent/a.ax)
superopt_cli_test(verify_axioms_unknown_only 2 "--only nosuch: no such axiom in" ONE_LINE
                  COMMAND ${superopt_bin} verify-axioms --only nosuch)
superopt_cli_test(verify_axioms_bad_max_dim 2 "--max-dim: expected an integer from 1 to 8" ONE_LINE
                  COMMAND ${superopt_bin} verify-axioms --max-dim 0)
superopt_cli_test(verify_axioms_wrong 1 "" STDOUT "conv_relu_linear +FAILED.*\n +fails at e=1 h=1 kh=1 kw=1 m=1 n=1 o=1 x=1x1x1x1 y=1x1x1x1 z=1x1x1x1: output 0 element 0 differs"
                  COMMAND ${superopt_bin} verify-axioms --axioms ${axiom_data}/wrong.ax --max-dim 2)
superopt_cli_test(verify_axioms_one 0 "" STDOUT "conv_ewadd_input +passed +obligations +[1-9].*validation: 1 passed, 0 FAILED"
                  COMMAND ${superopt_bin} verify-axioms --only conv_ewadd_input --max-dim 2 --no-redundancy)
# merge_groups' axiom at 2 groups into 1 and 2 (the smallest dimensions where groups merge).
superopt_cli_test(verify_axioms_merge_groups 0 "" STDOUT "conv_merge_groups +passed +obligations +[1-9].*validation: 1 passed, 0 FAILED"
                  COMMAND ${superopt_bin} verify-axioms --only conv_merge_groups --max-dim 2 --no-redundancy)
superopt_cli_test(verify_axioms_json 0 "" STDOUT "\"name\":\"ewmul_comm\",\"result\":\"passed\".*\"redundant\":.*\"wall_seconds\":"
                  COMMAND ${superopt_bin} verify-axioms --only ewmul_comm --max-dim 2 --json)
superopt_cli_test(verify_axioms_help 0 "" STDOUT "--max-dim" COMMAND ${superopt_bin} verify-axioms --help)

# Two ranks share the assignments and find the same failure as one.
add_test(NAME mpi_verify_axioms_2_ranks
         COMMAND ${superopt_expect} 1 "" -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe
                 ${superopt_bin} verify-axioms --axioms ${axiom_data}/wrong.ax --max-dim 2)
set_tests_properties(mpi_verify_axioms_2_ranks PROPERTIES LABELS mpi TIMEOUT 120
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
                     FAIL_REGULAR_EXPRESSION "expect_exit: FAIL"
                     PASS_REGULAR_EXPRESSION "2 ranks\n.*fails at e=1 h=1 kh=1 kw=1 m=1 n=1 o=1 x=1x1x1x1")
