# The Python package vmafx (python/vmafx/, issue 27): the pure-Python API (python/vmafx/*.py) over
# the native module vmafx._vmafx (src/python/module.cpp, pybind11), which calls the one scoring
# core. Built into ${CMAKE_BINARY_DIR}/python/vmafx (PYTHONPATH=build/python imports it; the
# package's setup.py and `cmake --install` install it). AUTO builds it where pybind11 (Debian:
# pybind11-dev, python3-pybind11) and the headers of VMAFX_PYTHON_EXECUTABLE are found; never in
# the sanitized or fuzzing builds (a sanitized module cannot load into an uninstrumented Python).
set(VMAFX_PYTHON AUTO CACHE STRING "Build the Python package vmafx: AUTO (where pybind11 is found), ON, OFF")
set_property(CACHE VMAFX_PYTHON PROPERTY STRINGS AUTO ON OFF)
# Debian's own Python 3: the one that sees Debian's numpy, pandas, matplotlib, dask (the first
# python3 on PATH may be another build that cannot).
set(VMAFX_PYTHON_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the package is built for and tested with")
set(VMAFX_HAVE_PYTHON OFF)
if(NOT VMAFX_PYTHON STREQUAL "OFF" AND NOT VMAFX_SANITIZE AND NOT VMAFX_FUZZ)
  execute_process(
    COMMAND ${VMAFX_PYTHON_EXECUTABLE} -c
            "import sysconfig, pybind11; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX')); print(pybind11.get_include())"
    OUTPUT_VARIABLE vmafx_py_out RESULT_VARIABLE vmafx_py_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(vmafx_py_rc EQUAL 0)
    string(REPLACE "\n" ";" vmafx_py_out "${vmafx_py_out}")
    list(GET vmafx_py_out 0 VMAFX_PYTHON_INCLUDE)
    list(GET vmafx_py_out 1 VMAFX_PYTHON_EXT_SUFFIX)
    list(GET vmafx_py_out 2 VMAFX_PYBIND11_INCLUDE)
    if(EXISTS ${VMAFX_PYTHON_INCLUDE}/Python.h AND EXISTS ${VMAFX_PYBIND11_INCLUDE}/pybind11/pybind11.h)
      set(VMAFX_HAVE_PYTHON ON)
    endif()
  endif()
  if(VMAFX_PYTHON STREQUAL "ON" AND NOT VMAFX_HAVE_PYTHON)
    message(FATAL_ERROR "VMAFX_PYTHON=ON needs ${VMAFX_PYTHON_EXECUTABLE} with its headers and pybind11 "
                        "(Debian: python3-dev, pybind11-dev, python3-pybind11)")
  endif()
endif()
message(STATUS "vmafx: Python package (${VMAFX_PYTHON_EXECUTABLE}): ${VMAFX_HAVE_PYTHON}")

# `cmake --install`: the package into VMAFX_PYTHON_INSTALL_DIR under the prefix (by default
# lib/python3.X/dist-packages, which Debian's Python searches under /usr/local; for another
# prefix, put that folder on PYTHONPATH). The command's --html looks for it there too.
execute_process(COMMAND ${VMAFX_PYTHON_EXECUTABLE} -c
                        "import sys; print('lib/python%d.%d/dist-packages' % sys.version_info[:2])"
                OUTPUT_VARIABLE vmafx_py_site OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT vmafx_py_site)
  set(vmafx_py_site lib/python3/dist-packages)
endif()
set(VMAFX_PYTHON_INSTALL_DIR ${vmafx_py_site} CACHE STRING "Where `cmake --install` puts the Python package (relative to the prefix)")

if(VMAFX_HAVE_PYTHON)
  set(VMAFX_PYTHON_DIR ${CMAKE_BINARY_DIR}/python/vmafx)
  add_library(vmafx_python MODULE src/python/module.cpp)
  target_include_directories(vmafx_python SYSTEM PRIVATE ${VMAFX_PYTHON_INCLUDE} ${VMAFX_PYBIND11_INCLUDE})
  target_link_libraries(vmafx_python PRIVATE vmafx_core)
  set_target_properties(vmafx_python PROPERTIES OUTPUT_NAME _vmafx PREFIX "" SUFFIX ${VMAFX_PYTHON_EXT_SUFFIX}
                        LIBRARY_OUTPUT_DIRECTORY ${VMAFX_PYTHON_DIR}
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  # The package's Python files beside the module, copied at every build where they changed.
  file(GLOB VMAFX_PYTHON_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/vmafx/*.py)
  set(vmafx_py_copies "")
  foreach(src ${VMAFX_PYTHON_SOURCES})
    get_filename_component(name ${src} NAME)
    add_custom_command(OUTPUT ${VMAFX_PYTHON_DIR}/${name}
                       COMMAND ${CMAKE_COMMAND} -E copy_if_different ${src} ${VMAFX_PYTHON_DIR}/${name}
                       DEPENDS ${src} COMMENT "Python package: ${name}")
    list(APPEND vmafx_py_copies ${VMAFX_PYTHON_DIR}/${name})
  endforeach()
  add_custom_target(vmafx_python_files ALL DEPENDS ${vmafx_py_copies})
  add_dependencies(vmafx_python vmafx_python_files)
  install(TARGETS vmafx_python LIBRARY DESTINATION ${VMAFX_PYTHON_INSTALL_DIR}/vmafx)
  install(FILES ${VMAFX_PYTHON_SOURCES} DESTINATION ${VMAFX_PYTHON_INSTALL_DIR}/vmafx)
  # The vmafx-batch command (python/vmafx/batch.py main()): build/vmafx-batch, and bin/ installed.
  include(GNUInstallDirs)
  configure_file(${CMAKE_SOURCE_DIR}/tools/vmafx-batch.in ${CMAKE_BINARY_DIR}/vmafx-batch @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/vmafx-batch DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(VMAFX_BUILD_TESTS)
    # tests/python (pytest, Debian's Python): the API against the CLI's bytes and values.
    add_test(NAME python
             COMMAND ${VMAFX_PYTHON_EXECUTABLE} -B -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/tests/python)
    set_tests_properties(python PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
                         ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;VMAFX_CLI_BIN=$<TARGET_FILE:vmafx>;VMAFX_BUILD_DIR=${CMAKE_BINARY_DIR}")
  endif()
endif()
