# Optional libraries: CUDA, NCCL and rdma-core. Found, their backends can be built
# (later issues); absent, the build goes on and those backends report "unavailable".
set(FABSCOPE_CUDA_VERSION "")
set(FABSCOPE_NCCL_VERSION "")
set(FABSCOPE_VERBS_VERSION "")

if(FABSCOPE_USE_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(FABSCOPE_CUDA_VERSION "${CUDAToolkit_VERSION}")
  endif()
endif()

if(FABSCOPE_USE_NCCL)
  find_package(NCCL QUIET)
  if(NCCL_FOUND)
    set(FABSCOPE_NCCL_VERSION "${NCCL_VERSION}")
  endif()
endif()

if(FABSCOPE_USE_VERBS)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(IBVERBS QUIET IMPORTED_TARGET libibverbs)
    if(IBVERBS_FOUND)
      set(FABSCOPE_VERBS_VERSION "${IBVERBS_VERSION}")
    endif()
  endif()
endif()

message(STATUS "fabscope optional libraries: CUDA='${FABSCOPE_CUDA_VERSION}' NCCL='${FABSCOPE_NCCL_VERSION}' libibverbs='${FABSCOPE_VERBS_VERSION}'")
