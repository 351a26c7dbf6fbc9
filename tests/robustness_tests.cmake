# Hardening (issue 17): outputs on a full disk, input nested deeper than any
# reader allows. Each of these crashed or lost a file before.
add_test(NAME full_disk
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/full_disk_test.sh $<TARGET_FILE:superopt>
                 ${CMAKE_CURRENT_BINARY_DIR}/full_disk ${PROJECT_SOURCE_DIR}/data)
set_tests_properties(full_disk PROPERTIES TIMEOUT 300 PASS_REGULAR_EXPRESSION "full_disk_test: ok"
                     FAIL_REGULAR_EXPRESSION "full_disk_test: FAIL")

# 30,000 nested terms overflowed the stack of the axiom parser; JSON arrays as deep.
set(deep_dir ${CMAKE_CURRENT_BINARY_DIR}/deep_input)
file(MAKE_DIRECTORY ${deep_dir})
string(REPEAT "relu(" 30000 deep_open)
string(REPEAT ")" 30000 deep_close)
file(WRITE ${deep_dir}/deep.ax "# a term nested 30,000 deep\naxiom deep: forall x: [n]. ${deep_open}x${deep_close} = x\n")
string(REPEAT "[" 30000 deep_open)
string(REPEAT "]" 30000 deep_close)
file(WRITE ${deep_dir}/deep.json "{\"format\": \"superopt-graph\",\n \"nodes\": ${deep_open}${deep_close}}\n")
superopt_cli_test(verify_axioms_deep_term 2 "deep\\.ax: nesting deeper than 64 at line 2$" ONE_LINE
                  COMMAND ${superopt_bin} verify-axioms --axioms ${deep_dir}/deep.ax)
superopt_db_test(verify_deep_axiom_term 2 "deep\\.ax: nesting deeper than 64 at line 2$" ONE_LINE
                 COMMAND ${superopt_bin} verify ${superopt_rules} --axioms ${deep_dir}/deep.ax)
superopt_cli_test(graph_check_deep_json 2 "deep\\.json: nesting deeper than 64 at line 2$" ONE_LINE
                  COMMAND ${superopt_bin} graph check ${deep_dir}/deep.json)

# Numeric flags take exactly their range (runtime/cli/numeric_flags.h) and say it:
# before, --timeout-ms 0 and -5, --rlimit -1 and --save-seconds 0 were accepted,
# --seed -1 wrapped to 2^64-1 in enumerate and optimize, and --alpha took inf.
set(flag_graph ${PROJECT_SOURCE_DIR}/data/graphs/fused_matmul.json)
set(flag_rules ${PROJECT_SOURCE_DIR}/data/rules/taso-3.h5)
foreach(bad "timeout-ms;0" "timeout-ms;-5" "rlimit;-1" "save-seconds;0" "save-seconds;-1")
  list(GET bad 0 flag)
  list(GET bad 1 value)
  superopt_db_test(verify_flag_${flag}_${value} 2 "^superopt verify: --${flag}: expected an? [a-z]+ from [0-9.]+ to [0-9e+.]+, got '${value}'$"
                   ONE_LINE COMMAND ${superopt_bin} verify ${superopt_rules} --${flag} ${value})
endforeach()
superopt_cli_test(verify_axioms_flag_timeout 2 "--timeout-ms: expected an integer from 1 to [0-9]+, got '0'$" ONE_LINE
                  COMMAND ${superopt_bin} verify-axioms --timeout-ms 0)
set(seed_error "--seed: expected an integer from 0 to 18446744073709551615, got '-1'$")
superopt_cli_test(enumerate_seed_negative 2 "${seed_error}" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 1 --opset ${small_opset} --out ${enum_dir}/s.h5 --seed -1)
superopt_cli_test(optimize_seed_negative 2 "${seed_error}" ONE_LINE
                  COMMAND ${superopt_bin} optimize ${flag_graph} --rules ${flag_rules} --seed -1)
