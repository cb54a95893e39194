// The command line as data: every subcommand's options parsed and validated into plain
// requests, nothing run. main.cpp runs what it chose; the fuzz harness parses only.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "runner/runner.hpp"
#include "runner/selftest.hpp"

namespace gpuconform {

struct CommandLine {
    // `run_rollups` false: `render`, `matrix` and `diff` parse but do not run (for the fuzzer).
    explicit CommandLine(bool run_rollups = true);

    CLI::App app{"gpuconform: conformance checks for GPU software installs (CUDA, ROCm/HIP)"};
    RunRequest run;
    SelftestRequest selftest;
    std::string list_layer;
    bool list_json = false;
    std::vector<std::string> profile_files;  // `profile`: the files to layer over the built-in one
    std::string profile_prefix;              // `profile`: only check ids starting with this
    int rollup_exit = 0;                     // set by the roll-up subcommand that ran during parsing

    // CLI11's raw values, turned into `run` by parse_command_line.
    std::vector<std::string> layers, only, backends, faults;
    std::string when_busy = "wait";
    std::string framework_start = "auto";
};

// Parses argv into `cl`. Returns the exit status when parsing decided it (0 after --help or
// --version, 2 for bad usage, with the message on `err`), or nullopt when a command should run.
// A roll-up subcommand has already run when this returns (its status is cl.rollup_exit).
std::optional<int> parse_command_line(CommandLine& cl, int argc, const char* const* argv, std::ostream& out,
                                      std::ostream& err);

// Why a run request cannot run ("" when it can): unknown names, selections that select nothing.
std::string run_request_problem(const RunRequest& req);

}  // namespace gpuconform
