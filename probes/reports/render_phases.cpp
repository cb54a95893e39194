#include "reports/render_phases.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

struct Row {
    std::string name;
    double start_s = 0;
    double duration_s = 0;
};

// Only well-typed entries: a report is outside input.
std::vector<Row> rows_of(const nlohmann::json& phases) {
    std::vector<Row> out;
    if (!phases.is_array()) {
        return out;
    }
    for (const auto& p : phases) {
        if (p.is_object() && p.value("name", nlohmann::json()).is_string() &&
            p.value("start_s", nlohmann::json()).is_number() && p.value("duration_s", nlohmann::json()).is_number()) {
            out.push_back({p["name"].get<std::string>(), p["start_s"].get<double>(), p["duration_s"].get<double>()});
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Row& a, const Row& b) { return a.start_s < b.start_s; });
    return out;
}

double overlap(const Row& a, const Row& b) {
    return std::max(0.0, std::min(a.start_s + a.duration_s, b.start_s + b.duration_s) - std::max(a.start_s, b.start_s));
}

constexpr std::size_t k_slowest_checks = 8;

}  // namespace

double framework_overlap_s(const nlohmann::json& phases) {
    const auto rows = rows_of(phases);
    double total = 0;
    for (const auto& device : rows) {
        if (device.name != "device.checks") {
            continue;
        }
        for (const auto& r : rows) {
            if (r.name == "framework.python_start" || r.name == "framework.torch_import" ||
                r.name == "framework.gpu_start") {
                total += overlap(device, r);
            }
        }
    }
    return total;
}

std::string render_phases(const nlohmann::json& report) {
    const nlohmann::json run = report.is_object() ? report.value("run", nlohmann::json::object()) : nlohmann::json();
    const nlohmann::json phases = run.is_object() ? run.value("phases", nlohmann::json()) : nlohmann::json();
    if (!phases.is_array()) {
        return "timings: this report has no run.phases (written before report schema 1.2)\n";
    }
    std::string out = fmt::format("\n{:<34} {:>9} {:>10}\n", "phase", "start s", "seconds");
    // Worker starts can be many (after a crash, a hang or an isolated check): one line each name, summed.
    std::map<std::string, std::pair<int, double>> repeated;
    for (const auto& r : rows_of(phases)) {
        if (r.name.rfind("worker.", 0) == 0) {
            auto& [count, seconds] = repeated[r.name];
            if (count++ > 0) {
                seconds += r.duration_s;
                continue;
            }
            seconds = r.duration_s;
        }
        out += fmt::format("{:<34} {:>9.3f} {:>10.3f}\n", terminal_safe(r.name), r.start_s, r.duration_s);
    }
    for (const auto& [name, counted] : repeated) {
        if (counted.first > 1) {
            out += fmt::format("{:<34} {:>9} {:>10.3f}  ({} starts in all)\n", terminal_safe(name), "", counted.second,
                               counted.first);
        }
    }
    std::optional<double> child_start;
    std::optional<double> device_start;
    for (const auto& r : rows_of(phases)) {
        if (r.name == "framework.child" && !child_start) {
            child_start = r.start_s;
        } else if (r.name == "device.checks" && !device_start) {
            device_start = r.start_s;
        }
    }
    if (child_start && device_start) {
        out += fmt::format("framework layer started {} the device checks\n",
                           *child_start < *device_start ? "before" : "after");
    }
    if (const double shared = framework_overlap_s(phases); shared > 0) {
        out += fmt::format("framework start-up ran {:.3f} s alongside the device checks\n", shared);
    }
    // Each result carries its own duration: the slowest checks, and each layer's sum.
    std::vector<std::pair<double, std::string>> checks;
    std::map<std::string, double> by_layer;
    for (const auto& r : report.value("results", nlohmann::json::array())) {
        if (!r.is_object() || !r.value("duration_s", nlohmann::json()).is_number()) {
            continue;
        }
        const double d = r["duration_s"].get<double>();
        std::string label = r.value("id", nlohmann::json()).is_string() ? r["id"].get<std::string>() : "?";
        if (r.value("device", nlohmann::json()).is_number_integer() &&
            r.value("backend", nlohmann::json()).is_string()) {
            label += fmt::format(" [{}:{}]", r["backend"].get<std::string>(), r["device"].get<int>());
        }
        checks.emplace_back(d, label);
        by_layer[r.value("layer", nlohmann::json()).is_string() ? r["layer"].get<std::string>() : "?"] += d;
    }
    std::sort(checks.begin(), checks.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (!checks.empty()) {
        out += fmt::format("\n{:<58} {:>10}\n", "slowest checks", "seconds");
        for (std::size_t i = 0; i < std::min(checks.size(), k_slowest_checks); ++i) {
            out += fmt::format("{:<58} {:>10.3f}\n", terminal_safe(checks[i].second), checks[i].first);
        }
        std::string sums;
        for (const auto& [layer, seconds] : by_layer) {
            sums += fmt::format("{}{} {:.3f} s", sums.empty() ? "" : " · ", terminal_safe(layer), seconds);
        }
        out += "checks by layer: " + sums + "\n";
    }
    if (run.is_object() && run.value("duration_s", nlohmann::json()).is_number()) {
        out += fmt::format("run: {:.3f} s\n", run["duration_s"].get<double>());
    }
    return out;
}

}  // namespace gpuconform
