# The CUDA backend module. Architectures come from a fixed table per toolkit version, never
# from the build host's GPU, so one build runs on every node of a fleet.
include(CheckLanguage)
set(GPUCONFORM_BUILD_CUDA OFF)
set(GPUCONFORM_CUDA_WHY "disabled with -DGPUCONFORM_CUDA=OFF")
if(NOT GPUCONFORM_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(GPUCONFORM_BUILD_CUDA ON)
  elseif(GPUCONFORM_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPUCONFORM_CUDA=ON but no CUDA compiler was found. Install the CUDA toolkit "
                        "(nvcc; e.g. NVIDIA's cuda-toolkit package) or pass -DCMAKE_CUDA_COMPILER=/path/to/nvcc.")
  else()
    set(GPUCONFORM_CUDA_WHY "nvcc not found; install the CUDA toolkit or set CMAKE_CUDA_COMPILER")
  endif()
endif()

if(GPUCONFORM_BUILD_CUDA)
  enable_language(CUDA)
  # CUDA 13 dropped sm_50..sm_72; CUDA 12.8 added sm_100 and sm_120.
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13.0)
    set(GPUCONFORM_CUDA_ARCHITECTURES 75-real 80-real 86-real 89-real 90-real 100-real 120)
  elseif(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.8)
    set(GPUCONFORM_CUDA_ARCHITECTURES 70-real 75-real 80-real 86-real 89-real 90-real 100-real 120)
  elseif(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 11.8)
    set(GPUCONFORM_CUDA_ARCHITECTURES 70-real 75-real 80-real 86-real 89-real 90)
  else()
    set(GPUCONFORM_CUDA_ARCHITECTURES 70-real 75-real 80)
  endif()
  add_library(gpuconform-cuda MODULE ${CMAKE_SOURCE_DIR}/probes/backend/cuda/cuda_backend.cu)
  target_include_directories(gpuconform-cuda PRIVATE ${CMAKE_SOURCE_DIR}/probes)
  target_compile_options(gpuconform-cuda PRIVATE ${GPUCONFORM_CUDA_WARNINGS})
  set_target_properties(gpuconform-cuda PROPERTIES
    CUDA_ARCHITECTURES "${GPUCONFORM_CUDA_ARCHITECTURES}"
    CUDA_RUNTIME_LIBRARY Static
    CUDA_STANDARD ${GPUCONFORM_GPU_CXX_STANDARD}
    CUDA_STANDARD_REQUIRED ON
    CUDA_EXTENSIONS OFF
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${GPUCONFORM_MODULE_DIR})
  install(TARGETS gpuconform-cuda LIBRARY DESTINATION ${GPUCONFORM_INSTALL_MODULE_DIR} COMPONENT cuda)
  add_dependencies(gpuconform gpuconform-cuda)  # a stale module of another interface version would not load
endif()
