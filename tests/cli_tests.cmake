# End-to-end tests of the superopt command line (graph check/run on good and malformed files).
# Exit codes and stderr are checked by expect_exit.sh; PASS_REGULAR_EXPRESSION alone would
# ignore the exit code, so every test runs through it and fails on its FAIL line.
set(superopt_expect sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh)
set(superopt_bin $<TARGET_FILE:superopt>)

# superopt_cli_test(NAME CODE STDERR_REGEX [STDOUT_REGEX] [ONE_LINE] COMMAND ARGS...)
function(superopt_cli_test name code stderr_regex)
  cmake_parse_arguments(arg "ONE_LINE" "STDOUT" "COMMAND" ${ARGN})
  set(flags)
  if(arg_ONE_LINE)
    set(flags --one-line)
  endif()
  add_test(NAME cli_${name} COMMAND ${superopt_expect} ${flags} ${code} "${stderr_regex}" -- ${arg_COMMAND})
  set_tests_properties(cli_${name} PROPERTIES FAIL_REGULAR_EXPRESSION "expect_exit: FAIL")
  if(arg_STDOUT)
    set_tests_properties(cli_${name} PROPERTIES PASS_REGULAR_EXPRESSION "${arg_STDOUT}")
  endif()
endfunction()

# Every bundled example checks and runs.
file(GLOB superopt_examples CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/data/graphs/*.json)
foreach(example ${superopt_examples})
  get_filename_component(name ${example} NAME_WE)
  superopt_cli_test(graph_check_${name} 0 "" STDOUT "hash: +[0-9a-f]+\n"
                    COMMAND ${superopt_bin} graph check ${example})
  superopt_cli_test(graph_check_json_${name} 0 "" STDOUT "\"hash\": \"[0-9a-f]+\""
                    COMMAND ${superopt_bin} graph check --json ${example})
  superopt_cli_test(graph_run_${name} 0 "" STDOUT "total checksum: -?[0-9]"
                    COMMAND ${superopt_bin} graph run ${example} --seed 3)
endforeach()

# A graph whose values are all given has a known checksum (see data/graphs/README.md).
superopt_cli_test(graph_run_known_values 0 "" STDOUT "m +2x2 +134 +33\\.5 +392\n.*total checksum: 452\n"
                  COMMAND ${superopt_bin} graph run ${CMAKE_CURRENT_SOURCE_DIR}/data/known_values.json)

# The same file and seed give the same digits.
add_test(NAME cli_graph_run_deterministic
         COMMAND sh -c "\"$0\" graph run \"$1\" > run1.txt && \"$0\" graph run \"$1\" > run2.txt && cmp run1.txt run2.txt"
                 ${superopt_bin} ${PROJECT_SOURCE_DIR}/data/graphs/concat_split.json)

# Each malformed file exits 2 with one line naming the file and its problem
# (regexes for grep -E, after the file name; no semicolons, which CMake reads as
# list separators).
set(superopt_malformed
  axis_out_of_range     "params\\.axis: axis -3 is out of range"
  bad_padding           "params\\.padding: expected \"same\" or \"valid\""
  bad_port              "bad output port in 'c:1': 'c' \\(conv2d\\) has 1 output"
  bad_port_syntax       "outputs\\[0\\]: bad output port in 'c:first'"
  bad_shape             "shape: expected an array of at most 6 positive integers"
  cycle                 "cycle: a -> b -> a"
  dangling_reference    "nodes\\[1\\] \\(\"add\"\\): inputs\\[1\\]: no tensor named 'w9'"
  duplicate_key         "nodes\\[0\\]\\.params: duplicate key 'stride'"
  duplicate_name        "duplicate name 'x'"
  empty                 ":1:1: JSON syntax error"
  huge_dimension        "shape: dimension 2147483648 is over the limit of 2147483647 \\(a 32-bit integer\\)"
  empty_outputs         "outputs: expected a non-empty array"
  input_as_node         "'input' entries belong in the top-level \"inputs\" array"
  missing_outputs       "missing field 'outputs'"
  missing_param         "concat requires parameter 'axis'"
  not_an_object         "expected a JSON object at the top level"
  shape_mismatch        "nodes\\[2\\] \\(\"mm\"\\): matmul: inner dimensions differ \\(inputs 2x4, 3x4\\)"
  split_without_concat  "split: no concatenation on axis 1 to undo"
  syntax_error          ":4:10: JSON syntax error"
  truncated             ":11:19: JSON syntax error .*unexpected end of input"
  unknown_field         "unknown field 'param'"
  unknown_operator      "unknown operator 'conv3d'"
  unknown_param         "params\\.dilation: conv2d takes no parameter 'dilation'"
  weight_data_length    "data: 3 values for shape 2x2 \\(4 elements\\)"
  wrong_arity           "relu takes 1 input, got 2"
  wrong_format          "format: expected \"superopt-graph\""
  wrong_version         "version: this superopt reads version 1 only, got 2"
  wrong_param_type      "params\\.stride: expected an array of 2 positive integers"
)
file(GLOB superopt_malformed_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/malformed/*.json)
foreach(file ${superopt_malformed_files})
  get_filename_component(name ${file} NAME_WE)
  list(FIND superopt_malformed ${name} index)
  if(index EQUAL -1)
    message(SEND_ERROR "tests/data/malformed/${name}.json has no expected message in cli_tests.cmake")
    continue()
  endif()
  math(EXPR index "${index} + 1")
  list(GET superopt_malformed ${index} message)
  superopt_cli_test(graph_check_malformed_${name} 2 "^superopt: .*/${name}\\.json.*${message}" ONE_LINE
                    COMMAND ${superopt_bin} graph check ${file})
