// Many reports read in parallel into compact entries: interned ids and statuses, never the
// documents themselves. Broken inputs are kept as `rejected` with a reason; the rest go on.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>
#include <optional>

#include "reports/report_scan.hpp"

namespace gpuconform {

class StringTable {
public:
    std::uint32_t intern(std::string_view s);
    const std::string& at(std::uint32_t id) const { return m_strings[id]; }
    std::size_t size() const { return m_strings.size(); }

private:
    std::unordered_map<std::string, std::uint32_t> m_ids;
    std::vector<std::string> m_strings;
};

struct Rejected {
    std::string path;
    std::string reason;
};

struct ResultEntry {
    std::uint32_t label;  // into ReportSet::labels: join_pair(id, device)
    Status status;
    bool disturbed = false;  // another GPU user moved its figures (the result's `disturbance`)
};

struct MeasurementEntry {
    std::uint32_t label;  // the result it belongs to
    std::uint32_t name;   // into ReportSet::measures: join_pair(name, unit)
    double value;
    double lo;  // the measurement's own min..max (value when the report kept none)
    double hi;
    int n;
    std::optional<Direction> direction;  // as the report says; unset in reports before 1.1
    std::optional<Role> role;
    std::vector<double> repetitions;  // `samples` of a `run --repeat` report; empty otherwise
};

// A result someone should look at (warn, fail, error), with the summary the scan kept for it.
struct RunProblem {
    std::uint32_t label;  // into ReportSet::labels
    Status status;
    std::string summary;
    std::string disturbance;  // the result's optional disturbance.summary; "" when undisturbed
    std::string remediation;
};

struct RunEntry {
    std::string path;
    std::string run_id;
    bool interrupted = false;  // run.interrupted
    std::uint32_t groups = 0;  // into ReportSet::group_values
    std::vector<ResultEntry> results;
    std::vector<MeasurementEntry> measurements;
    nlohmann::json detail;             // fingerprint and results for drill-down; null unless asked for
    std::vector<RunProblem> problems;  // only when ReadOptions::problems
    std::vector<RunCause> causes;      // only when ReadOptions::problems
};

struct ReportSet {
    std::vector<RunEntry> runs;  // in path order; rejected and duplicated files left out
    std::vector<Rejected> rejected;
    StringTable labels;
    StringTable measures;
    std::vector<GroupValues> group_values;
    std::size_t files_seen = 0;
    // Read from a results store with ReadOptions::declines: its slow declines per node and key
    // figure (`store drift`'s array); null otherwise.
    nlohmann::json declines;

    const GroupValues& groups_of(const RunEntry& r) const { return group_values[r.groups]; }
};

struct ReadOptions {
    bool measurements = false;    // keep numeric measurements (diff, charts)
    std::size_t detail_runs = 0;  // keep drill-down detail for the first this-many runs
    unsigned threads = 0;         // 0: one per core
    bool problems = false;        // keep summaries, disturbances and causes of non-pass runs
    bool declines = false;        // from a store: its slow declines too (ReportSet::declines)
};

// Strings as one interned key that splits back exactly whatever bytes they hold: each as its
// length in decimal, ':', its bytes. (A separator byte would let a value that carries it spill
// into the next field: a \x1f in a distro name once moved a report under another kernel.)
std::string join_fields(std::initializer_list<std::string_view> fields);
std::vector<std::string> split_fields(std::string_view key);
// A label "id" + device or a measure name + unit as one key, and back.
inline std::string join_pair(std::string_view a, std::string_view b) { return join_fields({a, b}); }
std::pair<std::string, std::string> split_pair(const std::string& s);

// Expands files and folders (recursively, *.json) into a sorted list; missing paths are rejected.
std::vector<std::string> collect_report_paths(const std::vector<std::string>& inputs, std::vector<Rejected>& rejected);

ReportSet read_reports(const std::vector<std::string>& inputs, const ReadOptions& options);

// A report held as text (the results store keeps each report whole): `name` stands where a
// file's path would (rejections, the HTML drill-down).
struct NamedReport {
    std::string name;
    std::string text;
};
// The same reading as read_reports, from texts instead of files: the same scan, the same
// rejections (a duplicated run id included), so every view gives the same output from either.
ReportSet read_report_texts(std::vector<NamedReport> reports, const ReadOptions& options);

// The drill-down extract of one parsed report (environment, devices, results with summaries).
nlohmann::json report_detail(const nlohmann::json& doc);

}  // namespace gpuconform
