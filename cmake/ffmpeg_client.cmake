# --- FFmpeg as a client of the libvmaf C API (issue 12) ------------------------------------------
# FFmpeg 5.1 from Debian's source package, configured minimally against a libvmaf-compatible
# install and built once per build folder (scripts/build_ffmpeg_client.sh, in
# build/ffmpeg-client; rebuilt only when the source, the installed headers or libvmaf.pc change);
# its libvmaf filter must then print upstream's values (tests/ffmpeg_client.py). The install is
# VMAFX_FFMPEG_LIBVMAF_PREFIX when set (e.g. upstream libvmaf's), else this build's own install
# (`cmake --install` into build/ffmpeg-client/prefix). Both tests say they were skipped (77) when
# no libvmaf.pc is installed there (an error when this build makes the library, vmafx_libvmaf),
# Debian's source cannot be fetched, or ../shared is absent.
# Not in sanitized or fuzzing builds: FFmpeg is built without the sanitizers, once, in part 1.
if(VMAFX_BUILD_TESTS AND NOT VMAFX_SANITIZE AND NOT VMAFX_FUZZ)
  set(VMAFX_FFMPEG_LIBVMAF_PREFIX "" CACHE PATH
      "libvmaf-compatible install the FFmpeg client test builds against (empty: this build's own install)")
  set(VMAFX_FFMPEG_DIR ${CMAKE_BINARY_DIR}/ffmpeg-client)
  set(VMAFX_FFMPEG_PREFIX ${VMAFX_FFMPEG_LIBVMAF_PREFIX})
  if(NOT VMAFX_FFMPEG_PREFIX)
    set(VMAFX_FFMPEG_PREFIX ${VMAFX_FFMPEG_DIR}/prefix)
    add_test(NAME ffmpeg_client_install
             COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${VMAFX_FFMPEG_PREFIX})
    set_tests_properties(ffmpeg_client_install PROPERTIES FIXTURES_SETUP ffmpeg_client_install)
  endif()
  # This build's own install must hold the library once the build makes it (target vmafx_libvmaf).
  set(VMAFX_FFMPEG_REQUIRE "")
  if(NOT VMAFX_FFMPEG_LIBVMAF_PREFIX AND TARGET vmafx_libvmaf)
    set(VMAFX_FFMPEG_REQUIRE --require-library)
  endif()
  add_test(NAME ffmpeg_client_build
           COMMAND ${CMAKE_SOURCE_DIR}/scripts/build_ffmpeg_client.sh ${VMAFX_FFMPEG_PREFIX} ${VMAFX_FFMPEG_DIR}
                   ${VMAFX_FFMPEG_REQUIRE})
  add_test(NAME ffmpeg_client
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/ffmpeg_client.py ${VMAFX_FFMPEG_DIR}
                   --cli $<TARGET_FILE:vmafx>)
  set_tests_properties(ffmpeg_client_build PROPERTIES FIXTURES_SETUP ffmpeg_client
                       SKIP_RETURN_CODE 77 TIMEOUT 1800)
  if(NOT VMAFX_FFMPEG_LIBVMAF_PREFIX)
    set_tests_properties(ffmpeg_client_build PROPERTIES FIXTURES_REQUIRED ffmpeg_client_install)
  endif()
  set_tests_properties(ffmpeg_client PROPERTIES FIXTURES_REQUIRED ffmpeg_client
                       SKIP_RETURN_CODE 77 TIMEOUT 600)
  # The minimal FFmpeg with NVDEC that scripts/device_bundle.sh carries to the GPU machine
  # (scripts/build_ffmpeg_nvdec.sh, into build/ffmpeg-nvdec): it builds, vmafx loads it and scores
  # with it as with Debian's libraries.
  add_test(NAME ffmpeg_nvdec COMMAND ${CMAKE_SOURCE_DIR}/tests/ffmpeg_nvdec.sh $<TARGET_FILE:vmafx> ${CMAKE_BINARY_DIR})
  set_tests_properties(ffmpeg_nvdec PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
endif()