superopt_cli_test(graph_run_seed_negative 2 "${seed_error}" ONE_LINE
                  COMMAND ${superopt_bin} graph run ${flag_graph} --seed -1)
foreach(value inf nan 1e400)
  superopt_cli_test(optimize_alpha_${value} 2 "--alpha: expected a number from 1 to 1000, got '${value}'$" ONE_LINE
                    COMMAND ${superopt_bin} optimize ${flag_graph} --rules ${flag_rules} --alpha ${value})
endforeach()
superopt_cli_test(graph_run_input_shape_huge 2 "--input-shape: dimension 2147483648 is over the limit of 2147483647" ONE_LINE
                  COMMAND ${superopt_bin} graph run ${flag_graph} --input-shape x=2147483648)

# The memory budget (runtime/core/memory_budget.h): a graph whose tensors do not
# fit is refused from its shapes, at once, with the tensor and its size. Before,
# a 30000x30000 matmul allocated until the machine ran out, and 100000x100000
# ended in a failed malloc with exit 1. TIMEOUT 5 is the "at once".
set(huge ${CMAKE_CURRENT_SOURCE_DIR}/data/huge)
set(over_budget "evaluating [a-z]+ '[a-z]+' \\(output [0-9]+x[0-9]+: [0-9.]+ GB, with the tensors live then\\) needs [0-9.]+ GB, over the memory budget of [0-9.]+ GB \\(--max-memory\\)$")
# x and w fit in 16 GiB (7.2 GB each), not the product as well.
superopt_cli_test(graph_run_over_memory_budget 2 "evaluating matmul 'mm' \\(output 30000x30000: 7.2 GB, with the tensors live then\\) needs 21.6 GB, over the memory budget of 17.2 GB \\(--max-memory\\)$" ONE_LINE
                  COMMAND ${superopt_bin} graph run ${huge}/matmul_30000.json --max-memory 16G)
superopt_cli_test(optimize_over_memory_budget 2 "${over_budget}" ONE_LINE
                  COMMAND ${superopt_bin} optimize ${huge}/matmul_30000.json --rules ${flag_rules} --max-memory 4G)
# 240 GB in double: over the default budget of any machine this runs on.
superopt_cli_test(graph_run_over_default_memory_budget 2 "${over_budget}" ONE_LINE
                  COMMAND ${superopt_bin} graph run ${huge}/matmul_100000.json)
superopt_cli_test(optimize_over_default_memory_budget 2 "${over_budget}" ONE_LINE
                  COMMAND ${superopt_bin} optimize ${huge}/matmul_100000.json --rules ${flag_rules})
superopt_cli_test(enumerate_over_default_memory_budget 2
                  "holding the operator set's sources needs 160.0 GB, over the memory budget of [0-9.]+ GB \\(--max-memory\\)$" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 1 --opset ${huge}/opset_100000.json --out ${enum_dir}/huge.h5 --force)
superopt_cli_test(graph_run_bad_max_memory 2 "--max-memory: expected a size in bytes" ONE_LINE
                  COMMAND ${superopt_bin} graph run ${flag_graph} --max-memory 4X)
# Refused from the shapes, before any allocation (a run that allocated would
# take the machine's memory for tens of seconds first). optimize also loads the
# rule database and checks the input first: 5-7 s of wall time at load 16, and
# more under the sanitizers, so its limit is wider.
set_tests_properties(cli_graph_run_over_memory_budget cli_graph_run_over_default_memory_budget
                     cli_enumerate_over_default_memory_budget PROPERTIES TIMEOUT 5)
set_tests_properties(cli_optimize_over_memory_budget cli_optimize_over_default_memory_budget PROPERTIES TIMEOUT 30)

# Rule databases are checked on read: a rule whose mapped outputs differ in
# shape, an 'opset' attribute that is not JSON. Both were read without a word.
foreach(kind output_shapes opset_not_json mapping_overflow)
  add_test(NAME db_make_malformed_${kind}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/make_malformed_rule_db.py ${superopt_rules}
                   ${CMAKE_CURRENT_BINARY_DIR}/malformed_${kind}.h5 ${kind})
  set_tests_properties(db_make_malformed_${kind} PROPERTIES FIXTURES_REQUIRED rule_db FIXTURES_SETUP malformed_${kind})