endforeach()

# Usage errors exit 2 with a message; help exits 0.
set(superopt_example ${PROJECT_SOURCE_DIR}/data/graphs/resnet_bottleneck.json)
superopt_cli_test(graph_unknown_flag 2 "unknown command '--frobnicate'" ONE_LINE
                  COMMAND ${superopt_bin} graph --frobnicate)
superopt_cli_test(graph_check_unknown_flag 2 "unrecogni[sz]ed option '--frobnicate'" ONE_LINE
                  COMMAND ${superopt_bin} graph check ${superopt_example} --frobnicate)
superopt_cli_test(graph_check_no_file 2 "missing FILE" ONE_LINE COMMAND ${superopt_bin} graph check)
superopt_cli_test(graph_check_two_files 2 "too many positional options" ONE_LINE
                  COMMAND ${superopt_bin} graph check ${superopt_example} ${superopt_example})
superopt_cli_test(graph_check_missing_file 2 "cannot open /nonexistent/graph\\.json: No such file or directory"
                  ONE_LINE COMMAND ${superopt_bin} graph check /nonexistent/graph.json)
superopt_cli_test(graph_run_missing_file 2 "cannot open /nonexistent/graph\\.json" ONE_LINE
                  COMMAND ${superopt_bin} graph run /nonexistent/graph.json)
superopt_cli_test(graph_run_bad_seed 2 "seed" ONE_LINE
                  COMMAND ${superopt_bin} graph run ${superopt_example} --seed many)
superopt_cli_test(graph_run_malformed 2 "cycle: a -> b -> a" ONE_LINE
                  COMMAND ${superopt_bin} graph run ${CMAKE_CURRENT_SOURCE_DIR}/data/malformed/cycle.json)
# Found by cli_fuzz (tests/fuzz/): an argument holding one of Boost.ProgramOptions'
# placeholders hung the error message forever; the file lists the arguments, one a line.
add_test(NAME cli_option_placeholder_argument
         COMMAND ${superopt_expect} --one-line 2 "argument '--split-threshold%original_token%' contains '%original_token%'"
                 -- sh -c "bin=\"$0\"; file=\"$1\"; set --; while IFS= read -r a; do set -- \"$@\" \"$a\"; done < \"$file\"; exec \"$bin\" \"$@\""
                 ${superopt_bin} ${CMAKE_CURRENT_SOURCE_DIR}/data/malformed/cli_option_placeholder.args)
set_tests_properties(cli_option_placeholder_argument PROPERTIES FAIL_REGULAR_EXPRESSION "expect_exit: FAIL" TIMEOUT 30)
superopt_cli_test(graph_no_subcommand 2 "usage: superopt graph" COMMAND ${superopt_bin} graph)
superopt_cli_test(unknown_command 2 "unknown command 'nosuchcommand'" ONE_LINE
                  COMMAND ${superopt_bin} nosuchcommand)
superopt_cli_test(help 0 "" STDOUT "usage: superopt COMMAND" COMMAND ${superopt_bin} --help)
superopt_cli_test(graph_help 0 "" STDOUT "check.*validate" COMMAND ${superopt_bin} graph --help)
superopt_cli_test(graph_check_help 0 "" STDOUT "usage: superopt graph check FILE"
                  COMMAND ${superopt_bin} graph check --help)
superopt_cli_test(graph_run_help 0 "" STDOUT "--seed" COMMAND ${superopt_bin} graph run --help)

