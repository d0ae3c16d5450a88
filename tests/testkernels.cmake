# testkernels: the manifest is valid, the programs are built and start, and (GPU) every case passes
# its own CPU-reference check. The Nsight Compute confirmation is bench/ncu_confirm.sh (device only).
set(_tk_src ${PROJECT_SOURCE_DIR}/testkernels)
set(_tk_ref ${PROJECT_SOURCE_DIR}/../shared/reference/gh100-metrics.txt)
set(_tk_metrics "")
if(EXISTS ${_tk_ref})
  set(_tk_metrics --metrics ${_tk_ref})
endif()
find_program(GH_PYTHON3 python3)

if(GH_PYTHON3)
  if(TARGET testkernels)
    # Every case's binary is one CMake builds, and it is there.
    gh_add_test(NAME testkernels.manifest
      COMMAND ${GH_PYTHON3} ${_tk_src}/check_manifest.py ${_tk_src}/manifest.json
              --binaries ${PROJECT_BINARY_DIR}/testkernels/binaries.txt
              --bindir ${PROJECT_BINARY_DIR}/testkernels ${_tk_metrics}
      LABELS testkernels)
    gh_add_test(NAME testkernels.manifest.rejects
      COMMAND ${GH_PYTHON3} ${_tk_src}/check_manifest.py ${_tk_src}/bad_manifest.json
              --binaries ${PROJECT_BINARY_DIR}/testkernels/binaries.txt
      LABELS testkernels)
    set_tests_properties(testkernels.manifest.rejects PROPERTIES
      PASS_REGULAR_EXPRESSION "manifest: 3 cases, 4 rules with a positive case, 24 problems")
    # The programs start on any machine (no CUDA call before the arguments are read).
    gh_add_test(NAME testkernels.usage
      COMMAND sh ${_tk_src}/run_cases.sh --usage ${PROJECT_BINARY_DIR}
      LABELS testkernels)
    gh_add_gpu_test(NAME testkernels.cases
      COMMAND sh ${_tk_src}/run_cases.sh ${PROJECT_BINARY_DIR}
      LABELS testkernels)
  else()
    gh_add_test(NAME testkernels.manifest
      COMMAND ${GH_PYTHON3} ${_tk_src}/check_manifest.py ${_tk_src}/manifest.json ${_tk_metrics}
      LABELS testkernels)
    gh_add_test(NAME testkernels.manifest.rejects
      COMMAND ${GH_PYTHON3} ${_tk_src}/check_manifest.py ${_tk_src}/bad_manifest.json
      LABELS testkernels)
    set_tests_properties(testkernels.manifest.rejects PROPERTIES
      PASS_REGULAR_EXPRESSION "manifest: 3 cases, 4 rules with a positive case, 23 problems")
  endif()
endif()
