#include "reports/report_fields.hpp"

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

namespace {
std::optional<double> number_or_none(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

// A measurement with every field type-checked: a wrong type reads as absent, never throws.
Measurement measurement_lenient(const nlohmann::json& m) {
    Measurement out;
    out.name = m["name"].get<std::string>();
    out.unit = string_or_empty(m, "unit");
    if (const auto n = number_or_none(m, "n"); n && *n >= 0 && *n <= 1e9) {
        out.n = static_cast<int>(*n);
    }
    out.value = number_or_none(m, "value");
    out.min = number_or_none(m, "min");
    out.max = number_or_none(m, "max");
    return out;
}
}  // namespace

CheckResult result_from_json_lenient(const nlohmann::json& j) {
    CheckResult r;
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) {
        throw std::invalid_argument("a result without a string id");
    }
    r.id = j["id"].get<std::string>();
    r.layer = string_or_empty(j, "layer");
    r.backend = string_or_empty(j, "backend");
    if (const auto it = j.find("device"); it != j.end() && it->is_number_integer() && *it >= 0 && *it <= 1 << 20) {
        r.device = it->get<int>();
    }
    r.status = status_from_string(string_or_empty(j, "status")).value_or(Status::Error);
    r.summary = string_or_empty(j, "summary");
    r.remediation = string_or_empty(j, "remediation");
    r.attribution = string_or_empty(j, "attribution");
    if (const auto it = j.find("measurements"); it != j.end() && it->is_array()) {
        for (const auto& m : *it) {
            if (m.is_object() && m.contains("name") && m["name"].is_string()) {
                r.measurements.push_back(measurement_lenient(m));
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
        std::string name = string_or_empty(devices->front(), "name");
        if (!name.empty()) {
            return name;
        }
    }
    const std::string vendor = string_at(report, "/environment/pci_gpus/0/vendor");
    return vendor.empty() ? "no GPU" : vendor + " GPU (no runtime)";
}

}  // namespace gpuconform
