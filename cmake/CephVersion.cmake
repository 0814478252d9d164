# The plugin must report exactly the version of the Ceph daemons that load it (they refuse any
# other with -EXDEV), and our declarations of the ABI hold only for the builds whose layouts were
# checked (doc/dev/ceph-abi.md says how: DWARF from ceph-base-dbg, vtable relocations, nm -D).
# A version not on this list may move the CrushWrapper offset the plugin relies on, so configure
# refuses it rather than build a plugin that would corrupt a monitor's CRUSH map.
set(ERAILS_CEPH_VERSIONS_CHECKED 16.2.15)

find_program(CEPH_EXECUTABLE ceph)
if(NOT CEPH_EXECUTABLE)
  message(FATAL_ERROR "erails: the `ceph` command was not found. Install Ceph 16.2 from Debian "
                      "(scripts/install-deps.sh), or configure with -DERAILS_WITH_CEPH=OFF.")
endif()
execute_process(COMMAND ${CEPH_EXECUTABLE} --version OUTPUT_VARIABLE ceph_version_output
                RESULT_VARIABLE ceph_version_result OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "ceph version ([0-9]+\\.[0-9]+\\.[0-9]+)" _ "${ceph_version_output}")
set(detected "${CMAKE_MATCH_1}")
if(NOT ceph_version_result EQUAL 0 OR detected STREQUAL "")
  message(FATAL_ERROR "erails: could not read a version from `ceph --version`: '${ceph_version_output}'")
endif()
if(NOT detected IN_LIST ERAILS_CEPH_VERSIONS_CHECKED)
  list(JOIN ERAILS_CEPH_VERSIONS_CHECKED ", " checked)
  message(FATAL_ERROR "erails: found Ceph ${detected}, but the Ceph ABI declared in src/ceph_abi "
                      "was checked only against Ceph ${checked}; refusing to build a plugin the "
                      "daemons would load with unchecked layouts.")
endif()
set(ERAILS_CEPH_VERSION "${detected}" CACHE INTERNAL "Ceph version the plugin reports")
message(STATUS "erails: building the plugin for Ceph ${ERAILS_CEPH_VERSION}")
