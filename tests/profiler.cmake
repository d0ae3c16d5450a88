# Unit tests of the metrics engineer's collector files (collector/metrics.c,
# sampling.c, occupancy.c, cupti_load.c). They compile those sources
# directly, so they do not depend on the collector library's target.
set(GH_PROF_SRC ${PROJECT_SOURCE_DIR}/collector)

add_executable(test_occupancy ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_occupancy.c
               ${GH_PROF_SRC}/occupancy.c)
target_include_directories(test_occupancy PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(test_occupancy PRIVATE GPUHIER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gh_add_test(NAME unit.occupancy COMMAND test_occupancy LABELS unit profiler)

add_executable(test_sampling ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sampling.c
               ${GH_PROF_SRC}/sampling.c ${PROJECT_SOURCE_DIR}/schema/optvalue.c)
target_include_directories(test_sampling PRIVATE ${PROJECT_SOURCE_DIR} ${LIBIBERTY_INCLUDE_DIR})
target_link_libraries(test_sampling PRIVATE Threads::Threads ${LIBIBERTY_LIBRARY})
gh_add_test(NAME unit.sampling COMMAND test_sampling LABELS unit profiler)

# bench/budget_sim.c: --profile-budget's two policies replayed on a trace report
# (a model; docs/sampling.md). The test replays a synthetic trace.
add_executable(budget_sim ${PROJECT_SOURCE_DIR}/bench/budget_sim.c ${GH_PROF_SRC}/sampling.c
               ${PROJECT_SOURCE_DIR}/schema/optvalue.c)
target_include_directories(budget_sim PRIVATE ${PROJECT_SOURCE_DIR} ${LIBIBERTY_INCLUDE_DIR})
target_link_libraries(budget_sim PRIVATE SQLite::SQLite3 Threads::Threads ${LIBIBERTY_LIBRARY})
set_target_properties(budget_sim PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
gh_add_test(NAME bench.budget_sim COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t104-budget-sim.sh
            LABELS unit profiler)

set_source_files_properties(${PROJECT_BINARY_DIR}/schema/catalogue_data.c PROPERTIES GENERATED TRUE)
# A test of the collector's metric code run offline (pass counts through CUPTI's
# host API): metrics.c and the catalogue's tables, CUPTI headers only (no link:
# libcupti is dlopened; cupti_profiler_host.h includes <string>, answered by the
# empty collector/shim/string). gh_offline_metrics_test(TARGET TEST SOURCES...)
function(gh_offline_metrics_test target test)
  add_executable(${target} ${ARGN} ${GH_PROF_SRC}/metrics.c ${GH_PROF_SRC}/cupti_load.c
                 ${GH_PROF_SRC}/signals.c ${PROJECT_SOURCE_DIR}/schema/optvalue.c ${GH_CATALOGUE_SOURCES})
  add_dependencies(${target} gh_store)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
  target_compile_options(${target} PRIVATE -idirafter ${GH_PROF_SRC}/shim)
  target_compile_definitions(${target} PRIVATE GPUHIER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(${target} PRIVATE Threads::Threads ${CMAKE_DL_LIBS} m)
  gh_add_test(NAME ${test} COMMAND ${target} LABELS unit profiler)
endfunction()

gh_offline_metrics_test(test_metrics unit.metrics ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_metrics.c)
# Every like-for-like group of the agreement script is one pass on GH100 (offline).
gh_offline_metrics_test(test_agreement_groups unit.agreement_groups
                        ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_agreement_groups.c)

# The agreement script's parsers (bench/agreement/), on recorded ncu output.
gh_add_test(NAME unit.agreement_parse
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/agreement/test_parse.py
            LABELS unit profiler)
gh_add_test(NAME unit.agreement_self
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/agreement/test_self.py
            LABELS unit profiler)
gh_add_test(NAME unit.bench_proc
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/e2e/test_proc.py
            LABELS unit profiler)
# bench/e2e/testkernels.py's catalogue names, run options per mode and groups reader (no GPU).
gh_add_test(NAME unit.e2e_testkernels
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/e2e/test_testkernels.py
            LABELS unit profiler)
gh_add_test(NAME unit.pytorch_vs_ncu_readers
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/e2e/test_pytorch_vs_ncu.py
            LABELS unit analyzer)
gh_add_test(NAME unit.agreement_pipeline
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/agreement/test_pipeline.py
            LABELS profiler)
# Instrumentation and spread-pass agreement, and the instrumentation cost bench
# (issues 17 points 6-7, 18 point 5): parsers and gates on synthetic inputs.
gh_add_test(NAME unit.agreement_inst
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/agreement/test_inst.py
            LABELS unit profiler)
gh_add_test(NAME unit.agreement_spread
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/agreement/test_spread.py
            LABELS unit profiler)
gh_add_test(NAME unit.agreement_cost
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/agreement/test_cost.py
            LABELS unit profiler)
gh_add_test(NAME unit.inst_hang
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_inst_hang.py
            LABELS unit profiler)
gh_add_test(NAME unit.graph_arming
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_graph_arming.py
            LABELS unit profiler)
gh_add_test(NAME unit.stress_merge
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/stress/test_stress.py
            LABELS unit profiler)
gh_add_test(NAME unit.cost_vs_ncu
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_cost_vs_ncu.py $<TARGET_FILE:gpuhier>
                    $<TARGET_FILE:test_onepass>
            LABELS unit profiler)
gh_add_test(NAME unit.instrument_cost
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_instrument_cost.py
            LABELS unit profiler)
gh_add_test(NAME unit.report_bytes
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_report_bytes.py
            LABELS unit profiler)
gh_add_test(NAME unit.agreement_device
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/agreement/test_device.py
            LABELS unit profiler)
gh_add_test(NAME unit.candidate_check
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_candidate_check.py
            LABELS unit profiler)

# The suite beside Nsight Compute (bench/suite, issue 19 point 8): its readers, comparator, targets,
# driver and packing on synthetic inputs; the driver on the GPU with the testkernels workload.
gh_add_test(NAME unit.suite
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/suite/test_suite.py
            LABELS unit analyzer)
gh_add_gpu_test(NAME gpu.suite-defects COMMAND sh ${PROJECT_SOURCE_DIR}/bench/suite/test_gpu.sh LABELS analyzer)

# The one-pass group plan (collector/onepass.c), packed offline for GH100.
gh_offline_metrics_test(test_onepass unit.onepass ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_onepass.c
                        ${GH_PROF_SRC}/onepass.c)
gh_add_test(NAME unit.delay_along
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_delay_along.py
            LABELS unit profiler)
gh_add_test(NAME unit.policy_sim
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_policy_sim.py
            LABELS unit profiler)
gh_add_test(NAME unit.chain_sim
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_chain_sim.py
            LABELS unit profiler)
gh_add_test(NAME unit.threads_check
            COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/test_threads_check.py
            LABELS unit profiler)
