#include "core/backend_info.hpp"

#include <fmt/format.h>

namespace gpuconform {

std::string format_version(const std::string& backend, int encoded) {
    if (encoded <= 0) {
        return "";
    }
    if (backend == "hip") {
        return fmt::format("{}.{}.{}", encoded / 10000000, (encoded / 100000) % 100, encoded % 100000);
    }
    return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

void to_json(nlohmann::json& j, const ApiResult& r) {
    j = {{"code", r.code}, {"name", r.name}, {"message", r.message}};
}

void from_json(const nlohmann::json& j, ApiResult& r) {
    r.code = j.at("code").get<int>();
    r.name = j.value("name", "");
    r.message = j.value("message", "");
}

void to_json(nlohmann::json& j, const DeviceProps& p) {
    j = {{"name", p.name},
         {"arch", p.arch},
         {"pci_bus_id", p.pci_bus_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.pci_bus_id)},
         {"memory_bytes", p.total_memory},
         {"async_engine_count", p.async_engine_count},
         {"concurrent_kernels", p.concurrent_kernels},
         {"can_map_host_memory", p.can_map_host_memory},
         {"multiprocessors", p.multiprocessors}};
}

void from_json(const nlohmann::json& j, DeviceProps& p) {
    p.name = j.at("name").get<std::string>();
    p.arch = j.at("arch").get<std::string>();
    p.pci_bus_id = j.at("pci_bus_id").is_string() ? j.at("pci_bus_id").get<std::string>() : "";
    p.total_memory = j.at("memory_bytes").get<std::uint64_t>();
    p.async_engine_count = j.value("async_engine_count", -1);
    p.concurrent_kernels = j.value("concurrent_kernels", false);
    p.can_map_host_memory = j.value("can_map_host_memory", false);
    p.multiprocessors = j.value("multiprocessors", 0);
}

void to_json(nlohmann::json& j, const BackendInfo& b) {
    j = {{"name", b.name},
         {"vendor", b.vendor},
         {"module_path", b.module_path},
         {"loaded", b.loaded},
         {"load_error", b.load_error},
         {"driver_status", b.versions.driver_status},
         {"driver_version", b.versions.driver_version},
         {"runtime_status", b.versions.runtime_status},
         {"runtime_version", b.versions.runtime_version},
         {"count_status", b.count_status},
         {"device_count", b.device_count},
         {"devices", b.devices},
         {"device_errors", b.device_errors}};
}

void from_json(const nlohmann::json& j, BackendInfo& b) {
    b.name = j.at("name").get<std::string>();
    b.vendor = j.value("vendor", "");
    b.module_path = j.value("module_path", "");
    b.loaded = j.at("loaded").get<bool>();
    b.load_error = j.value("load_error", "");
    b.versions.driver_status = j.at("driver_status").get<ApiResult>();
    b.versions.driver_version = j.at("driver_version").get<int>();
    b.versions.runtime_status = j.at("runtime_status").get<ApiResult>();
    b.versions.runtime_version = j.at("runtime_version").get<int>();
    b.count_status = j.at("count_status").get<ApiResult>();
    b.device_count = j.at("device_count").get<int>();
    b.devices = j.at("devices").get<std::vector<DeviceProps>>();
    b.device_errors = j.value("device_errors", std::vector<ApiResult>{});
}

}  // namespace gpuconform
