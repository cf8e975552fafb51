# The packages: one RPM and one DEB per install component (scripts/package.sh runs cpack).
#
#   zl                   the CLI, the host backend (cpu), the pytest plugins, the sample corpus,
#                        the man page, the docs
#   zl-backend-<vendor>  one vendor's module in lib/zl/backends; requires zl of the same
#                        version-release and nothing else
#   zl-devel             the ABI and SDK headers and the CMake package; requires the same zl
#
# Like UCX's ucx-cuda/ucx-rocm: the base package has no vendor dependency, and a host installs
# zl plus its vendor's package. The vendor packages carry no automatic dependencies (RPM
# AUTOREQ off, no dpkg-shlibdeps): a backend opens its vendor's libraries with dlopen and links
# only the C and C++ runtimes, which zl itself requires already. tests/e2e/test_packages.py
# checks both (the modules' DT_NEEDED and the packages' fields).
#
# Included at the end of ZlPackage.cmake, once every install rule exists.

set(ZL_PACKAGE_RELEASE 1 CACHE STRING "Release number of the zl packages (the -<release> of <version>-<release>)")
set(ZL_PACKAGE_CONTACT "zl maintainers <zl-maintainers@invalid>" CACHE STRING
    "Maintainer of the zl packages (the DEBs' Maintainer field)")

set(zl_full_version ${PROJECT_VERSION}-${ZL_PACKAGE_RELEASE})

# The components that make packages: zl, zl-devel, and a zl-backend-<vendor> per backend built.
get_cmake_property(zl_install_components COMPONENTS)
set(zl_backend_components "")
foreach(component IN LISTS zl_install_components)
  if(component MATCHES "^zl-backend-[a-z0-9-]+$")
    list(APPEND zl_backend_components ${component})
  elseif(NOT component MATCHES "^(zl|zl-devel)$")
    message(FATAL_ERROR "install component '${component}' is not zl, zl-devel or zl-backend-<vendor>: "
                        "give its install() rule one of those COMPONENTs")
  endif()
endforeach()
list(SORT zl_backend_components)

set(CPACK_GENERATOR RPM DEB)
set(CPACK_PACKAGE_NAME zl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR zl)
set(CPACK_PACKAGE_CONTACT "${ZL_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
# Apache-2.0, FlagGems' licence: the RPMs' License header (every component), the text for
# installers that show one; the DEBs have no licence field, the zl package has doc/zl/copyright.
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RPM_PACKAGE_LICENSE "Apache-2.0")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL zl zl-devel ${zl_backend_components})
set(CPACK_COMPONENTS_GROUPING IGNORE) # one package per component
set(CPACK_RPM_COMPONENT_INSTALL ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
# Release packages: stripped (both generators alike), no debug-info subpackages, and so no
# /usr/lib/.build-id links for them to pair with.
set(CPACK_STRIP_FILES TRUE)
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")
# The tools' own names: zl-0.1.0-1.x86_64.rpm, zl_0.1.0-1_amd64.deb, zl-devel-0.1.0-1.noarch.rpm.
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_RPM_PACKAGE_RELEASE ${ZL_PACKAGE_RELEASE})
set(CPACK_DEBIAN_PACKAGE_RELEASE ${ZL_PACKAGE_RELEASE})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_RPM_PACKAGE_GROUP "Development/Tools")
# Standard directories (the man page's, the CMake packages') belong to the system, not to zl;
# zl owns lib/zl, lib/zl/backends, share/zl, share/doc/zl.
list(APPEND CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
  /usr/share/man /usr/share/man/man1 /usr/lib/cmake /usr/${CMAKE_INSTALL_LIBDIR}/cmake)
set(CPACK_RPM_ZL_PACKAGE_NAME zl)
set(CPACK_DEBIAN_ZL_PACKAGE_NAME zl)

