# House rules a machine checks (CONTRIBUTING.md):
#
#   format        rewrites every tracked C/C++ source with .clang-format (scripts/format.sh)
#   check-format  rewrites nothing; lists the files format would change and fails (CI runs it)
#   tidy          clang-tidy with .clang-tidy on every compiled source of this build tree
#                 (scripts/tidy.sh); fails on any finding
#
# Both tools are pinned to LLVM 14 (Debian 12's clang-format-14 and clang-tidy-14): another major
# formats and diagnoses the same file differently. ZL_CLANG_FORMAT and ZL_CLANG_TIDY override the
# binaries; the scripts refuse another major with the version they found.
set(ZL_LLVM_MAJOR 14)
find_program(ZL_CLANG_FORMAT NAMES clang-format-${ZL_LLVM_MAJOR} clang-format
             DOC "clang-format ${ZL_LLVM_MAJOR}, for the format and check-format targets")
find_program(ZL_CLANG_TIDY NAMES clang-tidy-${ZL_LLVM_MAJOR} clang-tidy
             DOC "clang-tidy ${ZL_LLVM_MAJOR}, for the tidy target")

# compile_commands.json: what clang-tidy (and editors) read to compile a file as the build does.
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

# Said at configure time too, so a wrong version shows before anyone runs the targets.
set(zl_FORMAT_says "clang-format version ${ZL_LLVM_MAJOR}\\.")
set(zl_TIDY_says "LLVM version ${ZL_LLVM_MAJOR}\\.")
foreach(tool IN ITEMS FORMAT TIDY)
  if(ZL_CLANG_${tool})
    execute_process(COMMAND ${ZL_CLANG_${tool}} --version OUTPUT_VARIABLE version_text ERROR_QUIET)
    if(NOT version_text MATCHES "${zl_${tool}_says}")
      string(STRIP "${version_text}" version_text)
      message(WARNING "ZL_CLANG_${tool}=${ZL_CLANG_${tool}} is not the pinned clang-format or clang-tidy "
                      "${ZL_LLVM_MAJOR} ('${version_text}'): the targets that use it will refuse to run; "
                      "install Debian's clang-format-${ZL_LLVM_MAJOR} "
                      "and clang-tidy-${ZL_LLVM_MAJOR}, or point -DZL_CLANG_${tool}= at version ${ZL_LLVM_MAJOR}")
    endif()
  endif()
endforeach()

# An empty CLANG_FORMAT/CLANG_TIDY lets the script search, and say what is missing.
set(zl_format_env CLANG_FORMAT=$<$<BOOL:${ZL_CLANG_FORMAT}>:${ZL_CLANG_FORMAT}>)
set(zl_tidy_env CLANG_TIDY=$<$<BOOL:${ZL_CLANG_TIDY}>:${ZL_CLANG_TIDY}>)
add_custom_target(format
  COMMAND ${CMAKE_COMMAND} -E env ${zl_format_env} bash ${PROJECT_SOURCE_DIR}/scripts/format.sh
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} USES_TERMINAL VERBATIM)
add_custom_target(check-format
  COMMAND ${CMAKE_COMMAND} -E env ${zl_format_env} bash ${PROJECT_SOURCE_DIR}/scripts/format.sh --check
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} USES_TERMINAL VERBATIM)
add_custom_target(tidy
  COMMAND ${CMAKE_COMMAND} -E env ${zl_tidy_env} bash ${PROJECT_SOURCE_DIR}/scripts/tidy.sh ${CMAKE_BINARY_DIR}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} USES_TERMINAL VERBATIM)
