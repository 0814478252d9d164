# The plugin must report exactly the version of the Ceph daemons that load it (they refuse any
# other with -EXDEV), and our declarations of the ABI hold only for the builds whose layouts were
# checked (doc/dev/ceph-abi.md says how: DWARF from ceph-base-dbg, vtable relocations, nm -D).
# A version not on this list may move the CrushWrapper offset the plugin relies on, so configure
# refuses it rather than build a plugin that would corrupt a monitor's CRUSH map.
set(ERAILS_CEPH_VERSIONS_CHECKED 16.2.15)
# The ceph-osd build whose layouts and admin socket were measured (doc/dev/ceph-abi.md), by GNU
# build-id: Debian's 16.2.15+ds-0+deb12u2. The libraries that act inside ceph-osd allow-list it.
set(ERAILS_CEPH_OSD_BUILD_ID fb66b3cec5f264a2f863d96fa875eb4ae39bb0bf)

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

# The Debian package may be installed only next to the Ceph packages this configure checked: their
# exact Debian versions (a rebuild of the same upstream release is a different binary), written
# as dpkg substitution variables for debian/rules. Written only where all of them are installed.
set(ceph_depends "")
find_program(DPKG_QUERY_EXECUTABLE dpkg-query)
foreach(package ceph-base ceph-mon ceph-osd ceph-mgr)
  if(NOT DPKG_QUERY_EXECUTABLE)
    break()
  endif()
  execute_process(COMMAND ${DPKG_QUERY_EXECUTABLE} -W -f=\${db:Status-Abbrev}\${Version} ${package}
                  OUTPUT_VARIABLE installed RESULT_VARIABLE result ERROR_QUIET)
  if(NOT result EQUAL 0 OR NOT installed MATCHES "^ii +(.+)$")
    set(ceph_depends "")
    break()
  endif()
  set(debian_version "${CMAKE_MATCH_1}")
  # [epoch:]upstream[+repack or ~pre][-revision]: Debian's 16.2.15+ds-0+deb12u2 is Ceph 16.2.15.
  if(NOT debian_version MATCHES "^([0-9]+:)?([0-9]+\\.[0-9]+\\.[0-9]+)([+~][^-]*)?(-.*)?$"
     OR NOT CMAKE_MATCH_2 STREQUAL ERAILS_CEPH_VERSION)
    message(FATAL_ERROR "erails: ${package} ${debian_version} is installed, but `ceph --version` "
                        "says ${ERAILS_CEPH_VERSION}; install one Ceph release throughout")
  endif()
  list(APPEND ceph_depends "${package} (= ${debian_version})")
endforeach()
if(ceph_depends)
  list(JOIN ceph_depends ", " ceph_depends)
  file(WRITE ${CMAKE_BINARY_DIR}/ceph-depends.substvars "erails:CephDepends=${ceph_depends}\n")
else()
  file(REMOVE ${CMAKE_BINARY_DIR}/ceph-depends.substvars)
endif()
