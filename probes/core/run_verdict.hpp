// The one rule that turns a run's results into the verdict a person acts on. Every view says it
// in these words (README "Words"): the terminal's last line, the report's `summary.verdict`, the
// HTML pages, the fleet and acceptance views.
//   pass          something was judged and nothing failed or errored
//   fail          a check failed on an undisturbed measurement: the install or the hardware is wrong
//   inconclusive  could not judge: the run was interrupted, a check errored, a failure was measured
//                 while another GPU user disturbed it (or on a link whose rate moved), a part of
//                 the acceptance layer was skipped (acceptance is never partial), or nothing was
//                 judged at all
// A fail outranks inconclusive: one undisturbed failure is enough to act on.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace gpuconform {

enum class Verdict { Pass, Fail, Inconclusive };

std::string to_string(Verdict v);
std::optional<Verdict> verdict_from_string(const std::string& s);

// Counts of one run's results; fill it with add() and judge it with verdict_of().
struct VerdictTally {
    std::size_t failed = 0;            // fail, undisturbed (and warn under --strict)
    std::size_t disturbed_failed = 0;  // fail measured while another GPU user was there
    std::size_t errored = 0;
    std::size_t judged = 0;  // pass, warn, info
    bool interrupted = false;
    bool strict = false;
    // A node with GPUs on its bus where no device check was judged (every one skipped or not
    // run): the run is incomplete, never a pass.
    bool device_layer_missing = false;
    // Acceptance parts skipped (no reading, no device support): the hardware was not fully loaded
    // and watched, so the run cannot accept the node.
    std::size_t acceptance_skipped = 0;

    void add(std::string_view id, Status s, bool disturbed);
};

Verdict verdict_of(const VerdictTally& t);

// The tally of a run's own results (a result with a `disturbance` is a disturbed one).
VerdictTally tally_results(const std::vector<CheckResult>& results, bool interrupted, bool strict);

// Why, in a few words: "2 checks failed", "1 check could not run (error)", "the run was interrupted".
std::string verdict_reason(const VerdictTally& t);

}  // namespace gpuconform
