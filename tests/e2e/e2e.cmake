# End-to-end tests: the real zl binary, driven by pytest (tests/e2e/test_*.py).
# Debian's python3-pytest installs into /usr/bin/python3, which may not be the python3 on PATH.
set(ZL_TEST_PYTHON "" CACHE FILEPATH "Python interpreter with pytest for the end-to-end tests")
if(NOT ZL_TEST_PYTHON)
  foreach(candidate /usr/bin/python3 python3)
    execute_process(COMMAND ${candidate} -c "import pytest" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(ZL_TEST_PYTHON ${candidate})
      break()
    endif()
  endforeach()
endif()
if(NOT ZL_TEST_PYTHON)
  message(FATAL_ERROR "no python3 with pytest found for the end-to-end tests: apt-get install python3-pytest, "
                      "or pass -DZL_TEST_PYTHON=/path/to/python3 (or -DZL_BUILD_TESTS=OFF)")
endif()

set(zl_e2e_environment
  "ZL_BIN=$<TARGET_FILE:zl>;ZL_BUILD_DIR=${CMAKE_BINARY_DIR};ZL_SOURCE_DIR=${PROJECT_SOURCE_DIR};ZL_BROKEN_MODULE_DIR=${ZL_BROKEN_MODULE_DIR}")
add_test(NAME e2e
  COMMAND ${ZL_TEST_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}
          --ignore=${CMAKE_CURRENT_LIST_DIR}/test_packages.py
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(e2e PROPERTIES ENVIRONMENT "${zl_e2e_environment}")

# The RPMs and DEBs: cpack on this build tree (seconds, nothing is rebuilt), then the packages'
# files and dependencies, and zl run from scratch roots holding some of them.
add_test(NAME packages
  COMMAND ${ZL_TEST_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/test_packages.py
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(packages PROPERTIES ENVIRONMENT "${zl_e2e_environment}")

# pytest tests of the Python plugins and the sample corpus (tests/python), with fake devices.
add_test(NAME plugins
  COMMAND ${ZL_TEST_PYTHON} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/tests/python
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
