gh_add_test(NAME boundary.includes COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/boundary/includes.sh LABELS boundary)
gh_add_test(NAME boundary.binaries COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/boundary/binaries.sh LABELS boundary)
gh_add_test(NAME boundary.format COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/boundary/format.sh LABELS boundary format)
gh_add_test(NAME boundary.shipped COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/boundary/shipped.sh LABELS boundary)
