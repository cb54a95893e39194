// `gpuconform store ...` and the reader behind the views' `--store`. The command line only calls these.
#pragma once

#include <CLI/CLI.hpp>

#include "reports/rollup_cli.hpp"

namespace gpuconform::store {

// Adds `store` (ingest, info) to `app`; its exit status goes to `exit_code`. `run` false: parse only.
void add_store_command(CLI::App& app, int& exit_code, bool run = true);

// The views' `--store`: the window's stored reports, read as files are. Throws saying why not.
ReportSet read_store_set(const StoreQuery& query, const ReadOptions& options);

}  // namespace gpuconform::store
