#include "store_cli.hpp"

#include <iostream>
#include <memory>

#include "baselines.hpp"
#include "drift.hpp"
#include "ingest.hpp"
#include "schema.hpp"
#include "store_read.hpp"
#include "store_time.hpp"

namespace gpuconform::store {

namespace {

const char* const k_location_help =
    "the store: an SQLite file (made when absent), or PostgreSQL as postgresql://... or pg:<libpq keywords> "
    "(pg: alone: the PG* variables)";

struct IngestOptions {
    std::string store;
    std::vector<std::string> inputs;
    bool quiet = false;
};

int run_ingest(const IngestOptions& o) {
    IngestOutcome out;
    try {
        const auto db = open_store(o.store);
        out = ingest_reports(*db, o.inputs, std::cin);
    } catch (const StoreError& e) {
        std::cerr << "gpuconform store ingest: " << e.what() << "\n";
        return 2;
    }
    for (const Rejected& r : out.rejected) {
        std::cerr << "gpuconform: rejected " << r.path << ": " << r.reason << "\n";
    }
    if (!o.quiet) {
        std::cout << "stored " << out.stored << ", already stored " << out.already << ", rejected "
                  << out.rejected.size() << "\n";
    }
    if (out.stored + out.already == 0 && !out.rejected.empty()) {
        return 2;
    }
    return out.rejected.empty() ? 0 : 3;
}

int run_info(const std::string& location) {
    try {
        const auto db = open_store(location);
        const Row row =
            db->query("SELECT count(*), count(DISTINCT host), min(started), max(started) FROM runs").rows.at(0);
        nlohmann::json info{{"schema_version", stored_schema_version(*db)},
                            {"runs", std::stoll(row[0].value_or("0"))},
                            {"hosts", std::stoll(row[1].value_or("0"))},
                            {"first_started", row[2] ? nlohmann::json(*row[2]) : nlohmann::json()},
                            {"last_started", row[3] ? nlohmann::json(*row[3]) : nlohmann::json()}};
        std::cout << info.dump(2) << "\n";
        return 0;
    } catch (const StoreError& e) {
        std::cerr << "gpuconform store info: " << e.what() << "\n";
        return 2;
    }
}

std::string bound(const std::string& text, const char* option) {
    if (text.empty()) {
        return "";
    }
    const auto b = window_bound(text);
    if (!b) {
        throw std::invalid_argument(std::string(option) + " '" + text +
                                    "' is not a UTC day (2026-11-29) or time (2026-11-29T22:00:00Z)");
    }
    return *b;
}

struct JudgeOptions {
    std::string store;
    StoreQuery window;
    JudgeSettings settings;
};

int run_baselines(const JudgeOptions& o) {
    try {
        const auto db = open_store(o.store);
        std::cout << baselines_json(
                         learn_baselines(*db, bound(o.window.since, "--since"), bound(o.window.until, "--until")))
                         .dump(2)
                  << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gpuconform store baselines: " << e.what() << "\n";
        return 2;
    }
}

// Exit 1 when something is named (an outlier or a driver shift), as matrix does for a failing cell.
int run_outliers(const JudgeOptions& o) {
    try {
        const auto db = open_store(o.store);
        const Window night{bound(o.window.since, "--since"), bound(o.window.until, "--until"), o.window.last_night};
        const nlohmann::json found = find_outliers(*db, night, o.settings);
        std::cout << found.dump(2) << "\n";
        const bool named =
            !found["group_outliers"].empty() || !found["sibling_outliers"].empty() || !found["driver_shifts"].empty();
        return named ? 1 : 0;
    } catch (const std::exception& e) {
        std::cerr << "gpuconform store outliers: " << e.what() << "\n";
        return 2;
    }
}

int run_drift(const std::string& location, const DriftSettings& settings) {
    try {
        const auto db = open_store(location);
        const nlohmann::json found = find_drift(*db, settings);
        std::cout << found.dump(2) << "\n";
        return found.empty() ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "gpuconform store drift: " << e.what() << "\n";
        return 2;
    }
}

}  // namespace

ReportSet read_store_set(const StoreQuery& query, const ReadOptions& options) {
    Window window{bound(query.since, "--since"), bound(query.until, "--until"), query.last_night};
    const auto db = open_store(query.location);
    return read_report_texts(stored_reports(*db, window), options);
}

void add_store_command(CLI::App& app, int& exit_code, bool run) {
    CLI::App* store = app.add_subcommand("store", "Keep reports in a results store (SQLite or PostgreSQL)");
    store->require_subcommand(1);
    store->footer(
        "The views read it with --store: gpuconform matrix --store nights.sqlite --last-night\n"
        "Exit status: 0 done; 2 bad usage, the store cannot be opened, or nothing could be stored; 3 some "
        "reports were rejected (named on stderr) and the rest stored.");

    auto ingest = std::make_shared<IngestOptions>();
    CLI::App* cmd = store->add_subcommand(
        "ingest", "Store reports: each validated as matrix reads it; a rejected one is named and nothing of it kept");
    cmd->add_option("--store", ingest->store, k_location_help)->required();
    cmd->add_option("paths", ingest->inputs, "report files, folders (searched for *.json), - for standard input")
        ->required();
    cmd->add_flag("-q,--quiet", ingest->quiet, "print no summary line");
    cmd->callback([ingest, &exit_code, run] { exit_code = run ? run_ingest(*ingest) : 0; });

    auto learn = std::make_shared<JudgeOptions>();
    CLI::App* baselines =
        store->add_subcommand("baselines",
                              "Per key figure and group (GPU x driver branch x link x profile): median, spread (MAD), "
                              "quantiles, runs (JSON)");
    baselines->add_option("--store", learn->store, k_location_help)->required();
    baselines->add_option("--since", learn->window.since, "runs started at or after this (UTC day or time)");
    baselines->add_option("--until", learn->window.until, "runs started before this");
    baselines->callback([learn, &exit_code, run] { exit_code = run ? run_baselines(*learn) : 0; });

    auto judge = std::make_shared<JudgeOptions>();
    CLI::App* outliers = store->add_subcommand(
        "outliers",
        "The night's figures off their group's baseline (learned from the runs before it) or off the "
        "node's sibling GPUs, and driver changes that moved a figure (JSON; exit 1 when any)");
    outliers->add_option("--store", judge->store, k_location_help)->required();
    outliers->add_option("--since", judge->window.since, "the night: runs started at or after this");
    outliers->add_option("--until", judge->window.until, "the night: runs started before this");
    outliers->add_flag("--last-night", judge->window.last_night,
                       "the night: each host's newest run of the 24 h ending at the newest run");
    outliers->add_option("--min-runs", judge->settings.min_runs, "a baseline of fewer runs judges nothing")
        ->capture_default_str();
    outliers->add_option("--threshold", judge->settings.threshold, "spreads off the baseline that make an outlier")
        ->capture_default_str();
    outliers->callback([judge, &exit_code, run] { exit_code = run ? run_outliers(*judge) : 0; });

    auto drift_store = std::make_shared<std::string>();
    auto drift = std::make_shared<DriftSettings>();
    CLI::App* drift_cmd = store->add_subcommand(
        "drift",
        "Per node and key figure over the last N nights: a steady decline beyond noise (Theil-Sen; JSON; "
        "exit 1 when any)");
    drift_cmd->add_option("--store", *drift_store, k_location_help)->required();
    drift_cmd->add_option("--nights", drift->nights, "nights back from the newest run")->capture_default_str();
    drift_cmd->add_option("--host", drift->host, "one node only");
    drift_cmd->add_option("--min-decline", drift->min_decline, "total decline over the window that is named (share)")
        ->capture_default_str();
    drift_cmd->callback(
        [drift_store, drift, &exit_code, run] { exit_code = run ? run_drift(*drift_store, *drift) : 0; });

    auto location = std::make_shared<std::string>();
    CLI::App* info = store->add_subcommand("info", "The store's schema version, runs, hosts and time span (JSON)");
    info->add_option("--store", *location, k_location_help)->required();
    info->callback([location, &exit_code, run] { exit_code = run ? run_info(*location) : 0; });
}

}  // namespace gpuconform::store
