#include "run_problems.hpp"

#include "report_fields.hpp"

namespace gpuconform {

namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

void read_run_problems(const nlohmann::json& doc, StringTable& labels, RunEntry& entry) {
    for (const auto& j : doc.value("results", nlohmann::json::array())) {
        if (!j.is_object() || !j.contains("id")) {
            continue;
        }
        const CheckResult r = result_from_json_lenient(j);
        if (severity(r.status) <= severity(Status::Info)) {
            continue;
        }
        const std::string device =
            r.device ? (r.backend.empty() ? "device" : r.backend) + ":" + std::to_string(*r.device) : "";
        RunProblem p{labels.intern(r.id + '\x1f' + device), r.status, r.summary, ""};
        if (const auto d = j.find("disturbance"); d != j.end() && d->is_object()) {
            p.disturbance = text_of(*d, "summary");
            if (p.disturbance.empty()) {
                p.disturbance = "another GPU user";
            }
        }
        entry.problems.push_back(std::move(p));
    }
    const auto causes = doc.find("causes");
    if (causes == doc.end() || !causes->is_array()) {
        return;
    }
    for (const auto& c : *causes) {
        if (!c.is_object()) {
            continue;
        }
        RunCause cause{text_of(c, "id"), text_of(c, "kind"), text_of(c, "title"), text_of(c, "fix"), {}};
        for (const auto& r : c.value("results", nlohmann::json::array())) {
            if (r.is_string()) {
                cause.results.push_back(r.get<std::string>());
            }
        }
        if (cause.title.empty()) {
            cause.title = cause.id.empty() ? cause.kind : cause.id;
        }
        entry.causes.push_back(std::move(cause));
    }
}

bool cause_names_label(const std::string& cause_result, const std::string& label) {
    const std::size_t sep = label.find('\x1f');
    const std::string id = label.substr(0, sep);
    const std::string device = sep == std::string::npos ? "" : label.substr(sep + 1);
    if (cause_result == id) {
        return true;
    }
    return !device.empty() && cause_result == id + "[" + device + "]";
}

}  // namespace gpuconform
