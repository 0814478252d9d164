# erails_add_fuzzer(NAME SOURCE LIBRARY SEEDS): a libFuzzer target for a parser of outside input,
# run as a test for ERAILS_FUZZ_SECONDS. libFuzzer adds the inputs it finds to the first corpus
# directory it is given, so that one is a scratch directory in the build tree and the committed
# seeds stay unchanged.
function(erails_add_fuzzer name source library seeds)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ${library})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  set(scratch ${CMAKE_CURRENT_BINARY_DIR}/${name}_corpus)
  file(MAKE_DIRECTORY ${scratch})
  add_test(NAME ${name} COMMAND ${name} -max_total_time=${ERAILS_FUZZ_SECONDS} ${scratch} ${seeds})
endfunction()
