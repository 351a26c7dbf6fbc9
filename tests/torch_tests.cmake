# PyTorch equals our runtime: each graph's PyTorch version (scripts/bench/torch_models.py) run in
# float64 on the CPU against `superopt graph run --dump` (relative error <= 1e-9), over models
# that together use every operator of the five TASO models and every registry operator; plus the
# CPU plumbing of scripts/bench/gpu.sh and scripts/reproduce/end-to-end.sh. Needs python3-torch.
set(torch_python /usr/bin/python3)
set(torch_models ${PROJECT_SOURCE_DIR}/scripts/bench/torch_models.py)
set(torch_dir ${CMAKE_CURRENT_BINARY_DIR}/torch)
set(torch_check sh ${CMAKE_CURRENT_SOURCE_DIR}/torch_check.sh $<TARGET_FILE:superopt> ${torch_python}
    ${torch_models} ${torch_dir})
set(torch_all_ops ${CMAKE_CURRENT_SOURCE_DIR}/data/torch/all_ops.json)

# all_ops: every registry operator but opaque and the imported ones, asymmetric SAME padding, groups,
# constants, split; imported_ops: the operators ONNX models bring (pad, slice, reduce_mean, clip...).
foreach(model ${torch_all_ops} ${CMAKE_CURRENT_SOURCE_DIR}/data/torch/imported_ops.json
              ${PROJECT_SOURCE_DIR}/data/graphs/concat_split.json
              builtin:squeezenet builtin:resnet_blocks:1 builtin:nasrnn builtin:sru builtin:bert
              builtin:inception_v3)
  get_filename_component(name ${model} NAME_WE)
  string(REGEX REPLACE "^builtin:" "" name ${name})
  string(REPLACE ":" "_" name ${name})
  add_test(NAME torch_equals_${name} COMMAND ${torch_check} ${model})
  set_tests_properties(torch_equals_${name} PROPERTIES LABELS torch TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "worst relative error .*PASS")
endforeach()

# The comparison can fail: softmax on another axis gives the same shapes and other values.
add_test(NAME torch_detects_a_different_graph
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh 1 "" -- ${torch_check} ${torch_all_ops}
                 "s/\"swapped\"], \"params\": {\"axis\": 1}/\"swapped\"], \"params\": {\"axis\": 2}/")
set_tests_properties(torch_detects_a_different_graph PROPERTIES LABELS torch TIMEOUT 120
                     FAIL_REGULAR_EXPRESSION "expect_exit: FAIL" PASS_REGULAR_EXPRESSION "probs|all_ops: .* FAIL")

# --dump errors are one line, exit 2.
superopt_cli_test(graph_run_dump_unwritable 2 "^superopt: cannot write /nonexistent/d.h5" ONE_LINE
                  COMMAND ${superopt_bin} graph run ${torch_all_ops} --dump /nonexistent/d.h5)

# gpu.sh's plumbing on the CPU: optimize, cost, PyTorch timing, the table and its CSV; then the
# end-to-end chart drawn from that CSV. Our runtime's columns need a GPU and stay empty here.
set(torch_gpu_cpu ${torch_dir}/gpu_cpu)
add_test(NAME torch_gpu_sh_cpu
         COMMAND env SUPEROPT=$<TARGET_FILE:superopt> PYTHON=${torch_python}
                 bash ${PROJECT_SOURCE_DIR}/scripts/bench/gpu.sh --cpu --models nasrnn --rules ${search_taso3}
                 --allow-unverified --repeat 2 --time-limit 5 --out ${torch_gpu_cpu})
set_tests_properties(torch_gpu_sh_cpu PROPERTIES LABELS torch TIMEOUT 300 FIXTURES_REQUIRED search_rules
                     FIXTURES_SETUP torch_gpu_csv
                     PASS_REGULAR_EXPRESSION "\nnasrnn +- +- +- +- +- +[0-9.]+ +[0-9.]+ +[0-9.]+ ")
add_test(NAME torch_end_to_end_plot_only
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/reproduce/end-to-end.sh --plot-only ${torch_gpu_cpu}/gpu.csv
                 --out ${torch_gpu_cpu})
set_tests_properties(torch_end_to_end_plot_only PROPERTIES LABELS torch TIMEOUT 120 FIXTURES_REQUIRED torch_gpu_csv
                     PASS_REGULAR_EXPRESSION "nasrnn +[0-9.]+ +n/a.*wrote .*end-to-end.png")

# Without a GPU both benchmarks say so and exit 2 (skipped where nvidia-smi finds one).
foreach(script bench/gpu.sh reproduce/end-to-end.sh)
  get_filename_component(name ${script} NAME_WE)
  string(REPLACE "-" "_" name ${name})
  add_test(NAME torch_${name}_needs_gpu
           COMMAND sh -c "if nvidia-smi -L >/dev/null 2>&1; then exit 77; fi; exec \"$@\"" sh
                   ${superopt_expect} 2 "needs a CUDA GPU" -- env SUPEROPT=$<TARGET_FILE:superopt>
                   bash ${PROJECT_SOURCE_DIR}/scripts/${script} --out ${torch_dir}/needs_gpu)
  set_tests_properties(torch_${name}_needs_gpu PROPERTIES LABELS torch SKIP_RETURN_CODE 77 TIMEOUT 60
                       FAIL_REGULAR_EXPRESSION "expect_exit: FAIL")
endforeach()
