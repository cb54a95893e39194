#include "reports/report_set.hpp"

#include <algorithm>
#include <atomic>

#include <filesystem>
#include <functional>
#include <thread>
#include <unordered_set>

#include "core/input_file.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

namespace {

// Members of `object` that are not null: a view's value(key, fallback) then gets its fallback
// instead of throwing on a null the writer put there for "not known".
nlohmann::json without_nulls(const nlohmann::json& object) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : object.items()) {
        if (!value.is_null()) {
            out[key] = value;
        }
    }
    return out;
}

}  // namespace

// Only what read_report_file type-checked reaches the HTML page: the scan refused wrong types in
// the fields kept here, and what it merely skips (a measurement that is no object, a list that is
// no list) is dropped, so no view meets a type it does not expect.
nlohmann::json report_detail(const nlohmann::json& doc) {
    nlohmann::json results = nlohmann::json::array();
    for (const auto& r : doc.value("results", nlohmann::json::array())) {
        nlohmann::json keep = nlohmann::json::object();
        for (const char* k : {"id", "backend", "device", "status", "summary", "remediation"}) {
            if (r.contains(k)) {
                keep[k] = r[k];
            }
        }
        keep["measurements"] = nlohmann::json::array();
        if (r.contains("measurements") && r["measurements"].is_array()) {
            for (const auto& m : r["measurements"]) {
                if (m.is_object()) {
                    keep["measurements"].push_back(without_nulls(m));
                }
            }
        }
        if (r.contains("facts") && r["facts"].is_object() && r["facts"].contains("timeline") &&
            r["facts"]["timeline"].is_array()) {
            keep["timeline"] = r["facts"]["timeline"];
        }
        results.push_back(std::move(keep));
    }
    nlohmann::json environment = doc.value("environment", nlohmann::json::object());
    if (environment.contains("pci_gpus") && environment["pci_gpus"].is_array()) {
        nlohmann::json gpus = nlohmann::json::array();
        for (const auto& g : environment["pci_gpus"]) {
            gpus.push_back(without_nulls(g));
        }
        environment["pci_gpus"] = std::move(gpus);
    }
    return {{"run_id", doc.value("/run/id"_json_pointer, "")},
            {"environment", std::move(environment)},
            {"backends", doc.value("backends", nlohmann::json::array())},
            {"devices", doc.value("devices", nlohmann::json::array())},
            {"results", std::move(results)}};
}

namespace {

// A report is read as every input file is (core/input_file), within the report's own bound.
bool read_regular_file(const std::string& path, std::string& text, std::string& error) {
    std::optional<std::string> read = read_input_file(path, k_max_report_bytes, error);
    if (!read) {
        return false;
    }
    text = std::move(*read);
    if (text.empty()) {
        error = "empty file";
        return false;
    }
    return true;
}

// What one worker thread produced: entries with ids local to its own tables.
struct WorkerTables {
    StringTable labels;
    StringTable measures;
    StringTable groups;
};

std::string join_groups(const GroupValues& g) {
    std::string out;
    for (const auto& v : g) {
        out += join_fields({v});
    }
    return out;
}

// Reads input `i` into `text` and scans it: a file (read_report_file) or a stored report's text.
using ReportLoader = std::function<std::optional<ScannedReport>(std::size_t i, bool measurements, std::string& text,
                                                                std::string& error)>;

void scan_one(const std::string& path, const ReportLoader& load, std::size_t i, std::string& text, bool keep_detail,
              const ReadOptions& o, WorkerTables& t, RunEntry& entry, std::string& error) {
    auto scanned = load(i, o.measurements, text, error);
    if (!scanned) {
        return;
    }
    entry.path = path;
    entry.run_id = std::move(scanned->run_id);
    entry.interrupted = scanned->interrupted;
    entry.groups = t.groups.intern(join_groups(scanned->groups));
    entry.results.reserve(scanned->results.size());
    for (ScannedResult& r : scanned->results) {
        const std::uint32_t label = t.labels.intern(join_pair(r.id, r.device));
        entry.results.push_back({label, r.status, r.disturbed});
        if (o.problems && severity(r.status) > severity(Status::Info)) {
            entry.problems.push_back(
                {label, r.status, std::move(r.summary), std::move(r.disturbance), std::move(r.remediation)});
        }
        for (const ScannedMeasurement& m : r.measurements) {
            entry.measurements.push_back({label, t.measures.intern(join_pair(m.name, m.unit)), m.value,
                                          std::min(m.value, m.min.value_or(m.value)),
                                          std::max(m.value, m.max.value_or(m.value)), std::max(m.n, 1),
                                          direction_from_string(m.direction), role_from_string(m.role), m.samples});
        }
    }
    if (!entry.problems.empty()) {  // a clean run's causes (folded skips) are not shown
        entry.causes = std::move(scanned->causes);
    }
    // The HTML page's few detailed runs are the one place a whole document tree is built.
    if (keep_detail) {
        entry.detail = report_detail(nlohmann::json::parse(text));
    }
}

// Rewrites worker-local ids into the set's shared tables.
void merge_ids(std::vector<RunEntry>& runs, const std::vector<unsigned>& owner, const std::vector<std::string>& errors,
               std::vector<WorkerTables>& workers, ReportSet& set) {
    StringTable groups;
    std::vector<std::vector<std::uint32_t>> label_map(workers.size()), measure_map(workers.size()),
        group_map(workers.size());
    for (std::size_t w = 0; w < workers.size(); ++w) {
        for (std::uint32_t i = 0; i < workers[w].labels.size(); ++i) {
            label_map[w].push_back(set.labels.intern(workers[w].labels.at(i)));
        }
        for (std::uint32_t i = 0; i < workers[w].measures.size(); ++i) {
            measure_map[w].push_back(set.measures.intern(workers[w].measures.at(i)));
        }
        for (std::uint32_t i = 0; i < workers[w].groups.size(); ++i) {
            group_map[w].push_back(groups.intern(workers[w].groups.at(i)));
        }
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!errors[i].empty()) {
            continue;
        }
        const unsigned w = owner[i];
        runs[i].groups = group_map[w][runs[i].groups];
        for (auto& r : runs[i].results) {
            r.label = label_map[w][r.label];
        }
        for (auto& p : runs[i].problems) {
            p.label = label_map[w][p.label];
        }
        for (auto& m : runs[i].measurements) {
            m.label = label_map[w][m.label];
            m.name = measure_map[w][m.name];
        }
    }
    for (std::uint32_t g = 0; g < groups.size(); ++g) {
        GroupValues values;
        const std::vector<std::string> fields = split_fields(groups.at(g));
        std::copy_n(fields.begin(), std::min(fields.size(), values.size()), values.begin());
        set.group_values.push_back(std::move(values));
    }
}

}  // namespace

