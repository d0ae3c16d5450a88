# Tests of export/ (sanitizer, writers) and of export, check, diff.
add_executable(test_sanitize ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sanitize.c)
target_link_libraries(test_sanitize PRIVATE gh_export)
gh_add_test(NAME unit.sanitize COMMAND test_sanitize LABELS unit export)
