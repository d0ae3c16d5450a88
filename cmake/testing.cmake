# Test helpers shared by every tests/<module>.cmake.
#
# gh_add_test(NAME name COMMAND cmd... LABELS l...)           an ordinary test (the collector's
#   plan cache in the build's test-cache/, never the user's ~/.cache)
# gh_add_gpu_test(NAME name COMMAND cmd... [LABELS l...])    needs a GPU: exits 77 with
#   "skipped: no GPU" when there is none; ctest shows it as skipped, never passed.
function(gh_add_test)
  cmake_parse_arguments(T "" "NAME;WORKING_DIRECTORY" "COMMAND;LABELS;ENVIRONMENT" ${ARGN})
  if(NOT T_WORKING_DIRECTORY)
    set(T_WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND} WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" SKIP_RETURN_CODE 77
    ENVIRONMENT "GPUHIER_SOURCE_DIR=${PROJECT_SOURCE_DIR};GPUHIER_BINARY_DIR=${PROJECT_BINARY_DIR};GPUHIER_CACHE_DIR=${PROJECT_BINARY_DIR}/test-cache;${T_ENVIRONMENT}")
endfunction()

function(gh_add_gpu_test)
  cmake_parse_arguments(T "" "NAME;WORKING_DIRECTORY" "COMMAND;LABELS;ENVIRONMENT" ${ARGN})
  gh_add_test(NAME ${T_NAME} COMMAND ${T_COMMAND} LABELS gpu ${T_LABELS}
              WORKING_DIRECTORY ${T_WORKING_DIRECTORY} ENVIRONMENT ${T_ENVIRONMENT})
endfunction()
