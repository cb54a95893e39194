// What a check produces: measurements kept apart from the verdict (ARCHITECTURE.md, "How to add a check").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/measure_meaning.hpp"

namespace gpuconform {

enum class Status { Pass, Fail, Warn, Skip, Error, Info };

std::string to_string(Status s);
std::optional<Status> status_from_string(const std::string& s);
// Higher is worse: pass < info < skip < warn < fail < error.
int severity(Status s);
Status status_at_severity(int severity);  // the inverse; error for a severity no status has

// One measured quantity. `value` is the median when there were several samples;
// "not measured" is an empty optional (null in JSON), never a string.
struct Measurement {
    std::string name;
    std::optional<double> value;
    std::string unit;
    int n = 1;
    std::optional<double> min;
    std::optional<double> max;
    // What the value means; the runner fills these from the check's declared meaning when a check
    // (or the Python layer) did not say.
    std::optional<Direction> direction{};
    std::optional<Role> role{};
    std::vector<double> samples{};  // `run --repeat N`: each repetition's value, in run order
};

// One measured value (n = 1): a count, a size, a setting, a figure that is not a series.
Measurement single(std::string name, double value, std::string unit);

// Builds a Measurement from samples: median, min, max, n.
Measurement summarize(const std::string& name, const std::string& unit, std::vector<double> samples);
double median(std::vector<double> samples);

struct CheckResult {
    std::string id;
    std::string layer;
    std::string backend;        // "cuda", "hip", "sim"; empty for host checks
    std::optional<int> device;  // device index within the backend, for per-device checks
    Status status = Status::Error;
    std::string summary;      // one line a person can act on
    std::string remediation;  // what to change, when not pass
    std::string attribution;  // "", "host", "runtime", "framework"
    std::vector<Measurement> measurements;
    nlohmann::json facts = nlohmann::json::object();        // non-numeric observations
    nlohmann::json expectation = nlohmann::json::object();  // what the verdict was judged against
    double duration_s = 0.0;
    // Whether another GPU user can disturb this verdict (set from the CheckDef for device checks).
    std::optional<bool> timing_sensitive;
    // Who else used the GPU during the measurement (the report's `disturbance`); null when nobody.
    nlohmann::json disturbance;

    Measurement* find(const std::string& name);
};

void to_json(nlohmann::json& j, const Measurement& m);
void from_json(const nlohmann::json& j, Measurement& m);
void to_json(nlohmann::json& j, const CheckResult& r);
void from_json(const nlohmann::json& j, CheckResult& r);

}  // namespace gpuconform
