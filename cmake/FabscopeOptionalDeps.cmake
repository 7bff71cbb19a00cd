# Optional libraries: CUDA, NCCL and rdma-core. Found, their backends are built (nccl
# with the kernels, verbs); absent, the build goes on and those backends report
# "unavailable".
set(FABSCOPE_CUDA_VERSION "")
set(FABSCOPE_NCCL_VERSION "")
set(FABSCOPE_VERBS_VERSION "")

set(FABSCOPE_HAVE_CUDA OFF)
if(FABSCOPE_USE_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND CUDAToolkit_NVCC_EXECUTABLE)
    set(FABSCOPE_CUDA_VERSION "${CUDAToolkit_VERSION}")
    # The kernels' architectures when the user sets none: CMake's CUDAARCHS from the
    # environment (CI compiles for one), else Ampere and Hopper, plus Blackwell when this
    # nvcc knows it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      set(_archs 80 90)
      if(NOT "$ENV{CUDAARCHS}" STREQUAL "")
        set(_archs $ENV{CUDAARCHS})
      endif()
      execute_process(COMMAND "${CUDAToolkit_NVCC_EXECUTABLE}" --list-gpu-arch OUTPUT_VARIABLE _nvcc_archs
                      ERROR_QUIET RESULT_VARIABLE _nvcc_rc)
      if(_nvcc_rc EQUAL 0 AND _nvcc_archs MATCHES "compute_100" AND "$ENV{CUDAARCHS}" STREQUAL "")
        list(APPEND _archs 100)
      endif()
      set(CMAKE_CUDA_ARCHITECTURES "${_archs}" CACHE STRING "CUDA architectures of fabscope's kernels")
    endif()
    if(NOT CMAKE_CUDA_COMPILER)
      set(CMAKE_CUDA_COMPILER "${CUDAToolkit_NVCC_EXECUTABLE}")
    endif()
    enable_language(CUDA)
    set(FABSCOPE_HAVE_CUDA ON)
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