# The rule database and `superopt db`: make_rule_fixture writes a small database
# (tests/rule_fixture.h) before the tests that read it (a CTest fixture, not test order).
add_executable(make_rule_fixture make_rule_fixture.cc)
target_link_libraries(make_rule_fixture PRIVATE superopt_runtime)
set(superopt_rules ${CMAKE_CURRENT_BINARY_DIR}/fixture_rules.h5)
add_test(NAME db_make_fixture COMMAND make_rule_fixture ${superopt_rules})
set_tests_properties(db_make_fixture PROPERTIES FIXTURES_SETUP rule_db)

# superopt_db_test(NAME CODE STDERR_REGEX [STDOUT REGEX] [ONE_LINE] COMMAND ARGS...), reading the fixture.
function(superopt_db_test name code stderr_regex)
  superopt_cli_test(${name} ${code} "${stderr_regex}" ${ARGN})
  set_tests_properties(cli_${name} PROPERTIES FIXTURES_REQUIRED rule_db)
endfunction()

superopt_db_test(db_info 0 "" STDOUT "rules: +4\n.*candidates +10\n.*verified +1\n.*matmul +2\n.*source operators \\+ target operators"
                 COMMAND ${superopt_bin} db info ${superopt_rules})
superopt_db_test(db_info_json 0 "" STDOUT "\"format_version\": 1,.*\"rules\": 4,.*\"refuted\": 1"
                 COMMAND ${superopt_bin} db info ${superopt_rules} --json)
superopt_db_test(db_show 0 "" STDOUT "status: +verified\n.*m1 = matmul\\(x, w1\\) -> 4x16\n.*output 0: source m2 = target m\n"
                 COMMAND ${superopt_bin} db show ${superopt_rules} --rule 0)
superopt_db_test(db_show_split 0 "" STDOUT "sp = split\\(y\\) axis=1 -> 4x16, 4x16\n.*output 1: source y2 = target sp:1\n"
                 COMMAND ${superopt_bin} db show ${superopt_rules} --rule 1)
superopt_db_test(db_show_json 0 "" STDOUT "\"status\": \"refuted\",.*\"format\": \"superopt-graph\""
                 COMMAND ${superopt_bin} db show ${superopt_rules} --rule 2 --json)
superopt_db_test(db_show_out_of_range 2 "--rule 99: out of range, .*fixture_rules\\.h5 has 4 rules \\(0 to 3\\)"
                 ONE_LINE COMMAND ${superopt_bin} db show ${superopt_rules} --rule 99)
superopt_db_test(db_show_negative_rule 2 "--rule: expected an integer from 0 to [0-9]+, got .-1." ONE_LINE
                 COMMAND ${superopt_bin} db show ${superopt_rules} --rule -1)
superopt_db_test(db_show_no_rule 2 "missing --rule K" ONE_LINE COMMAND ${superopt_bin} db show ${superopt_rules})
superopt_db_test(db_info_unknown_flag 2 "unrecogni[sz]ed option '--frobnicate'" ONE_LINE
                 COMMAND ${superopt_bin} db info ${superopt_rules} --frobnicate)
superopt_cli_test(db_info_missing_file 2 "cannot open /nonexistent/rules\\.h5: No such file or directory" ONE_LINE
                  COMMAND ${superopt_bin} db info /nonexistent/rules.h5)
superopt_cli_test(db_info_text_file 2 "known_values\\.json: not an HDF5 file" ONE_LINE
                  COMMAND ${superopt_bin} db info ${CMAKE_CURRENT_SOURCE_DIR}/data/known_values.json)
superopt_cli_test(db_info_no_file 2 "missing FILE" ONE_LINE COMMAND ${superopt_bin} db info)
superopt_cli_test(db_no_subcommand 2 "usage: superopt db" COMMAND ${superopt_bin} db)
superopt_cli_test(db_help 0 "" STDOUT "info.*\n.*show" COMMAND ${superopt_bin} db --help)
superopt_cli_test(db_info_help 0 "" STDOUT "usage: superopt db info FILE" COMMAND ${superopt_bin} db info --help)
superopt_cli_test(db_show_help 0 "" STDOUT "--rule" COMMAND ${superopt_bin} db show --help)

# Other tools read the file: h5py (the format attribute, a rule graph as JSON) and h5dump.
add_test(NAME db_h5py_reads_fixture
         COMMAND /usr/bin/python3 -c [=[
import h5py, json, sys
f = h5py.File(sys.argv[1], "r")
assert f.attrs["format"] == "superopt-rules", f.attrs["format"]
assert f.attrs["format_version"] == 1
source = f["rules/source"][0]
graph = json.loads(source.decode() if isinstance(source, bytes) else source)
assert graph["format"] == "superopt-graph", graph
assert len(f["rules/status"]) == 4 and len(f["stages/name"]) == 3
print("h5py: ok")
]=] ${superopt_rules})
set_tests_properties(db_h5py_reads_fixture PROPERTIES FIXTURES_REQUIRED rule_db PASS_REGULAR_EXPRESSION "h5py: ok")
add_test(NAME db_h5dump_reads_fixture COMMAND h5dump -H ${superopt_rules})
set_tests_properties(db_h5dump_reads_fixture PROPERTIES FIXTURES_REQUIRED rule_db)

