# Writes generated/fabscope/version.h with the project version, the git id of the
# source tree and which optional libraries this build found.
find_package(Git QUIET)
set(FABSCOPE_GIT_ID "unknown")
if(GIT_FOUND AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/.git")
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=12
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    OUTPUT_VARIABLE _git_id OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _git_rc)
  if(_git_rc EQUAL 0 AND _git_id)
    set(FABSCOPE_GIT_ID "${_git_id}")
  endif()
endif()
configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/version.h.in" "${CMAKE_CURRENT_BINARY_DIR}/generated/fabscope/version.h" @ONLY)
