add_executable(test_store ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_store.c)
target_link_libraries(test_store PRIVATE gh_store)
gh_add_test(NAME unit.store COMMAND test_store LABELS unit store)

# Every reader on damaged, foreign, unreadable and recoverable reports (issue 20).
gh_add_test(NAME e2e.t010-damaged-reports COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t010-damaged-reports.sh
            LABELS e2e store)

# The libFuzzer target over the store's open path and every reader
# (tests/fuzz/run.sh builds and runs it; scripts/test runs it briefly).
if(GPUHIER_FUZZ)
  add_executable(fuzz_report ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_report.c)
  target_link_libraries(fuzz_report PRIVATE gh_analyzer gh_export gh_tui gh_store)
  target_compile_definitions(fuzz_report PRIVATE GPUHIER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_options(fuzz_report PRIVATE -fsanitize=fuzzer)
endif()
