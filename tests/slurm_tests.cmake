# The Slurm jobs (slurm/*.sbatch) on a real one-node Slurm that
# scripts/local-slurm.sh starts and stops; skipped (77) without slurmctld.
add_test(NAME slurm_jobs
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm_test.sh $<TARGET_FILE:superopt>
                 $<TARGET_FILE:make_cost_fixture> ${PROJECT_SOURCE_DIR} ${MPIEXEC_EXECUTABLE}
                 ${CMAKE_CURRENT_BINARY_DIR}/slurm)
set_tests_properties(slurm_jobs PROPERTIES LABELS slurm TIMEOUT 400 SKIP_RETURN_CODE 77
                     PASS_REGULAR_EXPRESSION "slurm_test: ok" FAIL_REGULAR_EXPRESSION "FAIL")