# Long descriptions, wrapped by hand: CPack passes the lines on as they are. On DEBs, CPack puts
# CPACK_PACKAGE_DESCRIPTION_SUMMARY (the project's description) on every package's synopsis line.
set(zl_description "zl runs FlagGems-shaped Triton operator benchmarks through pytest and
records exactly what each number measured: timer, device, compiler switches,
tuner cache. Vendor specifics live in backend modules loaded at run time from
/usr/lib/zl/backends.

This package holds the zl command, the host backend (cpu), the pytest plugins,
the sample corpus, the man page and the docs; install zl-backend-<vendor> for
an accelerator.")

# --- zl ---------------------------------------------------------------------------------------
set(CPACK_RPM_ZL_PACKAGE_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RPM_ZL_PACKAGE_DESCRIPTION "${zl_description}")
set(CPACK_DEBIAN_ZL_DESCRIPTION "${zl_description}")
# The shared libraries the binary links (Boost, fmt, SQLite, …, the C and C++ runtimes), as the
# tools' own scan finds them: RPM's AUTOREQ (on by default) and dpkg-shlibdeps.
set(CPACK_DEBIAN_ZL_PACKAGE_SHLIBDEPS ON)
# zl run needs a Python with pytest, but listing backends and devices does not. (No RPM
# counterpart: CPack 3.25 finds no weak-dependency support in Debian's rpmbuild.)
set(CPACK_DEBIAN_ZL_PACKAGE_RECOMMENDS "python3, python3-pytest")

# --- zl-devel ---------------------------------------------------------------------------------
set(CPACK_RPM_ZL-DEVEL_PACKAGE_NAME zl-devel)
set(CPACK_DEBIAN_ZL-DEVEL_PACKAGE_NAME zl-devel)
set(CPACK_RPM_ZL-DEVEL_PACKAGE_SUMMARY "SDK for zl backends: the ABI header and the CMake package")
set(CPACK_RPM_ZL-DEVEL_PACKAGE_DESCRIPTION "The headers (zl/backend_abi.h, zl/backend_sdk.hpp and zl/sdk/) and the CMake
package for building a zl backend module outside the zl tree: find_package(zl)
gives the target zl::abi and the function zl_add_backend().")
set(CPACK_DEBIAN_ZL-DEVEL_DESCRIPTION "${CPACK_RPM_ZL-DEVEL_PACKAGE_DESCRIPTION}")
# Headers and CMake files only.
set(CPACK_RPM_ZL-DEVEL_PACKAGE_ARCHITECTURE noarch)
set(CPACK_DEBIAN_ZL-DEVEL_PACKAGE_ARCHITECTURE all)
set(CPACK_RPM_ZL-DEVEL_PACKAGE_REQUIRES "zl = ${zl_full_version}")
set(CPACK_DEBIAN_ZL-DEVEL_PACKAGE_DEPENDS "zl (= ${zl_full_version})")

# --- zl-backend-<vendor> ----------------------------------------------------------------------
foreach(component IN LISTS zl_backend_components)
  string(TOUPPER ${component} COMPONENT)
  string(REGEX REPLACE "^zl-backend-" "" vendor ${component})
  set(CPACK_RPM_${COMPONENT}_PACKAGE_NAME ${component})
  set(CPACK_DEBIAN_${COMPONENT}_PACKAGE_NAME ${component})
  set(CPACK_RPM_${COMPONENT}_PACKAGE_SUMMARY "zl backend module for ${vendor}")
  set(CPACK_RPM_${COMPONENT}_PACKAGE_DESCRIPTION "The ${vendor} backend of zl: /usr/lib/zl/backends/libzl_backend_${vendor}.so.
It opens the vendor's libraries at run time (dlopen) and falls back to the
vendor's tools, so it installs without any vendor package.")
  set(CPACK_DEBIAN_${COMPONENT}_DESCRIPTION "${CPACK_RPM_${COMPONENT}_PACKAGE_DESCRIPTION}")
  set(CPACK_RPM_${COMPONENT}_PACKAGE_REQUIRES "zl = ${zl_full_version}")
  set(CPACK_DEBIAN_${COMPONENT}_PACKAGE_DEPENDS "zl (= ${zl_full_version})")
  set(CPACK_RPM_${COMPONENT}_PACKAGE_AUTOREQ OFF)
  set(CPACK_DEBIAN_${COMPONENT}_PACKAGE_SHLIBDEPS OFF)
endforeach()

include(CPack)
