add_executable(test_store ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_store.c)
target_link_libraries(test_store PRIVATE gh_store)
gh_add_test(NAME unit.store COMMAND test_store LABELS unit store)
