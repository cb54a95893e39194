#include "core/result.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace gpuconform {

namespace {
struct StatusName {
    Status status;
    const char* name;
    int severity;
};
constexpr std::array<StatusName, 6> k_status_names{{
    {Status::Pass, "pass", 0},
    {Status::Info, "info", 1},
    {Status::Skip, "skip", 2},
    {Status::Warn, "warn", 3},
    {Status::Fail, "fail", 4},
    {Status::Error, "error", 5},
}};
}  // namespace

std::string to_string(Status s) {
    for (const auto& e : k_status_names) {
        if (e.status == s) {
            return e.name;
        }
    }
    return "error";
}

std::optional<Status> status_from_string(const std::string& s) {
    for (const auto& e : k_status_names) {
        if (s == e.name) {
            return e.status;
        }
    }
    return std::nullopt;
}

int severity(Status s) {
    for (const auto& e : k_status_names) {
        if (e.status == s) {
            return e.severity;
        }
    }
    return 5;
}

Status status_at_severity(int severity) {
    for (const auto& e : k_status_names) {
        if (e.severity == severity) {
            return e.status;
        }
    }
    return Status::Error;
}

Measurement single(std::string name, double value, std::string unit) {
    Measurement m;
    m.name = std::move(name);
    m.value = value;
    m.unit = std::move(unit);
    return m;
}

double median(std::vector<double> samples) {
    if (samples.empty()) {
        throw std::invalid_argument("median of no samples");
    }
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

Measurement summarize(const std::string& name, const std::string& unit, std::vector<double> samples) {
    Measurement m{name, std::nullopt, unit, static_cast<int>(samples.size()), std::nullopt, std::nullopt};
    if (!samples.empty()) {
        m.value = median(samples);
        m.min = *std::min_element(samples.begin(), samples.end());
        m.max = *std::max_element(samples.begin(), samples.end());
    }
    return m;
}

Measurement* CheckResult::find(const std::string& name) {
    for (auto& m : measurements) {
        if (m.name == name) {
            return &m;
        }
    }
    return nullptr;
}

namespace {
nlohmann::json optional_number(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
std::optional<double> number_or_null(const nlohmann::json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) {
        return std::nullopt;
    }
    return j.at(key).get<double>();
}
}  // namespace

void to_json(nlohmann::json& j, const Measurement& m) {
    j = {{"name", m.name}, {"value", optional_number(m.value)}, {"unit", m.unit},
         {"n", m.n},       {"min", optional_number(m.min)},     {"max", optional_number(m.max)}};
    if (m.direction) {
        j["direction"] = to_string(*m.direction);
    }
    if (m.role) {
        j["role"] = to_string(*m.role);
    }
    if (!m.samples.empty()) {
        j["samples"] = m.samples;
    }
}

void from_json(const nlohmann::json& j, Measurement& m) {
    m.name = j.at("name").get<std::string>();
    m.unit = j.value("unit", "");
    m.n = j.value("n", 1);
    m.value = number_or_null(j, "value");
    m.min = number_or_null(j, "min");
    m.max = number_or_null(j, "max");
    if (j.contains("direction") && j.at("direction").is_string()) {
        m.direction = direction_from_string(j.at("direction").get<std::string>());
    }
    if (j.contains("role") && j.at("role").is_string()) {
        m.role = role_from_string(j.at("role").get<std::string>());
    }
    if (j.contains("samples") && j.at("samples").is_array()) {
        m.samples = j.at("samples").get<std::vector<double>>();
    }
}

void to_json(nlohmann::json& j, const CheckResult& r) {
    j = {{"id", r.id},
         {"layer", r.layer},
         {"backend", r.backend.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.backend)},
         {"device", r.device ? nlohmann::json(*r.device) : nlohmann::json(nullptr)},
         {"status", to_string(r.status)},
         {"summary", r.summary},
         {"remediation", r.remediation.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.remediation)},
         {"attribution", r.attribution.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.attribution)},
         {"measurements", r.measurements},
         {"facts", r.facts},
         {"expectation", r.expectation},
         {"duration_s", r.duration_s}};
    if (r.timing_sensitive) {
        j["timing_sensitive"] = *r.timing_sensitive;
    }
    if (!r.disturbance.is_null()) {
        j["disturbance"] = r.disturbance;
    }
}

void from_json(const nlohmann::json& j, CheckResult& r) {
    r.id = j.at("id").get<std::string>();
    r.layer = j.at("layer").get<std::string>();
    r.backend = j.contains("backend") && j.at("backend").is_string() ? j.at("backend").get<std::string>() : "";
    if (j.contains("device") && j.at("device").is_number_integer()) {
        r.device = j.at("device").get<int>();
    }
    const auto status = status_from_string(j.at("status").get<std::string>());
    if (!status) {
        throw std::invalid_argument("unknown status '" + j.at("status").get<std::string>() + "'");
    }
    r.status = *status;
    r.summary = j.value("summary", "");
    r.remediation =
        j.contains("remediation") && j.at("remediation").is_string() ? j.at("remediation").get<std::string>() : "";
    r.attribution =
        j.contains("attribution") && j.at("attribution").is_string() ? j.at("attribution").get<std::string>() : "";
    r.measurements = j.value("measurements", std::vector<Measurement>{});
    r.facts = j.value("facts", nlohmann::json::object());
    r.expectation = j.value("expectation", nlohmann::json::object());
    r.duration_s = j.value("duration_s", 0.0);
    if (j.contains("timing_sensitive") && j.at("timing_sensitive").is_boolean()) {
        r.timing_sensitive = j.at("timing_sensitive").get<bool>();
    }
    if (j.contains("disturbance") && j.at("disturbance").is_object()) {
        r.disturbance = j.at("disturbance");
    }
}

}  // namespace gpuconform
