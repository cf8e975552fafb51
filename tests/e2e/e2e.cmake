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

# One ctest entry per file, e2e.test_<name>, so that `ctest -j N` (scripts/test.sh) runs them side
# by side: much of their time is spent waiting (on Slurm, timeouts, processes starting). `ctest -L
# e2e` runs them all, `ctest -R e2e.test_batch$` one. They share no fixed path, port or process:
# each test keeps to its tmp_path (zl's collection cache in ~/.cache/zl is written atomically), and
# test_batch_slurm is the one user of the Slurm cluster.
file(GLOB zl_e2e_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
list(REMOVE_ITEM zl_e2e_files ${CMAKE_CURRENT_LIST_DIR}/test_packages.py)
# Seconds each took alone on the two-core reference machine: ctest -j starts the longest first,
# so that none is left running alone at the end. ctest keeps its own measure after a first run
# (Testing/Temporary/CTestCostData.txt); these order a fresh tree's (CI's) first run. Slurm's, ten
# seconds where no Slurm answers, takes about 110 s, mostly waiting, on CI's one-node Slurm: first.
set(zl_e2e_cost_test_batch_slurm 110)
set(zl_e2e_cost_test_campaign_ownership 65)
set(zl_e2e_cost_test_legacy_releases 60)
set(zl_e2e_cost_test_batch_warm 58)
set(zl_e2e_cost_test_fuzz_scripts 54)
set(zl_e2e_cost_test_warm_twin 50)
set(zl_e2e_cost_test_process_hygiene 38)
set(zl_e2e_cost_test_report 22)
set(zl_e2e_cost_test_history 20)
set(zl_e2e_cost_test_sweep 20)
set(zl_e2e_cost_test_batch 19)
set(zl_e2e_cost_test_run_caliber 17)
set(zl_e2e_cost_test_summary_counting 28)
set(zl_e2e_cost_test_sdk 15)
set(zl_e2e_cost_test_samples 15)
set(zl_e2e_cost_test_telemetry 10)
set(zl_e2e_cost_test_calibrate 15)
set(zl_e2e_cost_test_peak 14)
foreach(file IN LISTS zl_e2e_files)
  get_filename_component(name ${file} NAME_WE)
  add_test(NAME e2e.${name}
    COMMAND ${ZL_TEST_PYTHON} -m pytest -q -p no:cacheprovider ${file}
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(e2e.${name} PROPERTIES ENVIRONMENT "${zl_e2e_environment}" LABELS e2e)
  if(DEFINED zl_e2e_cost_${name})
    set_tests_properties(e2e.${name} PROPERTIES COST ${zl_e2e_cost_${name}})
  endif()
endforeach()

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
set_tests_properties(plugins PROPERTIES COST 27) # seconds, as the e2e files' above
