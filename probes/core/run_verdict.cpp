#include "core/run_verdict.hpp"

#include "core/plural.hpp"

namespace gpuconform {

std::string to_string(Verdict v) {
    switch (v) {
        case Verdict::Pass:
            return "pass";
        case Verdict::Fail:
            return "fail";
        case Verdict::Inconclusive:
            return "inconclusive";
    }
    return "inconclusive";
}

std::optional<Verdict> verdict_from_string(const std::string& s) {
    if (s == "pass") {
        return Verdict::Pass;
    }
    if (s == "fail") {
        return Verdict::Fail;
    }
    // "interrupted" is what reports of schema 1.0-1.2 wrote for a stopped run.
    if (s == "inconclusive" || s == "interrupted") {
        return Verdict::Inconclusive;
    }
    return std::nullopt;
}

void VerdictTally::add(std::string_view id, Status s, bool disturbed) {
    switch (s) {
        case Status::Fail:
            ++(disturbed ? disturbed_failed : failed);
            break;
        case Status::Error:
            ++errored;
            break;
        case Status::Warn:
            ++(strict ? failed : judged);
            break;
        case Status::Pass:
        case Status::Info:
            ++judged;
            break;
        case Status::Skip:
            if (id.starts_with("acceptance.")) {
                ++acceptance_skipped;
            }
            break;
    }
}

VerdictTally tally_results(const std::vector<CheckResult>& results, bool interrupted, bool strict) {
    VerdictTally t;
    t.interrupted = interrupted;
    t.strict = strict;
    for (const auto& r : results) {
        t.add(r.id, r.status, !r.disturbance.is_null());
    }
    return t;
}

Verdict verdict_of(const VerdictTally& t) {
    if (t.failed > 0) {
        return Verdict::Fail;
    }
    if (t.interrupted || t.device_layer_missing || t.acceptance_skipped > 0 || t.errored > 0 ||
        t.disturbed_failed > 0 || t.judged == 0) {
        return Verdict::Inconclusive;
    }
    return Verdict::Pass;
}

std::string verdict_reason(const VerdictTally& t) {
    std::string out;
    const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
    if (t.interrupted) {
        add("the run was interrupted");
    }
    if (t.device_layer_missing) {
        add("no device check was judged on a node with GPUs");
    }
    if (t.failed > 0) {
        add(count_of(t.failed, "check") + " failed");
    }
    if (t.errored > 0) {
        add(count_of(t.errored, "check") + " could not run (error)");
    }
    if (t.acceptance_skipped > 0) {
        add(count_of(t.acceptance_skipped, "acceptance part") + " skipped: the node was not fully accepted");
    }
    if (t.disturbed_failed > 0) {
        add(count_of(t.disturbed_failed, "failure") +
            " measured while disturbed (another GPU user, a tool, or a link whose rate moved)");
    }
    if (out.empty()) {
        out = t.judged == 0 ? "no check was judged (all skipped)"
                            : count_of(t.judged, "check") + " judged" + ", none failed";
    }
    return out;
}

}  // namespace gpuconform