endforeach()
superopt_cli_test(db_info_output_shapes_differ 2
                  "malformed_output_shapes\\.h5: rule 2: output 0 is 2x2 in the source and 4x4 in the target$" ONE_LINE
                  COMMAND ${superopt_bin} db info ${CMAKE_CURRENT_BINARY_DIR}/malformed_output_shapes.h5)
superopt_cli_test(db_info_opset_not_json 2 "malformed_opset_not_json\\.h5: attribute 'opset': not JSON" ONE_LINE
                  COMMAND ${superopt_bin} db info ${CMAKE_CURRENT_BINARY_DIR}/malformed_opset_not_json.h5)
set_tests_properties(cli_db_info_output_shapes_differ PROPERTIES FIXTURES_REQUIRED malformed_output_shapes)
set_tests_properties(cli_db_info_opset_not_json PROPERTIES FIXTURES_REQUIRED malformed_opset_not_json)
# Integers are range-checked where they are read, not cut to 32 bits (issue 37, item 5).
superopt_cli_test(db_show_mapping_overflow 2
                  "malformed_mapping_overflow\\.h5: rule 0: output_mapping '4294967296:0': expected S:T pairs" ONE_LINE
                  COMMAND ${superopt_bin} db show ${CMAKE_CURRENT_BINARY_DIR}/malformed_mapping_overflow.h5 --rule 0)
set_tests_properties(cli_db_show_mapping_overflow PROPERTIES FIXTURES_REQUIRED malformed_mapping_overflow)
file(WRITE ${deep_dir}/huge_dim.ax "axiom huge: forall x: [99999999999]. relu(relu(x)) = relu(x)\n")
superopt_cli_test(verify_axioms_huge_dimension 2 "huge_dim\\.ax:1: number 99999999999 is out of range \\(at most 2147483647\\)" ONE_LINE
                  COMMAND ${superopt_bin} verify-axioms --axioms ${deep_dir}/huge_dim.ax)

# Time limits that hold: every phase that grows with the graph counts against
# --time-limit, and the JSON summary says which phase used the time.
add_test(NAME optimize_time_limit_holds
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/time_limit_test.sh $<TARGET_FILE:superopt> ${flag_rules})
set_tests_properties(optimize_time_limit_holds PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "time_limit_test: ok"
                     FAIL_REGULAR_EXPRESSION "time_limit_test: FAIL")

# A search left no time by loading and the check's share says so, and why
# (zoo models came back unchanged with nothing saying it).
superopt_cli_test(optimize_no_time_left 0 ""
  STDOUT "search time: +[0-9.]+ s \\(no time was left for it: --time-limit 0\\.1 s counts from the start"
  COMMAND ${superopt_bin} optimize builtin:nasrnn --rules ${PROJECT_SOURCE_DIR}/data/rules/taso-3.h5
          --time-limit 0.1)

# The numerical check stops at --time-limit too: a check of minutes ends near
# the limit with the input graph as the result (nothing unchecked written).
add_test(NAME optimize_check_time_limit
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_time_limit_test.sh $<TARGET_FILE:superopt> ${flag_rules})
set_tests_properties(optimize_check_time_limit PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION
                     "check_time_limit_test: ok" FAIL_REGULAR_EXPRESSION "check_time_limit_test: FAIL")

# A check that did not run is "not checked", never "passed", in text and --json
# (issue 37, item 12).
add_test(NAME optimize_check_not_run
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_status_test.sh $<TARGET_FILE:superopt> ${flag_rules})
set_tests_properties(optimize_check_not_run PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION
                     "check_status_test: ok" FAIL_REGULAR_EXPRESSION "check_status_test: FAIL")

