# `cmake --install`: the public headers, libvkphys (shaders embedded), the vkphys CLI, a CMake
# package (find_package(vkphys CONFIG), target vkphys::vkphys) and a pkg-config file (vkphys.pc).
include(CMakePackageConfigHelpers)

install(TARGETS vkphys_shared EXPORT vkphysTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS vkphys RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/vkphys DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(VKPHYS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/vkphys)
install(EXPORT vkphysTargets NAMESPACE vkphys:: DESTINATION ${VKPHYS_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vkphysConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/vkphysConfig.cmake
                              INSTALL_DESTINATION ${VKPHYS_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vkphysConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vkphysConfig.cmake
              ${PROJECT_BINARY_DIR}/vkphysConfigVersion.cmake DESTINATION ${VKPHYS_CMAKE_DIR})

# Relocatable: the prefix is found from the .pc file's own place (pcfiledir), so an install
# with `cmake --install --prefix P` works wherever P is.
file(RELATIVE_PATH VKPHYS_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(${PROJECT_SOURCE_DIR}/cmake/vkphys.pc.in ${PROJECT_BINARY_DIR}/vkphys.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/vkphys.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
