# Test time limits that follow the build: the sanitizer build (ASan+UBSan at
# -O1) runs several times slower than Release, more on a loaded machine, so
# every TIMEOUT of tests/ is multiplied by SUPEROPT_TEST_TIME_SCALE (10 in a
# sanitizer build, 1 otherwise), and the scripts that time a run or pass
# --time-limit read the same factor from the environment. The Release build
# keeps the limits as written: that is where they are measured.
if(SUPEROPT_SANITIZE)
  set(superopt_default_time_scale 10)
else()
  set(superopt_default_time_scale 1)
endif()
set(SUPEROPT_TEST_TIME_SCALE ${superopt_default_time_scale} CACHE STRING
    "Factor on every test's time limit (10 in a sanitizer build)")
if(NOT SUPEROPT_TEST_TIME_SCALE MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "SUPEROPT_TEST_TIME_SCALE must be a positive integer, not '${SUPEROPT_TEST_TIME_SCALE}'")
endif()

# optimize's default --time-limit, scaled: for the tests whose search must
# explore graphs after loading a rule database (loading alone took 120 s of 60
# under the sanitizers on a loaded machine).
math(EXPR superopt_test_time_limit "60 * ${SUPEROPT_TEST_TIME_SCALE}")

# Multiplies the TIMEOUT of every test defined so far in this directory and
# gives each the factor in its environment. Call it once, after the last test.
# Each test also gets OMP_WAIT_POLICY=passive, the policy superopt sets for
# itself (main.cc): without it every superopt a test starts loads its
# libraries twice, once before it re-executes itself with the policy set (0.35
# of the 0.8 s that `superopt version` took on a 2-core VM; the CLI tests start
# superopt hundreds of times).
function(superopt_scale_test_timeouts)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT SUPEROPT_TEST_TIME_SCALE=${SUPEROPT_TEST_TIME_SCALE}
                                                          OMP_WAIT_POLICY=passive)
    get_test_property(${test} TIMEOUT timeout)
    if(timeout)
      math(EXPR timeout "${timeout} * ${SUPEROPT_TEST_TIME_SCALE}")
      set_tests_properties(${test} PROPERTIES TIMEOUT ${timeout})
    endif()
  endforeach()
endfunction()
