# Run at every build (cmake -P): writes version.h with the source tree's current git
# id. configure_file rewrites it only when its content changes, so nothing recompiles
# needlessly, and a report never carries the id of an older commit.
set(FABSCOPE_GIT_ID "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=12
    WORKING_DIRECTORY "${SOURCE_DIR}"
    OUTPUT_VARIABLE _git_id OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _git_rc)
  if(_git_rc EQUAL 0 AND _git_id)
    set(FABSCOPE_GIT_ID "${_git_id}")
  endif()
endif()
configure_file("${SOURCE_DIR}/cmake/version.h.in" "${OUTPUT}" @ONLY)
