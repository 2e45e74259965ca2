# EXACTVMAF_LIBAV = ON | OFF | AUTO (default). Compressed input (-r/-d in any
# container and codec FFmpeg reads, --scale) through FFmpeg's libraries:
# libavformat, libavcodec, libavutil, libswscale (Debian: the -dev packages
# scripts/setup-debian.sh installs). AUTO uses them when pkg-config finds
# them. They are linked into the exactvmaf_av static library (src/av/), and
# that into the CLI and its tests only: never into libexactvmaf or
# libvmaf.so.3 (an FFmpeg that loads our libvmaf must not load a second
# libavcodec; tests/av/no_libav_deps_test.sh checks it).
set(EXACTVMAF_LIBAV "AUTO" CACHE STRING "Compressed input through FFmpeg's libraries: ON, OFF or AUTO (when found)")
set_property(CACHE EXACTVMAF_LIBAV PROPERTY STRINGS ON OFF AUTO)
set(EXACTVMAF_HAVE_LIBAV OFF)
string(TOUPPER "${EXACTVMAF_LIBAV}" _libav_mode)
set(_libav_modules libavformat>=59 libavcodec>=59 libavutil>=57 libswscale>=6)  # FFmpeg 5.0 or later
if(_libav_mode STREQUAL "ON" OR _libav_mode STREQUAL "AUTO")
  pkg_check_modules(LIBAV QUIET IMPORTED_TARGET ${_libav_modules})
  if(LIBAV_FOUND)
    set(EXACTVMAF_HAVE_LIBAV ON)
    message(STATUS "exactvmaf: compressed input ON (libavformat ${LIBAV_libavformat_VERSION}, libavcodec "
                   "${LIBAV_libavcodec_VERSION}, libswscale ${LIBAV_libswscale_VERSION}; CLI only)")
  elseif(_libav_mode STREQUAL "ON")
    message(FATAL_ERROR "EXACTVMAF_LIBAV=ON but pkg-config did not find ${_libav_modules} "
                        "(Debian: apt-get install libavformat-dev libavcodec-dev libavutil-dev libswscale-dev)")
  else()
    message(WARNING "exactvmaf: compressed input OFF: pkg-config did not find ${_libav_modules}. "
                    "-r/-d read y4m and raw YUV only; --scale and --stream are refused. For compressed input: "
                    "apt-get install libavformat-dev libavcodec-dev libavutil-dev libswscale-dev (or "
                    "scripts/setup-debian.sh) and configure again.")
  endif()
else()
  message(STATUS "exactvmaf: compressed input OFF (EXACTVMAF_LIBAV=${EXACTVMAF_LIBAV}): -r/-d read y4m and raw YUV only")
endif()
