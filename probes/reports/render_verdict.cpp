// `render -f verdict`: one report's verdict as one JSON object, for scripts (the Slurm health
// check, the Kubernetes marker). The report was accepted by read_report_file (unknown statuses,
// wrong types and broken JSON are refused before this) and judged by the one rule
// (core/run_verdict.hpp) through read_report_problems, as every other view of one report.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "reports/render_report.hpp"
#include "reports/report_fields.hpp"
#include "reports/run_problems.hpp"

namespace gpuconform {

namespace {

// "async.copy.bandwidth cuda:0", or the id alone for a host or backend-wide result.
std::string result_name(const CheckResult& r) {
    const std::string device = device_of(r);
    return device.empty() ? r.id : r.id + " " + device;
}

bool disturbed(const CheckResult& r) { return !r.disturbance.is_null() && !r.disturbance.empty(); }

// The title of the first cause naming result `i`, else null.
nlohmann::json cause_title(const ReportProblems& p, std::size_t i) {
    for (std::size_t c = 0; c < p.causes.size(); ++c) {
        for (const std::size_t named : p.cause_results[c]) {
            if (named == i) {
                return p.causes[c].title;
            }
        }
    }
    return nullptr;
}

nlohmann::json result_json(const ReportProblems& p, std::size_t i) {
    const CheckResult& r = p.results[i];
    nlohmann::json disturbance = nullptr;
    if (disturbed(r)) {
        const auto s = r.disturbance.is_object() ? r.disturbance.find("summary") : r.disturbance.end();
        disturbance = s != r.disturbance.end() && s->is_string() ? *s : nlohmann::json("another GPU user");
    }
    return {{"name", result_name(r)},        {"check", r.id},        {"device", device_of(r)},
            {"status", to_string(r.status)}, {"summary", r.summary}, {"disturbance", disturbance},
            {"cause", cause_title(p, i)}};
}

// A PCI address in one form whichever way it was written: NVML's 8-digit domain
// ("00000000:00:06.0") and the runtime's 4-digit one ("0000:00:06.0") become "0:00:06.0".
std::string pci_key(std::string address) {
    std::transform(address.begin(), address.end(), address.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto colon = address.find(':');
    if (colon == std::string::npos) {
        return address;
    }
    const auto digits = address.find_first_not_of('0');
    const std::string domain = digits >= colon ? "0" : address.substr(digits, colon - digits);
    return domain + address.substr(colon);
}

const nlohmann::json* string_member(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) {
        return nullptr;
    }
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? &*it : nullptr;
}

// The PCI address of GPU `index` of `backend` as the report's device list names it, or "".
std::string device_address(const nlohmann::json& doc, const std::string& backend, int index) {
    const auto devices = doc.find("devices");
    if (devices == doc.end() || !devices->is_array()) {
        return "";
    }
    for (const auto& d : *devices) {
        const auto* b = string_member(d, "backend");
        const auto i = d.is_object() ? d.find("index") : d.end();
        const auto* pci = string_member(d, "pci_bus_id");
        if (b != nullptr && *b == backend && i != d.end() && i->is_number_integer() && i->get<int>() == index &&
            pci != nullptr) {
            return pci->get<std::string>();
        }
    }
    return "";
}

// UUIDs by PCI address, from the health layer's inventory (NVML's list of the node's GPUs).
std::map<std::string, std::string> uuids_by_address(const ReportProblems& p) {
    std::map<std::string, std::string> out;
    for (const CheckResult& r : p.results) {
        const auto gpus = r.facts.is_object() ? r.facts.find("gpus") : r.facts.end();
        if (r.id != "health.inventory" || gpus == r.facts.end() || !gpus->is_array()) {
            continue;
        }
        for (const auto& g : *gpus) {
            const auto* pci = string_member(g, "pci_bus_id");
            const auto* uuid = string_member(g, "uuid");
            if (pci != nullptr && uuid != nullptr) {
                out[pci_key(pci->get<std::string>())] = uuid->get<std::string>();
            }
        }
    }
    return out;
}

// The GPUs the undisturbed failures name, each once with its PCI address and UUID where the
// report has them, so a scheduler can mark the GPU rather than only the node.
nlohmann::json failing_gpus(const nlohmann::json& doc, const ReportProblems& p,
                            const std::vector<std::size_t>& failed) {
    const auto uuids = uuids_by_address(p);
    std::map<std::string, nlohmann::json> by_gpu;
    std::vector<std::string> order;
    for (const std::size_t i : failed) {
        const CheckResult& r = p.results[i];
        if (!r.device) {
            continue;
        }
        const std::string gpu = device_of(r);
        const auto* own_pci = string_member(r.facts, "pci_bus_id");
        const std::string pci =
            own_pci != nullptr ? own_pci->get<std::string>() : device_address(doc, r.backend, *r.device);
        // One GPU by its address: the health layer numbers GPUs as NVML does, the device layer as
        // the runtime does, and the two orders can differ.
        const std::string key = pci.empty() ? gpu : pci_key(pci);
        auto [it, fresh] = by_gpu.try_emplace(key);
        if (fresh) {
            order.push_back(key);
            const auto* own_uuid = string_member(r.facts, "uuid");
            const auto known = pci.empty() ? uuids.end() : uuids.find(pci_key(pci));
            it->second = {{"gpu", gpu},
                          {"backend", r.backend},
                          {"index", *r.device},
                          {"pci_bus_id", pci.empty() ? nlohmann::json(nullptr) : nlohmann::json(pci)},
                          {"uuid", own_uuid != nullptr    ? *own_uuid
                                   : known != uuids.end() ? nlohmann::json(known->second)
                                                          : nlohmann::json(nullptr)},
                          {"checks", nlohmann::json::array()}};
        }
        it->second["checks"].push_back(r.id);
    }
    nlohmann::json out = nlohmann::json::array();
    for (const auto& key : order) {
        out.push_back(by_gpu.at(key));
    }
    return out;
}

}  // namespace

nlohmann::json report_verdict_json(const nlohmann::json& doc) {
    const ReportProblems p = read_report_problems(doc);
    std::vector<std::size_t> failed, unsure;
    for (std::size_t i = 0; i < p.results.size(); ++i) {
        const CheckResult& r = p.results[i];
        if (r.status == Status::Fail && !disturbed(r)) {
            failed.push_back(i);
        } else if (r.status == Status::Error || r.status == Status::Fail) {
            unsure.push_back(i);
        }
    }
    // The result that decided: the first undisturbed failure, else the first error or disturbed one.
    nlohmann::json deciding = nullptr;
    if (p.verdict == Verdict::Fail && !failed.empty()) {
        deciding = result_json(p, failed.front());
    } else if (p.verdict == Verdict::Inconclusive && !unsure.empty()) {
        deciding = result_json(p, unsure.front());
    }
    nlohmann::json failing = nlohmann::json::array();
    for (const std::size_t i : failed) {
        failing.push_back(result_name(p.results[i]));
    }
    nlohmann::json inconclusive = nlohmann::json::array();
    for (const std::size_t i : unsure) {
        inconclusive.push_back(result_name(p.results[i]));
    }
    return {{"schema", "gpuconform-verdict"},
            {"schema_version", "1.0"},
            {"verdict", to_string(p.verdict)},
            {"reason", p.reason},
            {"host", string_at(doc, "/environment/hostname")},
            {"run_id", string_at(doc, "/run/id")},
            {"interrupted", p.tally.interrupted},
            {"judged", p.tally.judged},
            {"deciding", deciding},
            {"failing", failing},
            {"failing_gpus", failing_gpus(doc, p, failed)},
            {"inconclusive", inconclusive}};
}

}  // namespace gpuconform
