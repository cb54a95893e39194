// The HIP backend module: the shared GPU backend body over HIP's facts. Built by hipcc; it links
// libamdhip64 dynamically, so a node without ROCm sees the loader's own message for it.
#include "backend/hip/hip_vendor.hpp"
// The vendor header first: the body is written against it.
#include "backend/gpu/gpu_backend_body.hpp"
