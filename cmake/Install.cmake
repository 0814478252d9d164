# Where `cmake --install` puts each part. Tools and docs follow the install prefix; the plugin and
# the mgr module go where Ceph itself looks, whatever the prefix, since a daemon loads only from
# its own directories. Those are Ceph's compiled-in defaults, read from the installed Ceph
# (`-c /dev/null` so that a local ceph.conf cannot move them); without Ceph, the usual layout.
include(GNUInstallDirs)

function(erails_ceph_default option fallback out)
  set(value "${fallback}")
  find_program(CEPH_CONF_EXECUTABLE ceph-conf)
  if(CEPH_CONF_EXECUTABLE)
    execute_process(COMMAND ${CEPH_CONF_EXECUTABLE} -c /dev/null --show-config-value ${option}
                    OUTPUT_VARIABLE shown RESULT_VARIABLE result OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET)
    if(result EQUAL 0 AND IS_ABSOLUTE "${shown}")
      set(value "${shown}")
    endif()
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

erails_ceph_default(erasure_code_dir ${CMAKE_INSTALL_FULL_LIBDIR}/ceph/erasure-code ec_dir)
erails_ceph_default(mgr_module_path ${CMAKE_INSTALL_FULL_DATADIR}/ceph/mgr mgr_dir)
set(ERAILS_INSTALL_ERASURE_CODE_DIR "${ec_dir}" CACHE PATH
    "Where libec_erails.so is installed: the erasure_code_dir of the Ceph daemons that load it")
set(ERAILS_INSTALL_MGR_MODULE_DIR "${mgr_dir}" CACHE PATH
    "Where the rails and qbox mgr modules are installed: the mgr_module_path of the ceph-mgr that runs them")
