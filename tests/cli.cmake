# Tests of the gpuhier command line (cli engineer): output names, run, doctor.
add_executable(test_outname ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_outname.c)
target_link_libraries(test_outname PRIVATE gh_store)
gh_add_test(NAME unit.outname COMMAND test_outname LABELS unit cli)
