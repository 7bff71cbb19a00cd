# generated/fabscope/version.h: the project version, which optional libraries this
# build found, and the git id of the source tree, refreshed at every build.
set(_fabscope_version_args
  -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}
  -DOUTPUT=${CMAKE_CURRENT_BINARY_DIR}/generated/fabscope/version.h
  -DPROJECT_VERSION=${PROJECT_VERSION}
  -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
  -DFABSCOPE_CUDA_VERSION=${FABSCOPE_CUDA_VERSION}
  -DFABSCOPE_NCCL_VERSION=${FABSCOPE_NCCL_VERSION}
  -DFABSCOPE_VERBS_VERSION=${FABSCOPE_VERBS_VERSION})
execute_process(COMMAND ${CMAKE_COMMAND} ${_fabscope_version_args} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/write_version.cmake)
add_custom_target(fabscope_version
  COMMAND ${CMAKE_COMMAND} ${_fabscope_version_args} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${CMAKE_CURRENT_BINARY_DIR}/generated/fabscope/version.h
  COMMENT "fabscope: git id")
