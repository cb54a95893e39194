// Reads the few fields the roll-up needs from one report's text. simdjson validates the whole
// text (skipped members too) at GB/s and the walk copies out only what the roll-up uses, which is
// what lets 100,000 reports roll up in seconds (reports/bench/README.md).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace gpuconform {

// The keys reports can be grouped by (`--by`), in this order everywhere.
enum class GroupKey { Distro, Kernel, Driver, Runtime, Torch, Gpu, Host };
inline constexpr std::array<const char*, 7> k_group_key_names{"distro", "kernel", "driver", "runtime",
                                                              "torch",  "gpu",    "host"};
std::optional<GroupKey> group_key_from_string(std::string_view s);
using GroupValues = std::array<std::string, k_group_key_names.size()>;

struct ScannedMeasurement {
    std::string name;
    std::string unit;
    double value = 0.0;
    std::optional<double> min;  // the measurement's own spread, when it had several samples
    std::optional<double> max;
    int n = 1;
    std::string direction;        // "higher", "lower", "none"; empty in reports before schema 1.1
    std::string role;             // "key", "diagnostic"; empty likewise
    std::vector<double> samples;  // `run --repeat`: each repetition's value
};

struct ScannedResult {
    std::string id;
    std::string device;  // "cuda:0", or "" for host and backend-wide checks
    Status status = Status::Error;
    bool disturbed = false;  // carries `disturbance`: another GPU user moved its figures
    std::vector<ScannedMeasurement> measurements;
    // Kept only for results worth a look (warn, fail, error): what the fleet view and diff say.
    std::string summary;
    std::string disturbance;  // the disturbance's summary ("another GPU user" when it has none)
    std::string remediation;  // what to do about it: the fix of a root cause grouped by check
};

// One entry of the report's optional top-level `causes` (schema 1.x, additive).
struct RunCause {
    std::string id;
    std::string kind;
    std::string title;  // the id (else the kind) when the report gives none
    std::string fix;
    std::vector<std::string> results;  // "<check id>" or "<check id>[<backend>:<device>]"
};

struct ScannedReport {
    std::string run_id;
    std::string started;       // run.started as written (UTC, "2026-11-29T15:59:24Z"); "" when absent
    bool interrupted = false;  // run.interrupted: the run stopped early, so its verdict is inconclusive
    GroupValues groups;        // indexed by GroupKey
    std::string link;          // the first GPU's trained PCIe link, "32 GT/s x16"; "" when not read
    std::string profile;       // run.profile_sources joined with " + " ("built-in profile")
    std::vector<ScannedResult> results;
    std::vector<RunCause> causes;
};

// Bounds on what a report may be: larger or deeper text is rejected before it is parsed.
inline constexpr std::size_t k_max_report_bytes = std::size_t{256} << 20;
inline constexpr std::size_t k_max_report_depth = 64;
inline constexpr double k_max_device_index = 1 << 20;

// "" when `text` is within the bounds above; else why not.
std::string report_text_problem(std::string_view text);

// The one acceptance test for a report file, used by matrix, diff and render alike: reads the
// file (a regular file only, never a FIFO or device; bounded size) and scans it. Sets `text` to
// the file's contents and returns the scan, or nullopt with the reason in `error`.
std::optional<ScannedReport> read_report_file(const std::string& path, bool want_measurements, std::string& text,
                                              std::string& error);

// Parses `text`; the whole text must be valid JSON. The fields read are type-checked (a string id and status, an
// integer device in range, a numeric value); a wrong type rejects the report, naming the field. Returns the report, or
// sets `error` to why it cannot be rolled up (not JSON, truncated, not a gpuconform report, unknown schema major
// version, a result without id/status). Measurements are kept only when `want_measurements`.
std::optional<ScannedReport> scan_report(std::string_view text, bool want_measurements, std::string& error);

// "id" or "id [cuda:0]": how a result is named when devices are told apart.
std::string result_label(const std::string& id, const std::string& device);

}  // namespace gpuconform
