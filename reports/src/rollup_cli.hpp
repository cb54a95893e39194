// The roll-up subcommands of the gpuconform executable: render, matrix, diff.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "report_set.hpp"

namespace gpuconform {

// The stored reports a view reads instead of files (`--store` and its time window). The results
// store (reports/store) answers it, so this library links no database client.
struct StoreQuery {
    std::string location;  // as `--store` gave it
    std::string since;     // as given: "2026-11-29" or "2026-11-29T15:59:24Z"
    std::string until;
    bool last_night = false;
};
// Throws std::exception saying why the store could not be read.
using StoreReader = std::function<ReportSet(const StoreQuery&, const ReadOptions&)>;

// Adds `render`, `matrix` and `diff` to `app`. When one of them runs, its exit status is
// written to `exit_code` (see reports/README.md "Exit status"). `run` false: they parse and
// validate their options but do not run (the command-line fuzzer).
// `store` reads `--store`; without one, the views read files only.
void add_rollup_commands(CLI::App& app, int& exit_code, bool run = true, StoreReader store = {});

}  // namespace gpuconform
