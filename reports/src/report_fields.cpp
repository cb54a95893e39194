#include "report_fields.hpp"

#include <fmt/format.h>

namespace gpuconform {

std::string string_at(const nlohmann::json& doc, const std::string& pointer) {
    const nlohmann::json::json_pointer ptr(pointer);
    if (!doc.contains(ptr)) {
        return "";
    }
    const nlohmann::json& v = doc.at(ptr);
    if (v.is_string()) {
        return v.get<std::string>();
    }
    if (v.is_number() || v.is_boolean()) {
        return v.dump();
    }
    return "";
}

namespace {
std::string string_or_empty(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
}  // namespace

CheckResult result_from_json_lenient(const nlohmann::json& j) {
    CheckResult r;
    r.id = j.at("id").get<std::string>();
    r.layer = string_or_empty(j, "layer");
    r.backend = string_or_empty(j, "backend");
    if (const auto it = j.find("device"); it != j.end() && it->is_number_integer()) {
        r.device = it->get<int>();
    }
    r.status = status_from_string(string_or_empty(j, "status")).value_or(Status::Error);
    r.summary = string_or_empty(j, "summary");
    r.remediation = string_or_empty(j, "remediation");
    r.attribution = string_or_empty(j, "attribution");
    if (const auto it = j.find("measurements"); it != j.end() && it->is_array()) {
        for (const auto& m : *it) {
            if (m.is_object() && m.contains("name")) {
                r.measurements.push_back(m.get<Measurement>());
            }
        }
    }
    if (const auto it = j.find("facts"); it != j.end() && it->is_object()) {
        r.facts = *it;
    }
    if (const auto it = j.find("duration_s"); it != j.end() && it->is_number()) {
        r.duration_s = it->get<double>();
    }
    return r;
}

std::string gpu_model(const nlohmann::json& report) {
    const auto devices = report.find("devices");
    if (devices != report.end() && devices->is_array() && !devices->empty()) {
        const std::string name = string_or_empty(devices->front(), "name");
        if (!name.empty()) {
            return name;
        }
    }
    const std::string vendor = string_at(report, "/environment/pci_gpus/0/vendor");
    return vendor.empty() ? "no GPU" : vendor + " GPU (no runtime)";
}

}  // namespace gpuconform
