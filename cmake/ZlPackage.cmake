# Install layout and the zl CMake package that third-party backend authors use:
#   find_package(zl CONFIG REQUIRED)  ->  zl::abi and zl_add_backend()
include(CMakePackageConfigHelpers)

set(ZL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zl)

set_target_properties(zl_abi PROPERTIES EXPORT_NAME abi)
install(TARGETS zl_abi EXPORT zlTargets)
install(FILES core/include/zl/backend_abi.h core/include/zl/backend_sdk.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zl COMPONENT devel)
install(EXPORT zlTargets NAMESPACE zl:: DESTINATION ${ZL_CMAKE_DIR} COMPONENT devel)
export(EXPORT zlTargets NAMESPACE zl:: FILE ${CMAKE_BINARY_DIR}/zlTargets.cmake)

configure_package_config_file(cmake/zlConfig.cmake.in ${CMAKE_BINARY_DIR}/zlConfig.cmake
                              INSTALL_DESTINATION ${ZL_CMAKE_DIR})
# A module of another ABI major is refused at load time; the package follows the same rule.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/zlConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/zlConfig.cmake ${CMAKE_BINARY_DIR}/zlConfigVersion.cmake
              cmake/ZlBackend.cmake cmake/zl_backend.map
        DESTINATION ${ZL_CMAKE_DIR} COMPONENT devel)

# The pytest plugins zl puts on PYTHONPATH, and the sample corpus.
install(DIRECTORY python/zl_plugins DESTINATION ${CMAKE_INSTALL_DATADIR}/zl/python COMPONENT zl
        FILES_MATCHING PATTERN "*.py")
install(FILES compat/zl_compat.py DESTINATION ${CMAKE_INSTALL_DATADIR}/zl/python/compat COMPONENT zl)
install(DIRECTORY corpus/ DESTINATION ${CMAKE_INSTALL_DATADIR}/zl/corpus COMPONENT zl
        PATTERN "__pycache__" EXCLUDE PATTERN ".pytest_cache" EXCLUDE)