# A 2,000-matmul chain overflows double in the check: inconclusive, no suspect,
# ends near --time-limit (it ran 1.8x the limit re-checking every application).
add_test(NAME optimize_overflow_chain
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/overflow_chain_test.sh $<TARGET_FILE:superopt> ${flag_rules})
set_tests_properties(optimize_overflow_chain PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION
                     "overflow_chain_test: ok" FAIL_REGULAR_EXPRESSION "overflow_chain_test: FAIL")


# The search's graph copies count against --max-memory: at the budget it stops
# exploring, keeps the best graph found and says so (they were not counted).
add_test(NAME optimize_search_memory
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/search_memory_test.sh $<TARGET_FILE:superopt> ${flag_rules})
set_tests_properties(optimize_search_memory PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION
                     "search_memory_test: ok" FAIL_REGULAR_EXPRESSION "search_memory_test: FAIL")

# Issue 37, item 1: ONNX external data read through a link out of the model's
# folder (to /etc/passwd, or /etc) or from a FIFO (which hung): refused.
add_test(NAME onnx_external_link
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/onnx_external_link_test.sh $<TARGET_FILE:superopt>
                 ${CMAKE_CURRENT_BINARY_DIR}/onnx_external_link)
set_tests_properties(onnx_external_link PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "onnx_external_link_test: ok"
                     FAIL_REGULAR_EXPRESSION "onnx_external_link_test: FAIL")

# Issue 37, item 2: HDF5 external storage, virtual datasets and external or soft
# links (a rule's note read from /etc/passwd) in rule databases and cost tables:
# refused, naming the file and the dataset.
add_test(NAME hdf5_external_data
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hdf5_external_test.sh $<TARGET_FILE:superopt> ${superopt_rules}
                 ${PROJECT_SOURCE_DIR}/data/costs/cpu-amd-1t.h5 ${CMAKE_CURRENT_BINARY_DIR}/hdf5_external)
set_tests_properties(hdf5_external_data PROPERTIES TIMEOUT 120 FIXTURES_REQUIRED rule_db
                     PASS_REGULAR_EXPRESSION "hdf5_external_test: ok" FAIL_REGULAR_EXPRESSION "hdf5_external_test: FAIL")

# Issue 37, item 3: --out on a FIFO, a character device, a read-only file or a
# directory: the atomic write's rename replaced them with a regular file (run as
# root, `--out /dev/null` replaced the system's /dev/null). See also the
# [atomic_file] cases of robustness_test.cc.
add_test(NAME special_output_targets
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/special_output_test.sh $<TARGET_FILE:superopt> ${flag_graph}
                 ${CMAKE_CURRENT_BINARY_DIR}/special_output)
set_tests_properties(special_output_targets PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION
                     "special_output_test: ok" FAIL_REGULAR_EXPRESSION "special_output_test: FAIL")

# One writer of a database at a time (issue 37, item 4): verify waits for a lock
# another process holds, says so in one line, and leaves no lock file.
add_test(NAME writer_lock_cli
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/writer_lock_cli_test.sh $<TARGET_FILE:superopt> ${superopt_rules}
                 ${CMAKE_CURRENT_BINARY_DIR}/writer_lock_cli)
set_tests_properties(writer_lock_cli PROPERTIES TIMEOUT 120 FIXTURES_REQUIRED rule_db
                     PASS_REGULAR_EXPRESSION "writer_lock_cli_test: ok" FAIL_REGULAR_EXPRESSION "writer_lock_cli_test: FAIL")

# An empty value on the command line is an error, not a silent no-op (issue 37,
# items 7 and 9): `--out ''` wrote nothing with exit 0, `--only ''` meant every
# axiom. (A script: CMake drops empty arguments from a test's command.)
add_test(NAME cli_empty_values
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/empty_values_test.sh $<TARGET_FILE:superopt> ${flag_graph} ${flag_rules})
set_tests_properties(cli_empty_values PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "empty_values_test: ok"
                     FAIL_REGULAR_EXPRESSION "empty_values_test: FAIL")

