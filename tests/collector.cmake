# Collector tests (owner: collector engineer).
#
# CPU (CI): the queue and writer under 8 producer threads (also under
# ThreadSanitizer), JSON escaping and kernel names; preloading the
# collector into non-CUDA programs; its exported symbols and NEEDED list.
# GPU (label gpu, exit 77 without a GPU): small CUDA programs under
# tests/gpu/, built with nvcc when CMake finds a working CUDA compiler.

set(GH_COLLECTOR_TEST_SOURCES
  ${PROJECT_SOURCE_DIR}/collector/writer.c
  ${PROJECT_SOURCE_DIR}/collector/queue.c
  ${PROJECT_SOURCE_DIR}/collector/nvtx.c
  ${PROJECT_SOURCE_DIR}/collector/signals.c
  ${PROJECT_SOURCE_DIR}/collector/json.c
  ${PROJECT_SOURCE_DIR}/schema/strbuf.c
  ${PROJECT_SOURCE_DIR}/collector/demangle.c
  ${PROJECT_SOURCE_DIR}/collector/fault.c
  ${PROJECT_SOURCE_DIR}/collector/cacheflush.c
  ${PROJECT_SOURCE_DIR}/collector/occupancy.c)

# Each variant compiles its own copy of the store (gh_store carries the
# build's ASan flags, which cannot be linked into a TSan binary).
function(gh_collector_unit name)
  add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_queue.c ${GH_COLLECTOR_TEST_SOURCES}
    ${PROJECT_SOURCE_DIR}/schema/store.c ${PROJECT_SOURCE_DIR}/schema/store_inst.c ${PROJECT_BINARY_DIR}/schema/schema_sql.c)
  add_dependencies(${name} gh_store)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR} ${GH_CUPTI_INCLUDES} ${LIBIBERTY_INCLUDE_DIR})
  target_compile_options(${name} PRIVATE -idirafter ${GH_CUPTI_SHIM})
  target_compile_definitions(${name} PRIVATE GPUHIER_VERSION="${PROJECT_VERSION}")
  target_link_libraries(${name} PRIVATE SQLite::SQLite3 ${LIBIBERTY_LIBRARY} Threads::Threads)
endfunction()

gh_collector_unit(test_collector_queue)
gh_add_test(NAME unit.collector_queue COMMAND test_collector_queue LABELS unit collector)

