// Tools that instrument the process: a sanitizer, a profiler, a debugger. They reach it through
// their launchers (libraries preloaded into every process of the tree, their own folder put first
// on LD_LIBRARY_PATH, variables of their own, ptrace), not through a variable of the GPU table,
// and they serialise or slow GPU work: under them a timing, concurrency or overlap result says
// nothing about the install. One table, with sources (docs/environment-variables.md).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"

namespace gpuconform {

struct InstrumentationTool {
    std::string_view name;                         // "compute-sanitizer"
    std::vector<std::string_view> path_fragments;  // in a mapped library's or an LD_LIBRARY_PATH entry's path
    std::vector<std::string_view> libraries;       // file names of libraries it maps into the process
    std::vector<std::string_view> variables;       // variable names or prefixes ending in '*' its launcher sets
    std::string_view effect;
    std::string_view source;
};

const std::vector<InstrumentationTool>& instrumentation_tools();

// What the process shows: its mapped files (/proc/self/maps' paths), its environment, and the
// name of the process tracing it (ptrace: /proc/self/status TracerPid), empty when none.
struct ProcessView {
    std::vector<std::string> mapped;
    std::map<std::string, std::string> environment;
    std::string tracer;
};

// Each tool seen once, with the first evidence found; a generic launcher only when no tool of
// the table was named by its own evidence.
std::vector<InstrumentationSeen> detect_instrumentation(const ProcessView& view);

// detect_instrumentation over this process.
std::vector<InstrumentationSeen> collect_instrumentation();

// Check ids whose result such a tool can change (every device and framework check).
bool instrumentation_can_change(const std::string& check_id);

}  // namespace gpuconform
