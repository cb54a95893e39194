// The roll-up subcommands of the gpuconform executable: render, matrix, diff.
#pragma once

#include <CLI/CLI.hpp>

#include "reports/store_query.hpp"

namespace gpuconform {

// Adds `render`, `matrix` and `diff` to `app`. When one of them runs, its exit status is
// written to `exit_code` (see reports/README.md "Exit status"). `run` false: they parse and
// validate their options but do not run (the command-line fuzzer).
// `store` reads `--store`; without one, the views read files only.
void add_rollup_commands(CLI::App& app, int& exit_code, bool run = true, const StoreReader& store = {});

}  // namespace gpuconform
