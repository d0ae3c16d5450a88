add_executable(test_store ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_store.c)
target_link_libraries(test_store PRIVATE gh_store)
gh_add_test(NAME unit.store COMMAND test_store LABELS unit store)

# Every reader on damaged, foreign, unreadable and recoverable reports (issue 20).
gh_add_test(NAME e2e.t010-damaged-reports COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t010-damaged-reports.sh
            LABELS e2e store)
