# Issue 33: the prepared GPU run (scripts/bench/run-gpu.sh) rehearsed on the CPU, quick: three
# small models through every step (export, measure, the GPU test binaries (skipped without a
# device), run --check, optimize --cost table:, operator sums, interleaved rounds beside PyTorch),
# then its outputs and one results.csv row per model checked. Skipped (77) without PyTorch.
add_test(NAME gpu_rehearsal_cpu_quick
         COMMAND env SUPEROPT=$<TARGET_FILE:superopt> PYTHON=/usr/bin/python3
                 bash ${PROJECT_SOURCE_DIR}/scripts/bench/rehearse-gpu.sh ${CMAKE_CURRENT_BINARY_DIR}/gpu_rehearsal)
set_tests_properties(gpu_rehearsal_cpu_quick PROPERTIES LABELS gpu_rehearsal TIMEOUT 400 SKIP_RETURN_CODE 77
                     PASS_REGULAR_EXPRESSION "gpu_rehearsal: ok" FAIL_REGULAR_EXPRESSION "gpu_rehearsal: FAIL")
