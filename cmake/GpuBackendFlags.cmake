# What the CUDA and HIP modules share: they compile one body (probes/backend/gpu/), so they
# build at one language level with one set of warnings, errors under GPUCONFORM_WERROR.
# C++17, not the core's C++20: every nvcc in CudaBackend.cmake's table accepts it (C++20 needs
# CUDA 12.0, and CMake 3.25 knows no C++20 flag for nvcc), and so does every hipcc.
set(GPUCONFORM_GPU_CXX_STANDARD 17)
set(GPUCONFORM_GPU_BODY
    ${CMAKE_SOURCE_DIR}/probes/backend/gpu/gpu_backend_body.hpp
    ${CMAKE_SOURCE_DIR}/probes/backend/backend.hpp
    ${CMAKE_SOURCE_DIR}/probes/backend/pattern.hpp)
# hipcc is clang: its own flags. nvcc: its front end's warnings, then the host compiler's.
set(GPUCONFORM_HIP_WARNINGS -Wall -Wextra)
set(GPUCONFORM_CUDA_WARNINGS -Xcompiler=-Wall,-Wextra)
if(GPUCONFORM_WERROR)
  list(APPEND GPUCONFORM_HIP_WARNINGS -Werror)
  list(APPEND GPUCONFORM_CUDA_WARNINGS --Werror=all-warnings -Xcompiler=-Werror)
endif()
