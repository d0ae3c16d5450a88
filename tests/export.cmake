# Tests of export/ (sanitizer, writers) and of export, check, diff.
# test_sanitize compares export/sanitize.c with the code of 443d007 (sanitize_ref.c).
add_executable(test_sanitize ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sanitize.c
                             ${CMAKE_CURRENT_SOURCE_DIR}/unit/sanitize_ref.c)
target_link_libraries(test_sanitize PRIVATE gh_export)
gh_add_test(NAME unit.sanitize COMMAND test_sanitize LABELS unit export)
# export_redact_argv() against the SQLite-based code it replaced (redact_ref.c).
add_executable(test_redact ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_redact.c
                           ${CMAKE_CURRENT_SOURCE_DIR}/unit/redact_ref.c)
target_link_libraries(test_redact PRIVATE gh_export)
target_include_directories(test_redact PRIVATE ${JANSSON_INCLUDE_DIRS})
gh_add_test(NAME unit.redact COMMAND test_redact LABELS unit export)
add_executable(test_kname ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_kname.c)
target_link_libraries(test_kname PRIVATE gh_export)
gh_add_test(NAME unit.kname COMMAND test_kname LABELS unit export)

find_package(ZLIB REQUIRED)
add_executable(test_export ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_export.c)
target_link_libraries(test_export PRIVATE gh_export gh_store LibXml2::LibXml2 ZLIB::ZLIB)
target_include_directories(test_export PRIVATE ${JANSSON_INCLUDE_DIRS})
gh_add_test(NAME unit.export COMMAND test_export LABELS unit export)
gh_add_test(NAME e2e.export-sarif-truncation COMMAND test_export --slow LABELS e2e export)

# e2e: export (t45x), check (t46x), diff (t47x) on SYNTHETIC reports.
set(GH_EXPORT_E2E_ENV "GPUHIER=$<TARGET_FILE:gpuhier>" "GH_TEST_EXPORT=$<TARGET_FILE:test_export>")
file(GLOB GH_EXPORT_E2E ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t4[5-7][0-9]-*.sh)
foreach(script ${GH_EXPORT_E2E})
  get_filename_component(name ${script} NAME_WE)
  if(name MATCHES "-gpu$")
    gh_add_gpu_test(NAME e2e.${name} COMMAND sh ${script} LABELS e2e export ENVIRONMENT ${GH_EXPORT_E2E_ENV})
  else()
    gh_add_test(NAME e2e.${name} COMMAND sh ${script} LABELS e2e export ENVIRONMENT ${GH_EXPORT_E2E_ENV})
  endif()
endforeach()

# 10,000 findings to SARIF in <= 1 s (issue 7 §8); result in docs/bench-export.md.
gh_add_test(NAME bench.sarif_speed COMMAND sh ${PROJECT_SOURCE_DIR}/bench/sarif_speed.sh ${PROJECT_BINARY_DIR}
            LABELS bench export ENVIRONMENT ${GH_EXPORT_E2E_ENV})

# A 1 MB command line redacted and sanitized in a few ms, linear in its length
# (issue 20 §4): fails past 100 ms for 1 MB, or when 4 MB costs more than 4x
# the ns/byte of 256 KB; result (full run, without --quick) in docs/bench-redact.md.
add_executable(redact_speed ${PROJECT_SOURCE_DIR}/bench/redact_speed.c)
target_link_libraries(redact_speed PRIVATE gh_export gh_store)
target_include_directories(redact_speed PRIVATE ${JANSSON_INCLUDE_DIRS})
gh_add_test(NAME bench.redact_speed COMMAND redact_speed 100 --quick LABELS bench export)
