# One test naming scheme for the whole tree: every test is named "<component>.<name>" and carries
# the label <component>, so `ctest -R '^qbox\.'` (or `ctest -L qbox`) runs one component's tests.
# Components: common, rails, devices, qbox, sim, ec (the erasure-code plugin), mgr, tools, cluster,
# qa, package (the Debian package); fuzz targets are "<component>.fuzz_<parser>" and carry the
# label fuzz as well.
include(GoogleTest)

# erails_gtest(COMPONENT TARGET SOURCES ... LIBS ... [DEFINITIONS ...]); nothing without
# BUILD_TESTING, which is when GTest may be missing. The other two only register a test, which
# CMake ignores when testing is off.
function(erails_gtest component target)
  if(NOT BUILD_TESTING)
    return()
  endif()
  cmake_parse_arguments(arg "" "" "SOURCES;LIBS;DEFINITIONS" ${ARGN})
  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE ${arg_LIBS} GTest::gtest_main)
  if(arg_DEFINITIONS)
    target_compile_definitions(${target} PRIVATE ${arg_DEFINITIONS})
  endif()
  gtest_discover_tests(${target} TEST_PREFIX ${component}. DISCOVERY_TIMEOUT 30
                       PROPERTIES LABELS ${component})
endfunction()

# erails_pytest(COMPONENT NAME DIRECTORY [PYTEST_ARGS ...]): Debian's python3, because
# python3-rados and python3-pytest are built for it, with -B so that the source tree gets no
# bytecode. Imports resolve through the repository's pytest.ini (pythonpath), not through path
# edits in the tests. A suite in which a test skipped and none failed exits 77 (the repository's
# conftest.py), which ctest counts as skipped, not passed.
function(erails_pytest component name directory)
  add_test(NAME ${component}.${name}
           COMMAND ${SYSTEM_PYTHON3} -B -m pytest -q -p no:cacheprovider -c ${PROJECT_SOURCE_DIR}/pytest.ini
                   --rootdir=${PROJECT_SOURCE_DIR} --skipped-exit-code=77 ${ARGN} ${directory})
  set_tests_properties(${component}.${name} PROPERTIES LABELS ${component} SKIP_RETURN_CODE 77)
endfunction()

# erails_test(COMPONENT NAME COMMAND ...): any other program as a test.
function(erails_test component name)
  add_test(NAME ${component}.${name} COMMAND ${ARGN})
  set_tests_properties(${component}.${name} PROPERTIES LABELS ${component})
endfunction()
