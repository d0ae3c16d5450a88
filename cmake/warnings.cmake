# Warnings for every C target; -Werror when GPUHIER_WERROR is on (CI).
add_compile_options(
  "$<$<COMPILE_LANGUAGE:C>:-Wall;-Wextra;-Wshadow;-Wformat=2;-Wno-missing-field-initializers;-Wno-unused-parameter>")
if(GPUHIER_WERROR)
  add_compile_options("$<$<COMPILE_LANGUAGE:C>:-Werror>")
endif()
if(GPUHIER_SANITIZE)
  # The collector opts out (it must load into uninstrumented programs):
  # it removes these flags with gh_no_sanitize(target).
  set(GH_SAN_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_compile_options("$<$<COMPILE_LANGUAGE:C>:${GH_SAN_FLAGS}>")
  add_link_options(-fsanitize=address,undefined)
endif()
if(GPUHIER_FUZZ)
  # Coverage for libFuzzer in every target the fuzz target links; the
  # target itself adds -fsanitize=fuzzer (tests/store.cmake).
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GPUHIER_FUZZ needs clang (-DCMAKE_C_COMPILER=clang)")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C>:-fsanitize=fuzzer-no-link>")
endif()
