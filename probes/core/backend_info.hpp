// What a backend's worker reported when it started: whether the module loaded, the versions the
// runtime gave, and the devices it sees. The runtime layer's checks judge this (pure functions).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"

namespace gpuconform {

struct BackendInfo {
    std::string name;         // "cuda", "hip", "sim"
    std::string vendor;       // "nvidia", "amd", "sim"
    std::string module_path;  // empty when no module file was found
    bool loaded = false;
    std::string load_error;  // the loader's own message when !loaded
    VersionInfo versions;
    ApiResult count_status;  // result of device_count()
    int device_count = 0;
    std::vector<DeviceProps> devices;
    std::vector<ApiResult> device_errors;  // per device, when props could not be read
};

// "13.0" from CUDA's 13000; HIP versions are major*10'000'000 + minor*100'000 + patch.
std::string format_version(const std::string& backend, int encoded);

void to_json(nlohmann::json& j, const ApiResult& r);
void from_json(const nlohmann::json& j, ApiResult& r);
void to_json(nlohmann::json& j, const DeviceProps& p);
void from_json(const nlohmann::json& j, DeviceProps& p);
void to_json(nlohmann::json& j, const BackendInfo& b);
void from_json(const nlohmann::json& j, BackendInfo& b);

}  // namespace gpuconform