# What came from a file prints as text, never as a terminal escape sequence
# (issue 37, item 8): a graph named with ESC [31m.
file(WRITE ${deep_dir}/escape_name.json
     "{\"format\": \"superopt-graph\", \"version\": 1, \"name\": \"\\u001b[31mred\\u001b[0m\",\n"
     " \"inputs\": [{\"name\": \"x\", \"shape\": [2, 2]}],\n"
     " \"nodes\": [{\"name\": \"r\", \"op\": \"relu\", \"inputs\": [\"x\"]}], \"outputs\": [\"r\"]}\n")
superopt_cli_test(graph_check_escape_in_name 0 "" STDOUT "graph \\\\x1b.31mred\\\\x1b.0m in "
                  COMMAND ${superopt_bin} graph check ${deep_dir}/escape_name.json)

# What graph export writes, graph check reads (issue 37, item 9): a 65536^3
# tensor from an ONNX model was written to a graph file that check refused.
add_test(NAME graph_export_check_agree
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/export_check_agree_test.sh $<TARGET_FILE:superopt>)
set_tests_properties(graph_export_check_agree PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION
                     "export_check_agree_test: ok" FAIL_REGULAR_EXPRESSION "export_check_agree_test: FAIL")

# MPI starts under a file size limit below PMIx's 4 MiB store files (issue 37,
# item 10): it failed with 16-19 lines of PMIx errors.
add_test(NAME mpi_under_file_size_limit COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi_file_limit_test.sh $<TARGET_FILE:superopt>)
set_tests_properties(mpi_under_file_size_limit PROPERTIES TIMEOUT 60 LABELS mpi PASS_REGULAR_EXPRESSION
                     "mpi_file_limit_test: ok" FAIL_REGULAR_EXPRESSION "mpi_file_limit_test: FAIL")

# Every CTest name short, none a join of a whole executable's (issue 37, item 12).
add_test(NAME test_names_short COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_names_test.sh ${PROJECT_BINARY_DIR}
                                       ${CMAKE_CTEST_COMMAND})
set_tests_properties(test_names_short PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "test_names_test: ok"
                     FAIL_REGULAR_EXPRESSION "test_names_test: FAIL")

# Issue 37, item 10: a 2^40-row HDF5 dataset is refused naming the file, the
# dataset and the size (it was a bare "out of memory"); a read-only database is
# refused before verify's or derive's work (it failed after 13.6 s).
add_test(NAME hdf5_huge_dataset
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hdf5_huge_dataset_test.sh $<TARGET_FILE:superopt> ${flag_rules})
set_tests_properties(hdf5_huge_dataset PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "hdf5_huge_dataset_test: ok"
                     FAIL_REGULAR_EXPRESSION "hdf5_huge_dataset_test: FAIL")
add_test(NAME readonly_database_refused_early
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/readonly_database_test.sh $<TARGET_FILE:superopt> ${flag_rules})
set_tests_properties(readonly_database_refused_early PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION
                     "readonly_database_test: ok" FAIL_REGULAR_EXPRESSION "readonly_database_test: FAIL")

# optimize --help names every --cost form, cpu among them, and where its output
# is explained (issue 37, item 12: it said "analytic:DEVICE, table:FILE or gpu").
superopt_cli_test(optimize_help_cost_forms 0 "" STDOUT
                  "--cost .*analytic:DEVICE.*table:FILE.*cpu \\(measured.*cpu:THREADS.*gpu.*--json.*Reading"
                  COMMAND ${superopt_bin} optimize --help)

# Ctrl-C stops verify, alone and under mpirun, and leaves no lock file.
add_test(NAME verify_interrupt
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/verify_interrupt_test.sh $<TARGET_FILE:superopt> ${flag_rules}
                 ${CMAKE_CURRENT_BINARY_DIR}/verify_interrupt)
set_tests_properties(verify_interrupt PROPERTIES TIMEOUT 180 LABELS mpi PASS_REGULAR_EXPRESSION
                     "verify_interrupt_test: ok" FAIL_REGULAR_EXPRESSION "verify_interrupt_test: FAIL"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
