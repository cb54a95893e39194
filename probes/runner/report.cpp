#include "runner/report.hpp"

#include "checks/declarations.hpp"
#include "core/run_verdict.hpp"
#include "host/environment_reader.hpp"

#include <chrono>
#include <ctime>
#include <random>

#include <fmt/format.h>

namespace gpuconform {

namespace {

std::string utc_format(const char* pattern) {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, pattern, &tm);
    return buf;
}

nlohmann::json version_or_null(const BackendInfo& b, const ApiResult& status, int encoded) {
    if (!b.loaded || !status.ok() || encoded <= 0) {
        return nullptr;
    }
    return format_version(b.name, encoded);
}

nlohmann::json backend_json(const BackendInfo& b) {
    return {
        {"name", b.name},
        {"module_path", b.module_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.module_path)},
        {"loaded", b.loaded},
        {"load_error", b.load_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.load_error)},
        {"driver_version", version_or_null(b, b.versions.driver_status, b.versions.driver_version)},
        {"runtime_version", version_or_null(b, b.versions.runtime_status, b.versions.runtime_version)},
        {"device_count", b.loaded && b.count_status.ok() ? nlohmann::json(b.device_count) : nlohmann::json(nullptr)}};
}

nlohmann::json device_json(const BackendInfo& b, int index, const DeviceProps& p, const Environment& env) {
    nlohmann::json d = p;
    d["backend"] = b.name;
    d["index"] = index;
    d["vendor"] = b.vendor;
    d["link"] = nullptr;
    for (const auto& gpu : env.pci_gpus) {
        if (!p.pci_bus_id.empty() && gpu.bdf == p.pci_bus_id) {
            d["link"] = gpu;
        }
    }
    return d;
}

}  // namespace

std::string utc_now_iso() { return utc_format("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_now_compact() { return utc_format("%Y%m%dT%H%M%SZ"); }

std::string new_run_id() {
    std::random_device rd;
    return fmt::format("{}-{:08x}", utc_now_compact(), rd());
}

int exit_status_for(const std::vector<CheckResult>& results, bool strict, bool interrupted) {
    if (interrupted) {
        return 130;
    }
    for (const auto& r : results) {
        if (r.status == Status::Fail || r.status == Status::Error || (strict && r.status == Status::Warn)) {
            return 1;
        }
    }
    return 0;
}

nlohmann::json build_report(const RunRecord& run) {
    nlohmann::json backends = nlohmann::json::array();
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& b : run.backends) {
        backends.push_back(backend_json(b));
        for (std::size_t i = 0; i < b.devices.size(); ++i) {
            if (i < b.device_errors.size() && !b.device_errors[i].ok()) {
                continue;  // properties unreadable: the runtime layer reports it
            }
            devices.push_back(device_json(b, static_cast<int>(i), b.devices[i], run.env));
        }
    }
    nlohmann::json summary = {{"pass", 0}, {"fail", 0}, {"warn", 0}, {"skip", 0}, {"error", 0}, {"info", 0}};
    for (const auto& r : run.results) {
        summary[to_string(r.status)] = summary[to_string(r.status)].get<int>() + 1;
    }
    VerdictTally tally = tally_results(run.results, run.interrupted, run.strict);
    tally.device_layer_missing = run.device_layer_missing;
    summary["verdict"] = to_string(verdict_of(tally));
    summary["reason"] = verdict_reason(tally);
    // Every measurement says what it means, from its check's declarations (checks/declarations.hpp).
    std::vector<CheckResult> results = run.results;
    for (CheckResult& r : results) {
        for (Measurement& m : r.measurements) {
            if (const auto meaning = declared_meaning(r.id, m.name)) {
                m.direction = m.direction.value_or(meaning->direction);
                m.role = m.role.value_or(meaning->role);
            }
        }
    }
    nlohmann::json env = run.env;
    env["torch"] = run.torch;
    if (!run.framework_python.is_null()) {
        env["framework_python"] = run.framework_python;
    }
    if (!run.gpu_occupancy.is_null()) {
        env["gpu_occupancy"] = run.gpu_occupancy;
    }
    nlohmann::json report = {{"schema", "gpuconform-report"},
                             {"schema_version", k_report_schema_version},
                             {"tool", {{"name", "gpuconform"}, {"version", GPUCONFORM_VERSION}}},
                             {"run",
                              {{"id", run.run_id},
                               {"started", run.started},
                               {"finished", run.finished},
                               {"duration_s", run.duration_s},
                               {"command_line", run.command_line},
                               {"interrupted", run.interrupted},
                               {"exit_status", run.exit_status},
                               {"profile_sources", run.profile_sources},
                               {"layers", run.layers},
                               {"phases", run.phases}}},
                             {"environment", env},
                             {"backends", backends},
                             {"devices", devices},
                             {"results", results},
                             {"summary", summary}};
    if (!run.causes.is_null()) {
        report["causes"] = run.causes;
    }
    return report;
}

}  // namespace gpuconform
