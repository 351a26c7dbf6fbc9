# The GPU runtime's tests. GPU tests (label gpu) exit 77 without a CUDA device
# and CTest reports them as skipped; the command-line test checks both cases.
if(SUPEROPT_HAVE_CUDA)
  foreach(gpu_test gpu_kernels_test gpu_runtime_test)
    add_executable(${gpu_test} ${gpu_test}.cc)
    target_link_libraries(${gpu_test} PRIVATE superopt_runtime superopt_exec_cuda superopt_catch_runner)
    add_test(NAME ${gpu_test} COMMAND ${gpu_test})
    set_tests_properties(${gpu_test} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
endif()

# measure, run --gpu and optimize --cost gpu: exit 2 with one line "no CUDA
# device" where there is none (CI), work where there is one.
add_test(NAME cli_gpu_commands
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu_cli_test.sh $<TARGET_FILE:superopt> ${search_taso3}
                 ${PROJECT_SOURCE_DIR}/data/graphs/fused_matmul.json ${CMAKE_CURRENT_BINARY_DIR}/gpu_cli)
set_tests_properties(cli_gpu_commands PROPERTIES FIXTURES_REQUIRED search_rules TIMEOUT 600
                     FAIL_REGULAR_EXPRESSION "gpu_cli_test: FAIL")

# The dispatch's parameters through host emulations of cuDNN and cuBLAS (no device needed).
if(SUPEROPT_HAVE_CUDA)
  add_executable(gpu_dispatch_tests gpu_dispatch_test.cc)
  target_link_libraries(gpu_dispatch_tests PRIVATE superopt_runtime superopt_exec_cuda Catch2::Catch2WithMain)
  catch_discover_tests(gpu_dispatch_tests)
endif()
