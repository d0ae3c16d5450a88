# TUI tests: scripted keystrokes with screens compared against expected
# text (tests/tui/<case>/), and the t3xx end-to-end scripts.
foreach(c nav sort-filter drill help export resize hostile empty trace raw rawhost ascii dump copies colours profiles hscroll reflow nvtx diff diff-map source)
  gh_add_test(NAME tui.${c} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tui/screens.sh ${c} LABELS tui)
endforeach()
file(GLOB TUI_E2E ${CMAKE_CURRENT_SOURCE_DIR}/e2e/t3*.sh)
foreach(t ${TUI_E2E})
  get_filename_component(n ${t} NAME_WE)
  gh_add_test(NAME e2e.${n} COMMAND sh ${t} LABELS tui e2e)
endforeach()
add_executable(test_tui ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_tui.c)
target_link_libraries(test_tui PRIVATE gh_tui)
gh_add_test(NAME unit.tui COMMAND test_tui LABELS unit tui)
# NVTX ranges from PyTorch through `gpuhier run`, the nvtx view and the
# range filter (exits 77 without a GPU or torch).
gh_add_gpu_test(NAME gpu.t175-nvtx-torch COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu/t175-nvtx-torch.sh LABELS tui)
