# Shared compile settings: link zl_standard_settings and zl_standard_warnings PRIVATE everywhere.
option(ZL_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
# Warnings are errors where zl is developed (a git checkout, CI: scripts/build.sh passes ON), not
# in a release tarball, which users build with compilers newer than ours and their new warnings.
if(EXISTS ${PROJECT_SOURCE_DIR}/.git)
  set(zl_werror_default ON)
else()
  set(zl_werror_default OFF)
endif()
option(ZL_WERROR "Treat warnings as errors (default: ON in a git checkout, OFF in a release tarball)"
       ${zl_werror_default})

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

add_library(zl_standard_settings INTERFACE)
if(ZL_SANITIZE)
  target_compile_options(zl_standard_settings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(zl_standard_settings INTERFACE -fsanitize=address,undefined)
endif()
# Coverage for libFuzzer on everything zl compiles; the fuzz targets add -fsanitize=fuzzer
# (tests/fuzz/CMakeLists.txt). A crash must stop the run, so nothing recovers.
if(ZL_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "-DZL_FUZZ=ON needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  target_compile_options(zl_standard_settings INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
    -fsanitize-ignorelist=${PROJECT_SOURCE_DIR}/tests/fuzz/ubsan-ignore.txt)
  target_link_options(zl_standard_settings INTERFACE -fsanitize=address,undefined)
endif()

# -Wnull-dereference is left out: GCC 12 at -O2 reports it inside libstdc++ (streambuf, vector)
# on code that is fine.
add_library(zl_standard_warnings INTERFACE)
target_compile_options(zl_standard_warnings INTERFACE -Wall -Wextra -Wshadow -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual -Wpedantic -Wconversion
  -Wsign-conversion -Wdouble-promotion -Wformat=2 $<$<BOOL:${ZL_WERROR}>:-Werror>)
