// The CUDA backend module: the shared GPU backend body over CUDA's facts. Built with the static
// CUDA runtime, so it loads on a node without a driver and reports cudaErrorInsufficientDriver.
#include "backend/cuda/cuda_vendor.hpp"
// The vendor header first: the body is written against it.
#include "backend/gpu/gpu_backend_body.hpp"
