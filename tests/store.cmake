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

# The metric catalogue (schema/metrics.catalogue): its tables and trigger
# evaluator; the committed schema.sql's v_profiled is the catalogue's; every
# metric a fixture or a shipped rule names is in it; the rule fixtures are
# what tests/fixtures/rule-fixtures.py makes of it.
add_executable(test_catalogue ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_catalogue.c)
target_link_libraries(test_catalogue PRIVATE gh_store m)
gh_add_test(NAME unit.catalogue COMMAND test_catalogue LABELS unit store)
gh_add_test(NAME unit.catalogue_schema
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/unit/catalogue_fresh.sh
          ${PROJECT_SOURCE_DIR}/schema/schema.sql ${PROJECT_BINARY_DIR}/schema/schema.sql
          "cmake --build build --target catalogue-update"
  LABELS unit store)
file(GLOB GH_CATALOGUE_CHECKED CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/*.sql
  ${PROJECT_SOURCE_DIR}/rules/*.rule)
gh_add_test(NAME unit.catalogue_names
  COMMAND gh_catalogue_gen names ${GH_CATALOGUE} ${GH_CATALOGUE_CHECKED}
  LABELS unit store)
gh_add_test(NAME unit.fixtures_fresh
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/unit/fixtures_fresh.sh
          ${CMAKE_CURRENT_SOURCE_DIR}/fixtures ${CMAKE_CURRENT_BINARY_DIR}/fixtures-fresh
  LABELS unit analyzer)

# Re-writing recorded reports' per-instruction counts the way this build's
# writer does (bench/inst_restage.c), to measure a change to their compact
# forms without a GPU; the test runs it on a synthetic report.
add_executable(inst_restage ${PROJECT_SOURCE_DIR}/bench/inst_restage.c)
target_include_directories(inst_restage PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(inst_restage PRIVATE gh_store)
gh_add_test(NAME unit.inst_restage
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_inst_restage.sh $<TARGET_FILE:inst_restage>
          ${PROJECT_SOURCE_DIR}
  LABELS unit store)