std::optional<ScannedReport> read_report_file(const std::string& path, bool want_measurements, std::string& text,
                                              std::string& error) {
    if (!read_regular_file(path, text, error)) {
        return std::nullopt;
    }
    try {
        return scan_report(text, want_measurements, error);
    } catch (const std::exception& e) {  // the scan sets error itself; this is the last guard
        error = std::string("cannot be read: ") + e.what();
        return std::nullopt;
    }
}

namespace {

// Scans every input (named by `paths`: a file's path, or where a stored report came from) on
// worker threads; the rest of the roll-up cannot tell a file from a stored report.
void read_into(ReportSet& set, const std::vector<std::string>& paths, const ReportLoader& load,
               const ReadOptions& options) {
    set.files_seen = paths.size();
    const unsigned n_threads =
        std::max(1u, std::min<unsigned>(options.threads ? options.threads : std::thread::hardware_concurrency(),
                                        static_cast<unsigned>(paths.size() / 64 + 1)));
    std::vector<RunEntry> runs(paths.size());
    std::vector<std::string> errors(paths.size());
    std::vector<unsigned> owner(paths.size(), 0);
    std::vector<WorkerTables> workers(n_threads);
    std::atomic<std::size_t> next{0};
    auto work = [&](unsigned w) {
        std::string text;
        for (std::size_t i = next++; i < paths.size(); i = next++) {
            owner[i] = w;
            try {
                scan_one(paths[i], load, i, text, i < options.detail_runs, options, workers[w], runs[i], errors[i]);
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        }
    };
    std::vector<std::thread> threads;
    for (unsigned w = 1; w < n_threads; ++w) {
        threads.emplace_back(work, w);
    }
    work(0);
    for (auto& t : threads) {
        t.join();
    }
    merge_ids(runs, owner, errors, workers, set);
    std::unordered_map<std::string, std::string> first_path;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        if (!errors[i].empty()) {
            set.rejected.push_back({paths[i], errors[i]});
            continue;
        }
        const auto [it, fresh] = first_path.emplace(runs[i].run_id, paths[i]);
        if (!fresh) {
            set.rejected.push_back(
                {paths[i], "duplicate run id '" + runs[i].run_id + "' (first read from " + it->second + ")"});
            continue;
        }
        set.runs.push_back(std::move(runs[i]));
    }
}

}  // namespace

ReportSet read_reports(const std::vector<std::string>& inputs, const ReadOptions& options) {
    ReportSet set;
    const std::vector<std::string> paths = collect_report_paths(inputs, set.rejected);
    read_into(
        set, paths,
        [&](std::size_t i, bool measurements, std::string& text, std::string& error) {
            return read_report_file(paths[i], measurements, text, error);
        },
        options);
    return set;
}

ReportSet read_report_texts(std::vector<NamedReport> reports, const ReadOptions& options) {
    ReportSet set;
    std::vector<std::string> names;
    names.reserve(reports.size());
    for (const NamedReport& r : reports) {
        names.push_back(r.name);
    }
    read_into(
        set, names,
        [&](std::size_t i, bool measurements, std::string& text, std::string& error) -> std::optional<ScannedReport> {
            text = std::move(reports[i].text);
            return scan_report(text, measurements, error);
        },
        options);
    return set;
}

}  // namespace gpuconform
