# Tests of the libvmaf C API (included from CMakeLists.txt when VMAFX_BUILD_TESTS is on).
# - capi_errors: tests/capi/test_capi.c, compiled as C against libvmaf.so: every call, its error
#   codes on bad arguments, pictures, models, pooling, output (no fixture needed).
# - capi_vs_cli: the same program scores fixtures through the C API (threads, subsampling, 8 and
#   12 bits, 4:2:0 and 4:4:4); every per-frame and pooled value must equal the CLI's bit for bit.
# - capi_install: cmake --install into a temporary prefix, examples/score.c built with pkg-config
#   only and run (its pooled VMAF against the golden value), and a find_package(vmafx) consumer.
add_executable(vmafx_capi_test ${CMAKE_SOURCE_DIR}/tests/capi/test_capi.c)
target_link_libraries(vmafx_capi_test PRIVATE vmafx_libvmaf)
# Linked by the C++ driver so that a sanitized build links the sanitizer runtimes first.
set_target_properties(vmafx_capi_test PROPERTIES LINKER_LANGUAGE CXX C_STANDARD 11)
if(VMAFX_SANITIZE)
  target_compile_options(vmafx_capi_test PRIVATE -fsanitize=${VMAFX_SANITIZE} -fno-omit-frame-pointer)
endif()
add_test(NAME capi_errors COMMAND vmafx_capi_test errors ${CMAKE_SOURCE_DIR}/models/vmaf_v0.6.1.json)
set(_capi_sanitized OFF)
if(VMAFX_SANITIZE OR VMAFX_FUZZ)
  set(_capi_sanitized ON)
endif()
add_test(NAME capi_vs_cli
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/capi/check_capi.py
                 $<TARGET_FILE:vmafx_capi_test> $<TARGET_FILE:vmafx> $<$<BOOL:${_capi_sanitized}>:sanitized>)
add_test(NAME capi_install
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/capi/check_install.py ${CMAKE_BINARY_DIR}
                 ${CMAKE_SOURCE_DIR} ${CMAKE_COMMAND} ${_capi_sanitized})
set_tests_properties(capi_vs_cli capi_install PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
# With the CUDA backend: libvmaf_cuda.h through C code (tests/capi/test_capi_cuda.c). Both tests
# exit 77 (skipped) where CUDA is unusable (a build machine without a GPU); on a GPU machine
# `scripts/device_check.sh capi` runs them from the bundle.
# - capi_cuda_errors: the CUDA calls' error codes, and a device picture scored.
# - capi_cuda_vs_cli: host pictures after vmaf_cuda_import_state and DEVICE preallocated
#   pictures, every value against the CLI's --backend cuda and CPU runs, bit for bit.
if(VMAFX_CUDA)
  add_executable(vmafx_capi_cuda_test ${CMAKE_SOURCE_DIR}/tests/capi/test_capi_cuda.c)
  target_link_libraries(vmafx_capi_cuda_test PRIVATE vmafx_libvmaf CUDA::cudart_static)
  set_target_properties(vmafx_capi_cuda_test PROPERTIES LINKER_LANGUAGE CXX C_STANDARD 11)
  add_test(NAME capi_cuda_errors COMMAND vmafx_capi_cuda_test errors)
  add_test(NAME capi_cuda_vs_cli
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/capi/check_capi_cuda.py
                   $<TARGET_FILE:vmafx_capi_cuda_test> $<TARGET_FILE:vmafx>)
  set_tests_properties(capi_cuda_errors capi_cuda_vs_cli PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
