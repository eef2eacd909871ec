# `cmake --install BUILD --prefix P`: the CLI, the C++ library (libvmafx.a, headers under
# include/vmafx/), libvmaf.so.3 with libvmaf's headers (include/libvmaf/) and libvmaf.pc, and
# the CMake package vmafx (find_package(vmafx): vmafx::vmafx, vmafx::libvmaf). The models are
# embedded in both libraries. Every file is found relative to the prefix, so it can be moved.
include(GNUInstallDirs)

install(TARGETS vmafx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS vmafx_core ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS vmafx_libvmaf LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Unspecified)
install(FILES ${CMAKE_SOURCE_DIR}/include/libvmaf/libvmaf.h ${CMAKE_SOURCE_DIR}/include/libvmaf/model.h
              ${CMAKE_SOURCE_DIR}/include/libvmaf/picture.h ${CMAKE_SOURCE_DIR}/include/libvmaf/feature.h
              ${CMAKE_SOURCE_DIR}/include/libvmaf/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/libvmaf)
if(VMAFX_CUDA AND EXISTS ${CMAKE_SOURCE_DIR}/include/libvmaf/libvmaf_cuda.h)
  install(FILES ${CMAKE_SOURCE_DIR}/include/libvmaf/libvmaf_cuda.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/libvmaf)
endif()
# The C++ library's headers keep src/'s layout: #include "engine/engine.hpp" with -I include/vmafx.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vmafx
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.def" PATTERN "capi" EXCLUDE PATTERN "example" EXCLUDE)

# libvmaf.pc, relative to its own folder (${pcfiledir}) so that the prefix may move.
file(RELATIVE_PATH VMAFX_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
string(REGEX REPLACE "/$" "" VMAFX_PC_UP "${VMAFX_PC_UP}")
get_filename_component(VMAFX_SVM_DIR ${LIBSVM_LIBRARY} DIRECTORY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/libvmaf.pc.in ${CMAKE_BINARY_DIR}/libvmaf.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/libvmaf.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The CMake package.
set(VMAFX_CONFIG_CUDA ${VMAFX_CUDA})
file(RELATIVE_PATH VMAFX_CMAKE_UP "/p/${CMAKE_INSTALL_LIBDIR}/cmake/vmafx" "/p")
configure_file(${CMAKE_SOURCE_DIR}/cmake/vmafxConfig.cmake.in ${CMAKE_BINARY_DIR}/vmafxConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/vmafxConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/vmafxConfig.cmake ${CMAKE_BINARY_DIR}/vmafxConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vmafx)
