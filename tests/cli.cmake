# Tests of the gpuhier command line (cli engineer): output names, run, doctor.
add_executable(test_outname ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_outname.c)
target_link_libraries(test_outname PRIVATE gh_store)
gh_add_test(NAME unit.outname COMMAND test_outname LABELS unit cli)
add_executable(test_optvalue ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_optvalue.c)
target_link_libraries(test_optvalue PRIVATE gh_store m)
gh_add_test(NAME unit.optvalue COMMAND test_optvalue LABELS unit cli collector)

# run's parsing, program lookup and session file, linked without the rest of the CLI.
add_executable(test_cli_run ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cli_run.c
  ${PROJECT_SOURCE_DIR}/cli/run_opts.c ${PROJECT_SOURCE_DIR}/cli/run_child.c
  ${PROJECT_SOURCE_DIR}/cli/run_session.c ${PROJECT_SOURCE_DIR}/cli/cli_regex.c)
target_link_libraries(test_cli_run PRIVATE gh_store)
gh_add_test(NAME unit.cli_run COMMAND test_cli_run LABELS unit cli)

# The stand-in program of the e2e tests, and a collector stand-in for builds
# without the real one (tests prefer the real collector when it is built).
add_executable(gh_cli_child ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cli_child.c)
add_library(gh_cli_stub_collector SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cli_stub_collector.c)
if(GPUHIER_SANITIZE)
  # Both play uninstrumented code (the user's program, the collector): with a
  # library in LD_PRELOAD an ASan executable refuses to start, and an ASan
  # library cannot load into sh.
  set_target_properties(gh_cli_child gh_cli_stub_collector PROPERTIES
    COMPILE_OPTIONS "-Wall;-Wextra" LINK_OPTIONS "")
endif()

# A fake driver and CUPTI for doctor's happy path without a GPU (t405).
add_library(gh_cli_fake_cuda SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cli_fakecuda.c)
add_library(gh_cli_fake_cupti SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cli_fakecuda.c)
target_compile_definitions(gh_cli_fake_cupti PRIVATE FAKE_CUPTI)

set(GH_CLI_E2E_ENV
  "GH_CLI_FAKE_CUDA=$<TARGET_FILE:gh_cli_fake_cuda>"
  "GH_CLI_FAKE_CUPTI=$<TARGET_FILE:gh_cli_fake_cupti>"
  "GPUHIER=$<TARGET_FILE:gpuhier>"
  "GH_CLI_CHILD=$<TARGET_FILE:gh_cli_child>"
  "GH_CLI_STUB_COLLECTOR=$<TARGET_FILE:gh_cli_stub_collector>")
file(GLOB GH_CLI_E2E ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t4[0-4]*.sh)
foreach(script ${GH_CLI_E2E})
  get_filename_component(name ${script} NAME_WE)
  if(name MATCHES "-gpu")
    gh_add_gpu_test(NAME e2e.${name} COMMAND sh ${script} LABELS e2e cli ENVIRONMENT "${GH_CLI_E2E_ENV}")
  else()
    gh_add_test(NAME e2e.${name} COMMAND sh ${script} LABELS e2e cli ENVIRONMENT "${GH_CLI_E2E_ENV}")
  endif()
endforeach()

# The merge benchmark's script at a small size, so it cannot rot (the
# 64-rank run and its table are in docs/bench-merge.md).
gh_add_test(NAME bench.merge_speed COMMAND sh ${PROJECT_SOURCE_DIR}/bench/merge_speed.sh ${PROJECT_BINARY_DIR} 20000 2 4
            LABELS bench cli)
