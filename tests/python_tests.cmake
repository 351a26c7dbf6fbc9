# The Python package superopt (python/): its pytest files, each a CTest test
# (label python) run by /usr/bin/python3 with the build tree's package on
# PYTHONPATH and compared with this build's superopt binary. Skipped where the
# package is not built (no pybind11: python/CMakeLists.txt says so).
if(NOT SUPEROPT_HAVE_PYTHON)
  return()
endif()
foreach(name graph optimize errors torch interrupt readme)
  add_test(NAME python_${name}
           COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/python/tests/test_${name}.py
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(python_${name} PROPERTIES LABELS python TIMEOUT 300
                       ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;SUPEROPT_BINARY=$<TARGET_FILE:superopt>")
endforeach()
