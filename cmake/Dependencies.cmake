# Finds every external dependency of superopt; see ../shared/ENVIRONMENT.md for the packages.
find_package(MPI REQUIRED COMPONENTS C CXX)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options graph)
find_package(nlohmann_json 3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(Z3 REQUIRED IMPORTED_TARGET z3)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# CBC (coinor-libcbc-dev): the ILP solver of eqsat's exact extraction (runtime/egraph/).
pkg_check_modules(CBC REQUIRED IMPORTED_TARGET cbc)
find_package(Catch2 2 REQUIRED)
include(Catch)

# CUDA is optional: the product builds and tests without it; GPU code is
# compiled whenever the toolkit is present unless -DSUPEROPT_CUDA=OFF.
set(SUPEROPT_HAVE_CUDA OFF)
if(SUPEROPT_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90) # H100/H200; "native" fails without a GPU
    endif()
    enable_language(CUDA)
    find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
    if(CUDNN_INCLUDE_DIR AND CUDNN_LIBRARY)
      set(SUPEROPT_HAVE_CUDA ON)
    else()
      message(WARNING "CUDA toolkit found but cuDNN is missing: building without CUDA")
    endif()
  else()
    message(STATUS "CUDA toolkit not found: building without CUDA")
  endif()
endif()
message(STATUS "superopt CUDA runtime: ${SUPEROPT_HAVE_CUDA}")

# oneDNN (libdnnl-dev 2.6, no CMake config on Debian) and the OpenMP it runs on:
# the CPU executor, runtime/exec/cpu/.
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp REQUIRED)
find_library(DNNL_LIBRARY dnnl REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
