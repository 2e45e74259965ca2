# cmake --install: the CLI, libexactvmaf.so (+ the static library), the
# public headers, exactvmaf.pc, the CMake package (find_package(exactvmaf) ->
# exactvmaf::exactvmaf) and the model files; `cpack` (in the build folder)
# turns the same tree into exactvmaf_<version>_amd64.deb.
include(CMakePackageConfigHelpers)

set(EXACTVMAF_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/exactvmaf")
set(EXACTVMAF_INSTALL_MODELDIR "${CMAKE_INSTALL_DATADIR}/exactvmaf/models")

set_target_properties(exactvmaf_shared PROPERTIES EXPORT_NAME exactvmaf)
install(TARGETS exactvmaf_shared EXPORT exactvmafTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS exactvmaf_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS exactvmaf_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/exactvmaf DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY models/ DESTINATION ${EXACTVMAF_INSTALL_MODELDIR})

install(EXPORT exactvmafTargets NAMESPACE exactvmaf:: DESTINATION ${EXACTVMAF_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/exactvmafConfig.cmake.in "${PROJECT_BINARY_DIR}/exactvmafConfig.cmake"
  INSTALL_DESTINATION ${EXACTVMAF_INSTALL_CMAKEDIR} PATH_VARS EXACTVMAF_INSTALL_MODELDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/exactvmafConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/exactvmafConfig.cmake" "${PROJECT_BINARY_DIR}/exactvmafConfigVersion.cmake"
        DESTINATION ${EXACTVMAF_INSTALL_CMAKEDIR})

# pkg-config: relocatable (prefix found from the .pc file's own folder).
file(RELATIVE_PATH EXACTVMAF_PC_PREFIX_FROM_PCDIR "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" EXACTVMAF_PC_PREFIX_FROM_PCDIR "${EXACTVMAF_PC_PREFIX_FROM_PCDIR}")
set(EXACTVMAF_PC_CUDA_LIBS "")
if(EXACTVMAF_HAVE_CUDA)
  # Static linking only (pkg-config --static): the CUDA runtime archive.
  set(EXACTVMAF_PC_CUDA_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
endif()
configure_file(cmake/exactvmaf.pc.in "${PROJECT_BINARY_DIR}/exactvmaf.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/exactvmaf.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The .deb (cpack -G DEB). Depends comes from dpkg-shlibdeps over every
# installed ELF file; the CUDA driver is optional (loaded when --backend cuda
# starts), so it is only suggested.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME exactvmaf)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
if(NOT CPACK_PACKAGE_CONTACT)
  set(CPACK_PACKAGE_CONTACT "exactvmaf developers")
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION video)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
if(EXACTVMAF_HAVE_CUDA)
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libcuda1")
endif()
include(CPack)