# The same test under ThreadSanitizer (it replaces any ASan flags: the two cannot mix).
gh_collector_unit(test_collector_queue_tsan)
target_compile_options(test_collector_queue_tsan PRIVATE -fno-sanitize=all -fsanitize=thread -O1 -g)
target_link_options(test_collector_queue_tsan PRIVATE -fno-sanitize=all -fsanitize=thread)
gh_add_test(NAME unit.collector_queue_tsan COMMAND test_collector_queue_tsan LABELS unit collector
            ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1")

# A launch's pointer arguments into page-locked host memory (collector/hostargs.c), on a fake driver.
add_executable(test_hostargs ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_hostargs.c
  ${PROJECT_SOURCE_DIR}/collector/hostargs.c)
target_include_directories(test_hostargs PRIVATE ${PROJECT_SOURCE_DIR} ${GH_CUPTI_INCLUDES})
target_compile_options(test_hostargs PRIVATE -idirafter ${GH_CUPTI_SHIM})
gh_add_test(NAME unit.hostargs COMMAND test_hostargs LABELS unit collector)

# The kernel tracing swap and the launch gate (collector/activity.c) under threads, on a stub CUPTI.
add_executable(test_activity_swap ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_activity_swap.c
  ${PROJECT_SOURCE_DIR}/collector/activity.c)
target_include_directories(test_activity_swap PRIVATE ${PROJECT_SOURCE_DIR} ${GH_CUPTI_INCLUDES})
target_compile_options(test_activity_swap PRIVATE -idirafter ${GH_CUPTI_SHIM})
target_link_libraries(test_activity_swap PRIVATE Threads::Threads)
gh_add_test(NAME unit.activity_swap COMMAND test_activity_swap LABELS unit collector)
add_executable(test_activity_swap_tsan ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_activity_swap.c
  ${PROJECT_SOURCE_DIR}/collector/activity.c)
target_include_directories(test_activity_swap_tsan PRIVATE ${PROJECT_SOURCE_DIR} ${GH_CUPTI_INCLUDES})
target_compile_options(test_activity_swap_tsan PRIVATE -idirafter ${GH_CUPTI_SHIM} -fno-sanitize=all
  -fsanitize=thread -O1 -g)
target_link_options(test_activity_swap_tsan PRIVATE -fno-sanitize=all -fsanitize=thread)
target_link_libraries(test_activity_swap_tsan PRIVATE Threads::Threads)
gh_add_test(NAME unit.activity_swap_tsan COMMAND test_activity_swap_tsan LABELS unit collector
            ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1")

gh_add_test(NAME e2e.t101-collector-preload
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t101-collector-preload.sh LABELS e2e collector)
gh_add_test(NAME e2e.t104-collector-bad-options
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t104-collector-bad-options.sh LABELS e2e collector)
# The fatal-signal test's child: built without sanitizers (their own fault
# handlers would print reports that differ between runs), as the collector is.
add_executable(collector_signal_child ${CMAKE_CURRENT_SOURCE_DIR}/unit/collector_signal_child.c)
set_target_properties(collector_signal_child PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
target_compile_options(collector_signal_child PRIVATE -fno-sanitize=all)
target_link_options(collector_signal_child PRIVATE -fno-sanitize=all)
target_link_libraries(collector_signal_child PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
target_include_directories(collector_signal_child PRIVATE ${PROJECT_SOURCE_DIR})
gh_add_test(NAME e2e.t107-collector-rank
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t107-collector-rank.sh LABELS e2e collector)
# The real collector on a fake driver and CUPTI (one library, SONAME libcuda.so.1):
# its engines, graph path, watchdog and exit without a GPU (t108). Never
# sanitized: the host stands for an uninstrumented program.
# gh_fake_driver(SUFFIX FLAGS...): gh_collector_fake_cuda${SUFFIX} and
# collector_fake_host${SUFFIX}, compiled and linked with FLAGS.
function(gh_fake_driver suffix)
  add_library(gh_collector_fake_cuda${suffix} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unit/collector_fake_cuda.c)
  target_include_directories(gh_collector_fake_cuda${suffix} PRIVATE ${GH_CUPTI_INCLUDES})
  target_compile_options(gh_collector_fake_cuda${suffix} PRIVATE -idirafter ${GH_CUPTI_SHIM} ${ARGN})
  target_link_options(gh_collector_fake_cuda${suffix} PRIVATE ${ARGN} -Wl,-soname,libcuda.so.1)
  target_link_libraries(gh_collector_fake_cuda${suffix} PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(gh_collector_fake_cuda${suffix} PROPERTIES C_VISIBILITY_PRESET hidden)
  add_executable(collector_fake_host${suffix} ${CMAKE_CURRENT_SOURCE_DIR}/unit/collector_fake_host.c)
  target_compile_options(collector_fake_host${suffix} PRIVATE ${ARGN})
  target_link_options(collector_fake_host${suffix} PRIVATE ${ARGN})
  target_link_libraries(collector_fake_host${suffix} PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
endfunction()
gh_fake_driver("" -fno-sanitize=all)
# A stand-in libnvperf_host.so beside the fake CUPTI (the same directory): the
# collector opens it from libcupti's directory on a thread of its own
# (collector/cupti_load.c), and t108 makes its constructor slow.
add_library(gh_fake_nvperf_host SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unit/fake_nvperf.c)
set_target_properties(gh_fake_nvperf_host PROPERTIES OUTPUT_NAME nvperf_host)
target_compile_options(gh_fake_nvperf_host PRIVATE -fno-sanitize=all)
target_link_options(gh_fake_nvperf_host PRIVATE -fno-sanitize=all)
gh_add_test(NAME e2e.t108-collector-engines
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t108-collector-engines.sh LABELS e2e collector
            ENVIRONMENT "FAKE_CUDA=$<TARGET_FILE:gh_collector_fake_cuda>;FAKE_HOST=$<TARGET_FILE:collector_fake_host>")
gh_add_test(NAME e2e.t109-rangeprof-kept
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t109-rangeprof-kept.sh LABELS e2e collector
            ENVIRONMENT "FAKE_CUDA=$<TARGET_FILE:gh_collector_fake_cuda>;FAKE_HOST=$<TARGET_FILE:collector_fake_host>")
gh_add_test(NAME e2e.t110-diag-pmprobe
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t110-diag-pmprobe.sh LABELS e2e collector
            ENVIRONMENT "FAKE_CUDA=$<TARGET_FILE:gh_collector_fake_cuda>;FAKE_HOST=$<TARGET_FILE:collector_fake_host>")
# The same two tests with the collector, the fake driver and its program under
# ThreadSanitizer, then AddressSanitizer with UndefinedBehaviorSanitizer (the
# twins of collector/CMakeLists.txt): a race, a bad access or undefined
# behaviour a run reaches makes it exit non-zero (TSan: 66) with the
# sanitizer's report, which the scripts report as a failed run. Leaks are not
# checked: the fake program and the collector's exit leave memory to the
# process's end on purpose (docs/collector.md "At exit").
foreach(san tsan asan)
  if(NOT TARGET gpuhier-collector-${san})
    continue()
  endif()
  gh_fake_driver(_${san} ${GH_TWIN_FLAGS_${san}} -g)
  foreach(t t108-collector-engines t109-rangeprof-kept)
    string(REGEX REPLACE "-.*" "" short ${t})
    gh_add_test(NAME e2e.${short}-${san}
                COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh LABELS e2e collector ${san}
                ENVIRONMENT "GPUHIER_COLLECTOR=$<TARGET_FILE:gpuhier-collector-${san}>;FAKE_CUDA=$<TARGET_FILE:gh_collector_fake_cuda_${san}>;FAKE_HOST=$<TARGET_FILE:collector_fake_host_${san}>;TSAN_OPTIONS=exitcode=66 halt_on_error=0 second_deadlock_stack=1;ASAN_OPTIONS=detect_leaks=0;UBSAN_OPTIONS=print_stacktrace=1")
  endforeach()
endforeach()
gh_add_test(NAME e2e.t105-collector-signals
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t105-collector-signals.sh LABELS e2e collector)
find_program(GH_PTXAS ptxas HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
gh_add_test(NAME unit.t103-cacheflush-ptx
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t103-cacheflush-ptx.sh LABELS unit collector
            ENVIRONMENT "PTXAS=${GH_PTXAS}")
gh_add_test(NAME boundary.collector-exports
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t102-collector-exports.sh LABELS boundary collector)

# GPU tests: CUDA programs compiled with nvcc, only when it works here
# (not in the sanitizer build: its link flags are not nvcc's, and GPU
# tests do not run there).
include(CheckLanguage)
if(NOT GPUHIER_SANITIZE)
  check_language(CUDA)
endif()
if(CMAKE_CUDA_COMPILER AND NOT GPUHIER_SANITIZE)
  enable_language(CUDA)
  foreach(p multistream sigkill devreset smemfail capture nvtx overlap hostargs)
    add_executable(gh_gpu_${p} ${CMAKE_CURRENT_SOURCE_DIR}/gpu/${p}.cu)
    set_target_properties(gh_gpu_${p} PROPERTIES CUDA_ARCHITECTURES 90 OUTPUT_NAME ${p}
      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu)
    target_compile_options(gh_gpu_${p} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  endforeach()
  # bench/stress (issue 16): the ways a short program ends, and a crash-trace preload
  add_executable(gh_gpu_stress_app ${PROJECT_SOURCE_DIR}/bench/stress/stress_app.cu)
  set_target_properties(gh_gpu_stress_app PROPERTIES CUDA_ARCHITECTURES 90 OUTPUT_NAME stress_app
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu)
  # the same program as a new user may build it: PTX only (the driver compiles it
  # at load time), and against the shared CUDA runtime
  add_executable(gh_gpu_stress_app_jit ${PROJECT_SOURCE_DIR}/bench/stress/stress_app.cu)
  set_target_properties(gh_gpu_stress_app_jit PROPERTIES CUDA_ARCHITECTURES 80-virtual
    OUTPUT_NAME stress_app_jit RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu)
  add_executable(gh_gpu_stress_app_rtshared ${PROJECT_SOURCE_DIR}/bench/stress/stress_app.cu)
  set_target_properties(gh_gpu_stress_app_rtshared PROPERTIES CUDA_ARCHITECTURES 90
    CUDA_RUNTIME_LIBRARY Shared OUTPUT_NAME stress_app_rtshared
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu)
  # bench/sassprobe (issue 17): the SASS-metrics probe's CUDA workload
  add_executable(gh_gpu_sassprobe_cases ${PROJECT_SOURCE_DIR}/bench/sassprobe/cases.cu)
  set_target_properties(gh_gpu_sassprobe_cases PROPERTIES CUDA_ARCHITECTURES 90 OUTPUT_NAME cases
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu)
  target_compile_options(gh_gpu_sassprobe_cases PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  # bench/l2compress (issue 19): plain against compressible memory, for the lrc__ counters
  add_executable(gh_gpu_l2compress ${PROJECT_SOURCE_DIR}/bench/l2compress/l2compress.cu)
  target_link_libraries(gh_gpu_l2compress PRIVATE CUDA::cuda_driver)
  set_target_properties(gh_gpu_l2compress PROPERTIES CUDA_ARCHITECTURES 90 OUTPUT_NAME l2compress
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu)
endif()
if(NOT GPUHIER_SANITIZE)
  add_library(gh_segvtrace SHARED ${PROJECT_SOURCE_DIR}/bench/stress/segvtrace.c)
  set_target_properties(gh_segvtrace PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu
    OUTPUT_NAME gh_segvtrace)
  # bench/sassprobe (issue 17): a bench injection library, linked to CUPTI (not the collector)
  find_library(GH_CUPTI_LIBRARY cupti HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64
    /usr/local/cuda/extras/CUPTI/lib64)
  add_library(gh_sassprobe SHARED ${PROJECT_SOURCE_DIR}/bench/sassprobe/sassprobe.c)
  target_include_directories(gh_sassprobe PRIVATE ${GH_CUPTI_INCLUDES})
  target_link_libraries(gh_sassprobe PRIVATE ${GH_CUPTI_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(gh_sassprobe PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu
    OUTPUT_NAME gh_sassprobe C_VISIBILITY_PRESET hidden
    BUILD_RPATH "/usr/local/cuda/lib64;/usr/local/cuda/extras/CUPTI/lib64;/usr/local/cuda/lib")
  gh_add_test(NAME unit.sassprobe-cpu COMMAND sh ${PROJECT_SOURCE_DIR}/bench/sassprobe/test_cpu.sh
    $<TARGET_FILE:gh_sassprobe> LABELS unit collector)
  # bench/pmprobe (issue 18): CUPTI's PM sampling over a whole run, attributed to kernels
  add_library(gh_pmprobe SHARED ${PROJECT_SOURCE_DIR}/bench/pmprobe/pmprobe.c)
  target_include_directories(gh_pmprobe PRIVATE ${GH_CUPTI_INCLUDES})
  target_compile_options(gh_pmprobe PRIVATE -idirafter ${GH_CUPTI_SHIM})
  target_link_libraries(gh_pmprobe PRIVATE ${GH_CUPTI_LIBRARY} Threads::Threads)
  set_target_properties(gh_pmprobe PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/gpu
    OUTPUT_NAME gh_pmprobe C_VISIBILITY_PRESET hidden
    BUILD_RPATH "/usr/local/cuda/lib64;/usr/local/cuda/extras/CUPTI/lib64;/usr/local/cuda/lib")
  gh_add_test(NAME unit.pmprobe-cpu COMMAND sh ${PROJECT_SOURCE_DIR}/bench/pmprobe/test_cpu.sh
    $<TARGET_FILE:gh_pmprobe> LABELS unit collector)
endif()
gh_add_gpu_test(NAME gpu.t150-collector COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu/t150-collector.sh LABELS collector)
gh_add_gpu_test(NAME gpu.t152-graph-instrument COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu/t152-graph-instrument.sh LABELS collector)
gh_add_gpu_test(NAME gpu.t153-concurrent-kernels COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu/t153-concurrent-kernels.sh LABELS collector)
gh_add_gpu_test(NAME gpu.t180-onepass-groups COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu/t180-onepass-groups.sh LABELS collector)
gh_add_gpu_test(NAME gpu.t151-collector-quick COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu/t151-collector-quick.sh LABELS collector)
gh_add_gpu_test(NAME gpu.t170-ddp COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu/t170-ddp.sh LABELS collector)
gh_add_gpu_test(NAME gpu.sassprobe-cases COMMAND sh ${PROJECT_SOURCE_DIR}/bench/sassprobe/test_gpu.sh LABELS collector)
gh_add_gpu_test(NAME gpu.t160-agreement COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu/t160-agreement.sh LABELS collector agreement)
# Issue 17 point 6: the instrumentation engine's exact counts against ncu's (+-0.5 %), the build as the stage.
gh_add_gpu_test(NAME gpu.t161-inst-agree COMMAND sh -c "test -e /dev/nvidia0 && command -v ncu > /dev/null && exec python3 ${PROJECT_SOURCE_DIR}/bench/agreement/inst_agree.py --stage ${PROJECT_BINARY_DIR} --out ${PROJECT_BINARY_DIR}/inst-agree || (echo 'skipped: no GPU or no ncu' && exit 77)" LABELS collector agreement)
# Issue 18 point 5: the default's spread one-pass groups against ncu on the same group and launch (gates a, b).
gh_add_gpu_test(NAME gpu.t162-spread-agree COMMAND sh -c "test -e /dev/nvidia0 && command -v ncu > /dev/null && exec python3 ${PROJECT_SOURCE_DIR}/bench/agreement/spread_agree.py --stage ${PROJECT_BINARY_DIR} --out ${PROJECT_BINARY_DIR}/spread-agree || (echo 'skipped: no GPU or no ncu' && exit 77)" LABELS collector agreement)

# The launch-path micro-benchmark (bench/collector_push_bench.c): a quick
# run in CI proves it builds and that the batched writer drops nothing.
add_executable(collector_push_bench ${PROJECT_SOURCE_DIR}/bench/collector_push_bench.c
  ${GH_COLLECTOR_TEST_SOURCES} ${PROJECT_SOURCE_DIR}/schema/store.c ${PROJECT_SOURCE_DIR}/schema/store_inst.c
  ${PROJECT_BINARY_DIR}/schema/schema_sql.c)
add_dependencies(collector_push_bench gh_store)
target_include_directories(collector_push_bench PRIVATE ${PROJECT_SOURCE_DIR} ${GH_CUPTI_INCLUDES}
  ${LIBIBERTY_INCLUDE_DIR})
target_compile_options(collector_push_bench PRIVATE -idirafter ${GH_CUPTI_SHIM})
target_compile_definitions(collector_push_bench PRIVATE GPUHIER_VERSION="${PROJECT_VERSION}")
target_link_libraries(collector_push_bench PRIVATE SQLite::SQLite3 ${LIBIBERTY_LIBRARY} Threads::Threads)
gh_add_test(NAME unit.collector_push_bench COMMAND collector_push_bench 20000 5 LABELS unit collector)

# Re-scoring recorded reports after a change to the occupancy calculator
# (bench/occupancy_recompute.c); the test runs it on a synthetic report.
add_executable(occupancy_recompute ${PROJECT_SOURCE_DIR}/bench/occupancy_recompute.c
  ${PROJECT_SOURCE_DIR}/collector/occupancy.c)
target_include_directories(occupancy_recompute PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(occupancy_recompute PRIVATE SQLite::SQLite3)
gh_add_test(NAME unit.occupancy_recompute
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_occupancy_recompute.sh $<TARGET_FILE:occupancy_recompute>
  LABELS unit collector)

# The writer when its report fails for real (tests/e2e/t106-collector-writer-fails.sh):
# writer_host runs the real writer as a host program would. Never
# sanitized, like the collector: it stands for an uninstrumented program,
# and one case preloads another allocator into it (ASan must come first).
# The writer's failure path runs sanitized in unit.collector_queue.
add_executable(writer_host ${CMAKE_CURRENT_SOURCE_DIR}/unit/writer_host.c ${GH_COLLECTOR_TEST_SOURCES}
  ${PROJECT_SOURCE_DIR}/schema/store.c ${PROJECT_SOURCE_DIR}/schema/store_inst.c ${PROJECT_BINARY_DIR}/schema/schema_sql.c)
add_dependencies(writer_host gh_store)
target_include_directories(writer_host PRIVATE ${PROJECT_SOURCE_DIR} ${GH_CUPTI_INCLUDES} ${LIBIBERTY_INCLUDE_DIR})
target_compile_options(writer_host PRIVATE -idirafter ${GH_CUPTI_SHIM})
target_compile_definitions(writer_host PRIVATE GPUHIER_VERSION="${PROJECT_VERSION}")
target_link_libraries(writer_host PRIVATE SQLite::SQLite3 ${LIBIBERTY_LIBRARY} Threads::Threads)
if(GPUHIER_SANITIZE)
  target_compile_options(writer_host PRIVATE -fno-sanitize=all)
  target_link_options(writer_host PRIVATE -fno-sanitize=all)
endif()
foreach(c ulimit fsize fsize-freed readonly removed fd2 chdir allocator py-fsize py-fd2 py-chdir py-allocator)
  gh_add_test(NAME e2e.t106-writer-fails-${c}
              COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t106-collector-writer-fails.sh ${c}
              LABELS e2e collector ENVIRONMENT "WRITER_HOST=$<TARGET_FILE:writer_host>")
endforeach()
