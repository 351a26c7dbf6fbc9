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

# all_ops: every registry operator but opaque, asymmetric SAME padding, groups, constants, split.
foreach(model ${torch_all_ops} ${PROJECT_SOURCE_DIR}/data/graphs/concat_split.json
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
