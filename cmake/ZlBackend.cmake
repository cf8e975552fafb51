# zl_add_backend(<name> SOURCES <src>... [LIBRARIES <lib>...])
#
# Builds libzl_backend_<name>.so: a MODULE that exports only zl_backend_get_descriptor, links
# nothing of the zl core, and refuses undefined symbols at link time. Used in-tree and, through
# find_package(zl), by third-party backends. Installs to lib/zl/backends (not the multiarch
# libdir): zl looks there beside its bin/.
include(GNUInstallDirs)
set(ZL_BACKEND_MAP ${CMAKE_CURRENT_LIST_DIR}/zl_backend.map)

function(zl_add_backend name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT name MATCHES "^[a-z0-9_]+$")
    message(FATAL_ERROR "zl_add_backend: '${name}' is not a backend name ([a-z0-9_]+)")
  endif()
  set(target zl_backend_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib" OUTPUT_NAME zl_backend_${name}
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED ZL_BACKEND_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ZL_BACKEND_OUTPUT_DIR})
  endif()
  target_link_libraries(${target} PRIVATE zl::abi ${ARG_LIBRARIES})
  target_link_options(${target} PRIVATE -Wl,-z,defs -Wl,--version-script=${ZL_BACKEND_MAP})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${ZL_BACKEND_MAP})
  string(REPLACE "_" "-" component "backend-${name}")
  install(TARGETS ${target} LIBRARY DESTINATION lib/zl/backends COMPONENT ${component})
endfunction()
