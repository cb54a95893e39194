// A verdict per node and the root causes across a fleet: what the operator acts on first.
// A node's verdict is the one rule of core/run_verdict.hpp (pass, fail, inconclusive) over its
// results; each root cause says what its nodes have in common (fleet_traits.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/run_verdict.hpp"
#include "reports/matrix.hpp"
#include "reports/report_set.hpp"

namespace gpuconform {

struct NodeVerdict {
    std::uint32_t run = 0;  // into ReportSet::runs and Matrix::run_hosts
    std::string host;
    std::string group;  // distro · GPU, whatever the matrix is grouped by
    Status worst = Status::Pass;
    Verdict verdict = Verdict::Pass;
    bool disturbed = false;             // some result carries a `disturbance`
    std::vector<std::uint32_t> causes;  // into Fleet::causes
    std::string reason;                 // one line
};

// A root cause: a report's `causes` entry, or, for problems no cause explains, the check that failed.
struct FleetCause {
    std::string id;
    std::string kind;  // the cause's kind, or "check" when grouped by check
    std::string title;
    std::string fix;     // the cause's; for a check, its results' most common remediation
    std::string traits;  // what its nodes share and what sets them apart (traits_line)
    std::vector<std::uint32_t> runs;
};

struct Fleet {
    std::vector<NodeVerdict> nodes;  // one per run, in run order
    std::size_t failed = 0;          // verdict fail
    std::size_t inconclusive = 0;    // verdict inconclusive
    std::size_t disturbed = 0;       // nodes whose measurement another GPU user disturbed
    std::vector<FleetCause> causes;  // most nodes first
    std::size_t passed() const { return nodes.size() - failed - inconclusive; }
};

// Needs a set read with ReadOptions::problems for summaries, disturbances and causes; without
// them the reasons name the checks and causes are grouped by check.
Fleet build_fleet(const ReportSet& set);

// A cause's title with what its nodes share: "framework.torch.non_blocking_h2d failed — every AMD
// Instinct MI250X node (197 of 197); ...". The acceptance record's root-cause column.
std::string cause_text(const FleetCause& c);

// The acceptance record: one line per node, fail and inconclusive first (terminal), or every node as CSV.
std::string render_acceptance_terminal(const Fleet& f, const std::vector<Rejected>& rejected, bool colour);
std::string render_acceptance_csv(const Fleet& f, const std::vector<Rejected>& rejected);

}  // namespace gpuconform
