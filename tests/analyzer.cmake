# Analyzer tests: unit tests, one golden test per rule fixture
# (tests/fixtures/rule-<id>.sql + .expected, run against rules/<id>.rule
# alone), and the analyzer's e2e scripts (tests/e2e/t2*.sh).
add_executable(test_analyzer ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_analyzer.c)
target_include_directories(test_analyzer PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(test_analyzer PRIVATE gh_analyzer gh_store m)
gh_add_test(NAME unit.analyzer COMMAND test_analyzer LABELS unit analyzer)

file(GLOB GH_RULE_FIXTURES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/rule-*.sql)
foreach(fx ${GH_RULE_FIXTURES})
  get_filename_component(name ${fx} NAME_WE)
  if(name STREQUAL "rule-base" OR name STREQUAL "rule-tail")
    continue()
  endif()
  string(REGEX REPLACE "^rule-" "" id ${name})
  gh_add_test(NAME analyzer.golden.${id}
    COMMAND test_analyzer golden ${fx} ${PROJECT_SOURCE_DIR}/rules/${id}.rule
            ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/${name}.expected
    LABELS unit analyzer)
endforeach()

# The pattern rules together on exact per-instruction counts (tests/fixtures/exact-patterns.sql).
set(GH_PATTERN_RULES uncoalesced-global-load uncoalesced-global-store uncoalesced-global-atomic shared-bank-conflicts
    local-memory-traffic scalar-access)
list(TRANSFORM GH_PATTERN_RULES PREPEND ${PROJECT_SOURCE_DIR}/rules/)
list(TRANSFORM GH_PATTERN_RULES APPEND .rule)
string(JOIN "," GH_PATTERN_RULE_LIST ${GH_PATTERN_RULES})
gh_add_test(NAME analyzer.golden.exact-patterns
  COMMAND test_analyzer golden ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/exact-patterns.sql
          ${GH_PATTERN_RULE_LIST} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/exact-patterns.expected
  LABELS unit analyzer)

# The same rules on access shapes none was written against (tk_unseen's kernels, tests/fixtures/exact-unseen.sql).
gh_add_test(NAME analyzer.golden.exact-unseen
  COMMAND test_analyzer golden ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/exact-unseen.sql
          ${GH_PATTERN_RULE_LIST} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/exact-unseen.expected
  LABELS unit analyzer)

# And on tk_unseen2's, written before its first device run (tests/fixtures/exact-unseen2.sql).
gh_add_test(NAME analyzer.golden.exact-unseen2
  COMMAND test_analyzer golden ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/exact-unseen2.sql
          ${GH_PATTERN_RULE_LIST} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/exact-unseen2.expected
  LABELS unit analyzer)

file(GLOB GH_AN_E2E CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t2*.sh)
foreach(t ${GH_AN_E2E})
  get_filename_component(name ${t} NAME_WE)
  gh_add_test(NAME e2e.${name} COMMAND sh ${t} LABELS e2e analyzer)
endforeach()

# A user rule that needs a counter outside the metric catalogue, read by name (issue 19 point 6):
# no C change. tests/e2e/t411-run-rule-metrics.sh checks that gpuhier run collects it.
gh_add_test(NAME analyzer.golden.user-few-warps-launched
  COMMAND test_analyzer golden ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/user/few-warps-launched.sql
          ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/user/few-warps-launched.rule
          ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/user/few-warps-launched.expected
  LABELS unit analyzer)
