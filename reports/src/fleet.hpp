// A verdict per node and the root causes across a fleet: what the operator acts on first.
// A node is rejected when any of its results is fail or error; warn is accepted with a note.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "matrix.hpp"
#include "report_set.hpp"

namespace gpuconform {

struct NodeVerdict {
    std::uint32_t run = 0;  // into ReportSet::runs and Matrix::run_hosts
    std::string host;
    std::string group;  // distro · GPU, whatever the matrix is grouped by
    Status worst = Status::Pass;
    bool accepted = true;
    bool disturbed = false;             // some result carries a `disturbance`
    std::vector<std::uint32_t> causes;  // into Fleet::causes
    std::string reason;                 // one line
};

// A root cause: a report's `causes` entry, or, for problems no cause explains, the check that failed.
struct FleetCause {
    std::string id;
    std::string kind;  // the cause's kind, or "check" when grouped by check
    std::string title;
    std::string fix;
    std::vector<std::uint32_t> runs;
};

struct Fleet {
    std::vector<NodeVerdict> nodes;  // one per run, in run order
    std::size_t failed = 0;          // nodes with a fail
    std::size_t errored = 0;         // nodes with an error and no fail
    std::size_t disturbed = 0;       // nodes whose measurement another GPU user disturbed
    std::vector<FleetCause> causes;  // most nodes first
    std::size_t rejected_nodes() const { return failed + errored; }
};

// Needs a set read with ReadOptions::problems for summaries, disturbances and causes; without
// them the reasons name the checks and causes are grouped by check.
Fleet build_fleet(const ReportSet& set);

// The acceptance record: one line per node, rejected first (terminal), or every node as CSV.
std::string render_acceptance_terminal(const Fleet& f, const std::vector<Rejected>& rejected, bool colour);
std::string render_acceptance_csv(const Fleet& f, const std::vector<Rejected>& rejected);

}  // namespace gpuconform
