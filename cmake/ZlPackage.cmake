# Install layout, the zl CMake package that third-party backend authors use, and the packages.
#
#   <prefix>/bin/zl                              component zl
#   <prefix>/lib/zl/backends/libzl_backend_*.so  zl (cpu), zl-backend-<vendor> (the others)
#   <prefix>/share/zl/python/, share/zl/corpus/  zl: the pytest plugins, the sample corpus
#   <prefix>/share/man/man1/zl.1                 zl: generated from `zl --help` at build time
#   <prefix>/share/doc/zl/                       zl: README.md, docs/*.md, LICENSE, copyright
#   <prefix>/include/zl/                         zl-devel: the ABI header and the SDK headers (sdk/)
#   <prefix>/lib/cmake/zl/                       zl-devel: find_package(zl) -> zl::abi, zl_add_backend()
#
# The core is a static library inside the zl binary: no shared library is installed.
include(CMakePackageConfigHelpers)

set(ZL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zl)

# --- zl-devel: the SDK ----------------------------------------------------------------------
set_target_properties(zl_abi PROPERTIES EXPORT_NAME abi)
install(TARGETS zl_abi EXPORT zlTargets COMPONENT zl-devel)
install(FILES core/include/zl/backend_abi.h core/include/zl/backend_sdk.hpp core/include/zl/backend_sdk_visibility.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zl COMPONENT zl-devel)
install(DIRECTORY core/include/zl/sdk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zl COMPONENT zl-devel
        FILES_MATCHING PATTERN "*.hpp")
install(EXPORT zlTargets NAMESPACE zl:: DESTINATION ${ZL_CMAKE_DIR} COMPONENT zl-devel)
export(EXPORT zlTargets NAMESPACE zl:: FILE ${CMAKE_BINARY_DIR}/zlTargets.cmake)

# zl_ABI_MAJOR/zl_ABI_MINOR (read from the header by ZlBackend.cmake) go into zlConfig.cmake.
configure_package_config_file(cmake/zlConfig.cmake.in ${CMAKE_BINARY_DIR}/zlConfig.cmake
                              INSTALL_DESTINATION ${ZL_CMAKE_DIR})
# A module of another ABI major is refused at load time; the package follows the same rule.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/zlConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/zlConfig.cmake ${CMAKE_BINARY_DIR}/zlConfigVersion.cmake
              cmake/ZlBackend.cmake cmake/zl_backend.map
        DESTINATION ${ZL_CMAKE_DIR} COMPONENT zl-devel)

# --- zl: the plugins, the sample corpus, the man page, the docs -----------------------------
install(DIRECTORY python/zl_plugins DESTINATION ${CMAKE_INSTALL_DATADIR}/zl/python COMPONENT zl
        FILES_MATCHING PATTERN "*.py")
install(DIRECTORY corpus/ DESTINATION ${CMAKE_INSTALL_DATADIR}/zl/corpus COMPONENT zl
        PATTERN "__pycache__" EXCLUDE PATTERN ".pytest_cache" EXCLUDE)

# The man page is zl's own help in roff: regenerated whenever the zl binary is relinked (the
# script rewrites the file only when the text changed).
if(NOT CMAKE_CROSSCOMPILING)
  set(ZL_MAN_PAGE ${CMAKE_BINARY_DIR}/man/zl.1)
  add_custom_command(OUTPUT ${ZL_MAN_PAGE}
    COMMAND ${CMAKE_COMMAND} -DZL=$<TARGET_FILE:zl> -DOUTPUT=${ZL_MAN_PAGE}
            -P ${PROJECT_SOURCE_DIR}/cmake/ZlManPage.cmake
    DEPENDS zl ${PROJECT_SOURCE_DIR}/cmake/ZlManPage.cmake
    COMMENT "Generating the zl(1) man page from zl --help"
    VERBATIM)
  add_custom_target(zl_man_page ALL DEPENDS ${ZL_MAN_PAGE})
  install(FILES ${ZL_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT zl)
endif()

file(GLOB zl_docs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES README.md LICENSE ${zl_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT zl)
# Debian's policy wants <docdir>/copyright (machine-readable format); the RPM carries it too, since
# the same install rules make both, next to the LICENSE it points to.
install(FILES cmake/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT zl)

include(ZlCPack)
