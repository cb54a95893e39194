// The sim module's error results. Codes and names mirror CUDA's (cudaErrorX -> simErrorX, same
// number), so a check that handles a CUDA error handles the simulated one the same way.
#pragma once

#include <string>

#include "backend/backend.hpp"

namespace gpuconform::sim {

enum class SimError {
    InvalidValue = 1,
    MemoryAllocation = 2,
    InvalidConfiguration = 9,
    NoDevice = 100,
    InvalidDevice = 101,
    InvalidResourceHandle = 400,
    NotReady = 600,
    IllegalAddress = 700,
    HostMemoryAlreadyRegistered = 712,
    HostMemoryNotRegistered = 713,
    PeerAccessUnsupported = 217,
    LaunchFailure = 719,
};

inline const char* sim_error_name(SimError e) {
    switch (e) {
        case SimError::InvalidValue:
            return "simErrorInvalidValue";
        case SimError::MemoryAllocation:
            return "simErrorMemoryAllocation";
        case SimError::InvalidConfiguration:
            return "simErrorInvalidConfiguration";
        case SimError::NoDevice:
            return "simErrorNoDevice";
        case SimError::InvalidDevice:
            return "simErrorInvalidDevice";
        case SimError::InvalidResourceHandle:
            return "simErrorInvalidResourceHandle";
        case SimError::NotReady:
            return "simErrorNotReady";
        case SimError::IllegalAddress:
            return "simErrorIllegalAddress";
        case SimError::HostMemoryAlreadyRegistered:
            return "simErrorHostMemoryAlreadyRegistered";
        case SimError::HostMemoryNotRegistered:
            return "simErrorHostMemoryNotRegistered";
        case SimError::LaunchFailure:
            return "simErrorLaunchFailure";
        case SimError::PeerAccessUnsupported:
            return "simErrorPeerAccessUnsupported";
    }
    return "simErrorUnknown";
}

inline ApiResult sim_error(SimError e, std::string message) {
    return ApiResult{static_cast<int>(e), sim_error_name(e), std::move(message)};
}

inline ApiResult sim_bad_handle(const std::string& what) {
    return sim_error(SimError::InvalidResourceHandle, "unknown or destroyed " + what + " handle");
}

inline ApiResult sim_ok() { return ApiResult{}; }

}  // namespace gpuconform::sim
