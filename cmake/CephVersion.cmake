# The plugin must report exactly the version of the Ceph daemons that load it (they refuse any
# other with -EXDEV), and our declarations of the ABI hold only for the builds whose layouts were
# checked (doc/dev/ceph-abi.md says how: DWARF, vtable relocations, nm -D, disassembly). Each
# checked build has one description, src/ceph_abi/builds/<version>/build.conf; configure reads the
# one of the version it finds and refuses a version without one, since another build may move the
# CrushWrapper offset the plugin relies on and the plugin would then corrupt a monitor's CRUSH map.
get_filename_component(ERAILS_CEPH_BUILDS_DIR ${CMAKE_CURRENT_LIST_DIR}/../src/ceph_abi/builds ABSOLUTE)
file(GLOB checked_build_dirs LIST_DIRECTORIES true RELATIVE ${ERAILS_CEPH_BUILDS_DIR}
     ${ERAILS_CEPH_BUILDS_DIR}/*)
set(ERAILS_CEPH_VERSIONS_CHECKED "")
foreach(candidate IN LISTS checked_build_dirs)
  if(EXISTS ${ERAILS_CEPH_BUILDS_DIR}/${candidate}/build.conf)
    list(APPEND ERAILS_CEPH_VERSIONS_CHECKED ${candidate})
  endif()
endforeach()

find_program(CEPH_EXECUTABLE ceph)
if(NOT CEPH_EXECUTABLE)
  message(FATAL_ERROR "erails: the `ceph` command was not found. Install Ceph from Debian "
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
message(STATUS "erails: building for Ceph ${ERAILS_CEPH_VERSION}")

# build.conf: "key = value" lines and # comments. Each key becomes ERAILS_CEPH_BUILD_<KEY>.
set(ERAILS_CEPH_BUILD_DIR ${ERAILS_CEPH_BUILDS_DIR}/${ERAILS_CEPH_VERSION})
set(description ${ERAILS_CEPH_BUILD_DIR}/build.conf)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${description})
file(STRINGS ${description} description_lines)
foreach(line IN LISTS description_lines)
  if(line MATCHES "^[ \t]*(#.*)?$")
    continue()
  endif()
  if(NOT line MATCHES "^([a-z_]+) *= *(.*[^ ]) *$")
    message(FATAL_ERROR "erails: ${description}: '${line}' is not 'key = value'")
  endif()
  string(TOUPPER "${CMAKE_MATCH_1}" key)
  set(ERAILS_CEPH_BUILD_${key} "${CMAKE_MATCH_2}")
endforeach()
foreach(key VERSION DEBIAN_RELEASE OSD_BUILD_ID CHECKED_PARTS CRUSH_MAP_OFFSET CRUSH_RULE_HAS_RULESET
            MGR_RUNS_PYTHON_MODULES)
  if(NOT DEFINED ERAILS_CEPH_BUILD_${key})
    string(TOLOWER ${key} name)
    message(FATAL_ERROR "erails: ${description} has no '${name}'")
  endif()
endforeach()
if(NOT ERAILS_CEPH_BUILD_VERSION STREQUAL ERAILS_CEPH_VERSION)
  message(FATAL_ERROR "erails: ${description} describes Ceph ${ERAILS_CEPH_BUILD_VERSION}, not the "
                      "${ERAILS_CEPH_VERSION} its folder is named after")
endif()
foreach(key CRUSH_RULE_HAS_RULESET MGR_RUNS_PYTHON_MODULES)
  if(NOT ERAILS_CEPH_BUILD_${key} MATCHES "^(true|false)$")
    string(TOLOWER ${key} name)
    message(FATAL_ERROR "erails: ${description}: ${name} is '${ERAILS_CEPH_BUILD_${key}}'; accepted: true or false")
  endif()
endforeach()
separate_arguments(ERAILS_CEPH_BUILD_CHECKED_PARTS UNIX_COMMAND "${ERAILS_CEPH_BUILD_CHECKED_PARTS}")
foreach(part IN LISTS ERAILS_CEPH_BUILD_CHECKED_PARTS)
  if(NOT part MATCHES "^(plugin|rails_lease|qbox_scheduler|device_emulator)$")
    message(FATAL_ERROR "erails: ${description}: checked_parts names '${part}'; the parts are plugin, "
                        "rails_lease, qbox_scheduler and device_emulator")
  endif()
endforeach()
if(qbox_scheduler IN_LIST ERAILS_CEPH_BUILD_CHECKED_PARTS AND NOT DEFINED ERAILS_CEPH_BUILD_MAKE_SCHEDULER_FIRST_BYTES)
  message(FATAL_ERROR "erails: ${description} names qbox_scheduler checked but has no "
                      "'make_scheduler_first_bytes'")
endif()
if(NOT plugin IN_LIST ERAILS_CEPH_BUILD_CHECKED_PARTS)
  message(FATAL_ERROR "erails: ${description}: checked_parts must name plugin: nothing of erails "
                      "runs on a build whose plugin ABI was not checked")
endif()

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
