# erails_add_fuzzer(COMPONENT PARSER SOURCE LIBRARY SEEDS): a libFuzzer target for a parser of
# outside input, run as the test "<component>.fuzz_<parser>" for ERAILS_FUZZ_SECONDS. libFuzzer adds
# the inputs it finds to the first corpus directory it is given, so that one is a scratch directory
# in the build tree and the committed seeds stay unchanged.
function(erails_add_fuzzer component parser source library seeds)
  set(name fuzz_${component}_${parser})
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ${library})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  set(scratch ${CMAKE_CURRENT_BINARY_DIR}/${name}_scratch)
  file(MAKE_DIRECTORY ${scratch})
  add_test(NAME ${component}.fuzz_${parser}
           COMMAND ${name} -max_total_time=${ERAILS_FUZZ_SECONDS} ${scratch} ${seeds})
  set_tests_properties(${component}.fuzz_${parser} PROPERTIES LABELS "${component};fuzz")
endfunction()
