# The model zoo and the cost models: unit tests, the cost table read by other
# tools, and the command line (graph check|run|export on builtin models, --cost).
add_executable(models_tests model_zoo_test.cc)
target_link_libraries(models_tests PRIVATE superopt_runtime Catch2::Catch2WithMain)
target_compile_definitions(models_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(models_tests)

# The cost models (runtime/cost/, and exec/'s factory of them): roofline,
# signatures, memory, cost tables; ResNet-50 from the model zoo for the memory limit.
add_executable(cost_tests cost_model_test.cc)
target_link_libraries(cost_tests PRIVATE superopt_exec superopt_models Catch2::Catch2WithMain)
catch_discover_tests(cost_tests)

# A cost table written once, read by h5py, h5dump and `graph check --cost table:`.
add_executable(make_cost_fixture make_cost_fixture.cc)
target_link_libraries(make_cost_fixture PRIVATE superopt_runtime)
set(superopt_costs ${CMAKE_CURRENT_BINARY_DIR}/fixture_costs.h5)
add_test(NAME costs_make_fixture COMMAND make_cost_fixture ${superopt_costs})
set_tests_properties(costs_make_fixture PROPERTIES FIXTURES_SETUP cost_table)
add_test(NAME costs_h5py_reads_table
         COMMAND /usr/bin/python3 -c [=[
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert f.attrs["format"] == "superopt-costs", f.attrs["format"]
assert f.attrs["format_version"] == 1
assert f.attrs["device"] == "NVIDIA H100 80GB HBM3"
assert f.attrs["analytic_profile"] == "h100"
sig = [s.decode() if isinstance(s, bytes) else s for s in f["signature"][:]]
assert sig[0].startswith("conv2d|stride=1x1"), sig
assert f["cost_ms"].dtype == "float64" and f["repeats"].dtype == "int32"
assert list(f["cost_ms"][:]) == [0.042, 0.0031], list(f["cost_ms"][:])
assert len(f["algorithm"]) == 2 and list(f["repeats"][:]) == [200, 100]
print("h5py: ok")
]=] ${superopt_costs})
set_tests_properties(costs_h5py_reads_table PROPERTIES FIXTURES_REQUIRED cost_table PASS_REGULAR_EXPRESSION "h5py: ok")
add_test(NAME costs_h5dump_reads_table COMMAND h5dump -H ${superopt_costs})
set_tests_properties(costs_h5dump_reads_table PROPERTIES FIXTURES_REQUIRED cost_table)

# Every shipped model file checks and runs on the CPU reference to finite
# outputs (a checksum of inf or nan fails the pattern); about 20 s in all.
file(GLOB superopt_model_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/data/models/*.json)
foreach(model ${superopt_model_files})
  get_filename_component(name ${model} NAME_WE)
  superopt_cli_test(model_check_${name} 0 "" STDOUT "hash: +[0-9a-f]+\n" COMMAND ${superopt_bin} graph check ${model})
  superopt_cli_test(model_run_${name} 0 "" STDOUT "total checksum: -?[0-9]" COMMAND ${superopt_bin} graph run ${model})
endforeach()
superopt_cli_test(model_check_builtin_cost 0 "" STDOUT "graph resnet50 in builtin:resnet50: valid.*cost ms.*\ncost model: +analytic:h100\ncost: +0\\.[0-9]+ ms\n"
                  COMMAND ${superopt_bin} graph check builtin:resnet50 --cost analytic:h100)
superopt_cli_test(model_check_builtin_cost_json 0 "" STDOUT "\"cost_ms\": [0-9].*\"cost_model\": \"analytic:v100\""
                  COMMAND ${superopt_bin} graph check builtin:bert --cost analytic:v100 --json)
superopt_cli_test(model_check_cost_table 0 "" STDOUT "cost model: +table:.*\nfallbacks: +[1-9][0-9]*\n"
                  COMMAND ${superopt_bin} graph check builtin:resnet_blocks:2 --cost table:${superopt_costs})
set_tests_properties(cli_model_check_cost_table PROPERTIES FIXTURES_REQUIRED cost_table)
superopt_cli_test(model_run_builtin_nasrnn 0 "" STDOUT "step4.h +1x512 .*total checksum: -?[0-9]"
                  COMMAND ${superopt_bin} graph run builtin:nasrnn)
superopt_cli_test(model_run_builtin_sru 0 "" STDOUT "step4.h +1x1024 .*total checksum: -?[0-9]"
                  COMMAND ${superopt_bin} graph run builtin:sru --seed 7)
add_test(NAME cli_model_export_matches_shipped
         COMMAND sh -c "\"$0\" graph export squeezenet --out squeezenet.json >/dev/null && cmp squeezenet.json \"$1\""
                 ${superopt_bin} ${PROJECT_SOURCE_DIR}/data/models/squeezenet.json
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# Errors: one line, exit 2.
superopt_cli_test(model_unknown_builtin 2 "builtin model 'resnet51': no such model \\(known: resnet50, " ONE_LINE
                  COMMAND ${superopt_bin} graph check builtin:resnet51)
superopt_cli_test(model_unknown_cost_model 2 "unknown cost model 'roofline' \\(expected analytic:DEVICE" ONE_LINE
                  COMMAND ${superopt_bin} graph check builtin:squeezenet --cost roofline)
superopt_cli_test(model_unknown_device 2 "cost model analytic:a100: unknown device 'a100' \\(known: cpu, h100, v100" ONE_LINE
                  COMMAND ${superopt_bin} graph check builtin:squeezenet --cost analytic:a100)
superopt_cli_test(model_cost_missing_table 2 "cost model table:/nonexistent/c\\.h5: cannot open /nonexistent/c\\.h5" ONE_LINE
                  COMMAND ${superopt_bin} graph check builtin:squeezenet --cost table:/nonexistent/c.h5)
superopt_cli_test(model_export_unwritable 2 "cannot write /nonexistent/m\\.json" ONE_LINE
                  COMMAND ${superopt_bin} graph export sru --out /nonexistent/m.json)
superopt_cli_test(model_export_no_out 2 "missing MODEL or --out FILE" ONE_LINE
                  COMMAND ${superopt_bin} graph export sru)