# superopt enumerate: bad options and files give one line and exit 2; nothing is written.
set(enum_dir ${CMAKE_CURRENT_BINARY_DIR}/enumerate_cli)
file(MAKE_DIRECTORY ${enum_dir})
file(WRITE ${enum_dir}/bad_opset.json "{\"format\": \"superopt-opset\", \"version\": 1, \"name\": \"x\", \"sources\": []}")
file(WRITE ${enum_dir}/existing.h5 "not replaced without --force")
set(small_opset ${PROJECT_SOURCE_DIR}/data/opsets/small.json)
superopt_cli_test(enumerate_small 0 "" STDOUT "after_common_subgraphs: +[1-9]"
                  COMMAND ${superopt_bin} enumerate --max-ops 2 --opset ${small_opset} --out ${enum_dir}/ok.h5 --force)
superopt_cli_test(enumerate_json 0 "" STDOUT "\"graphs\":[1-9].*\"peak_rss_bytes\""
                  COMMAND ${superopt_bin} enumerate --max-ops 2 --opset ${small_opset} --out ${enum_dir}/ok2.h5 --force --json)
superopt_cli_test(enumerate_bad_opset 2 "bad_opset.json: sources: expected a non-empty array" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 2 --opset ${enum_dir}/bad_opset.json --out ${enum_dir}/x.h5)
superopt_cli_test(enumerate_missing_opset 2 "cannot open .*nothere.json" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 2 --opset ${enum_dir}/nothere.json --out ${enum_dir}/x.h5)
superopt_cli_test(enumerate_existing_output 2 "existing.h5 exists \\(use --force" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 2 --opset ${small_opset} --out ${enum_dir}/existing.h5)
superopt_cli_test(enumerate_unwritable_output 2 "cannot write /nonexistent/r.h5: no directory" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 2 --opset ${small_opset} --out /nonexistent/r.h5)
superopt_cli_test(enumerate_no_max_ops 2 "max-ops.*required" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --opset ${small_opset})
superopt_cli_test(enumerate_bad_max_ops 2 "--max-ops: expected an integer from 1 to 8, got .9." ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 9 --opset ${small_opset} --out ${enum_dir}/x.h5)
# Records held in memory (no --memory-per-rank) stop at the memory budget with
# one line, not at the kernel's kill (issue 37: --max-ops 8 grew until then);
# with --memory-per-rank they spill and the run ends.
superopt_cli_test(enumerate_over_memory_budget 2
                  "record store \\(1[0-9]+ graph records in memory: no --memory-per-rank\\) needs .*over the memory budget of .*--memory-per-rank" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 3 --opset ${small_opset} --max-memory 64K --out ${enum_dir}/over.h5 --force)
superopt_cli_test(enumerate_spills_under_memory_budget 0 "" STDOUT "spilled to scratch: +[1-9]"
                  COMMAND ${superopt_bin} enumerate --max-ops 3 --opset ${small_opset} --max-memory 64K --memory-per-rank 1M
                          --out ${enum_dir}/spilled.h5 --force)
superopt_cli_test(enumerate_bad_flag 2 "unrecognised option|unrecognized option" ONE_LINE
                  COMMAND ${superopt_bin} enumerate --max-ops 2 --frobnicate)
add_test(NAME cli_enumerate_checkpoint_of_other_run
         COMMAND sh -c "rm -rf ck && \"$0\" enumerate --max-ops 2 --opset \"$1\" --out a.h5 --force --checkpoint ck >/dev/null && sh \"$2\" --one-line 2 'ck/rank-0.log: written by a run with other arguments' -- \"$0\" enumerate --max-ops 1 --opset \"$1\" --out b.h5 --force --checkpoint ck"
                 ${superopt_bin} ${small_opset} ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh
         WORKING_DIRECTORY ${enum_dir})
set_tests_properties(cli_enumerate_checkpoint_of_other_run PROPERTIES FAIL_REGULAR_EXPRESSION "expect_exit: FAIL")

# The README's cheap commands run as written (tests/readme_commands_test.sh).
add_test(NAME readme_commands
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/readme_commands_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(readme_commands PROPERTIES TIMEOUT 300 PASS_REGULAR_EXPRESSION "readme_commands_test: ok")
