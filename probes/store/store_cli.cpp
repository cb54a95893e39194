#include "store/store_cli.hpp"

#include <ctime>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "store/baselines.hpp"
#include "checks/declarations.hpp"
#include "core/profile.hpp"
#include "core/safe_write.hpp"
#include "store/drift.hpp"
#include "store/ingest.hpp"
#include "store/schema.hpp"
#include "store/store_read.hpp"
#include "store/store_time.hpp"
#include "core/utc_time.hpp"

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
    bool min_runs_given = false;        // --min-runs on the command line (else a profile's, else 20)
    std::string export_profile;         // baselines: write them as a profile file
    std::vector<std::string> profiles;  // outliers: judge by these files' frozen baselines
};

// The baselines as a profile's `baselines` section, read back by the profile reader before the
// file is written, so what a site freezes is what `--profile` accepts.
int export_baselines(const std::vector<Baseline>& learned, const JudgeOptions& o) {
    FrozenBaselines frozen{o.settings.min_runs, learned};
    const std::string comment = fmt::format(
        "gpuconform baselines, learned by `gpuconform store baselines` at {} from runs started {} to {}; "
        "judge a night by them with `gpuconform store outliers --profile FILE`",
        utc_iso(std::time(nullptr)), o.window.since.empty() ? "at any time" : o.window.since,
        o.window.until.empty() ? "the newest" : o.window.until);
    const std::string text = baselines_profile_yaml(frozen, comment);
    const Profile back = Profile::parse(text, o.export_profile, profile_catalogue());
    if (back.baselines().figures.size() != learned.size()) {
        throw std::runtime_error("the written baselines did not read back whole");
    }
    std::string error;
    if (!write_file_atomic(o.export_profile, text, error)) {
        throw std::runtime_error(error);
    }
    std::size_t judging = 0;
    for (const Baseline& b : learned) {
        judging += b.runs >= o.settings.min_runs ? 1 : 0;
    }
    std::cout << fmt::format("wrote {} baselines to {}: {} of them from {} runs or more (min_runs), which judge\n",
                             learned.size(), o.export_profile, judging, o.settings.min_runs);
    return 0;
}

int run_baselines(const JudgeOptions& o) {
    try {
        if (!o.export_profile.empty()) {
            if (const std::string problem = output_target_problem(o.export_profile); !problem.empty()) {
                throw std::runtime_error("--export-profile: " + problem);
            }
        }
        const auto db = open_store(o.store);
        const auto learned = learn_baselines(*db, bound(o.window.since, "--since"), bound(o.window.until, "--until"));
        if (!o.export_profile.empty()) {
            return export_baselines(learned, o);
        }
        std::cout << baselines_json(learned).dump(2) << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gpuconform store baselines: " << e.what() << "\n";
        return 2;
    }
}

// The frozen baselines of the --profile files, later files winning; none is an error (the night
// would otherwise be judged by nothing and name nothing).
std::optional<FrozenBaselines> frozen_baselines(const std::vector<std::string>& files) {
    if (files.empty()) {
        return std::nullopt;
    }
    Profile merged = Profile::load_file(files.front(), profile_catalogue());
    for (std::size_t i = 1; i < files.size(); ++i) {
        merged.merge(Profile::load_file(files[i], profile_catalogue()));
    }
    if (merged.baselines().figures.empty()) {
        throw std::runtime_error("--profile: no baselines in " + fmt::format("{}", fmt::join(files, ", ")) +
                                 " (write them with `gpuconform store baselines --export-profile FILE`)");
    }
    return merged.baselines();
}

// Exit 1 when something is named (an outlier or a driver shift), as matrix does for a failing cell.
int run_outliers(const JudgeOptions& o) {
    try {
        const auto db = open_store(o.store);
        const Window night{bound(o.window.since, "--since"), bound(o.window.until, "--until"), o.window.last_night};
        const auto frozen = frozen_baselines(o.profiles);
        JudgeSettings settings = o.settings;
        if (frozen && frozen->min_runs && !o.min_runs_given) {
            settings.min_runs = *frozen->min_runs;
        }
        const nlohmann::json found = find_outliers(*db, night, settings, frozen ? &*frozen : nullptr);
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
    ReportSet set = read_report_texts(stored_reports(*db, window), options);
    if (options.declines) {
        set.declines = find_drift(*db, DriftSettings{});
    }
    return set;
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
    baselines->add_option("--export-profile", learn->export_profile,
                          "write them as a profile file (its `baselines` section) instead of JSON, to freeze what "
                          "was learned: `store outliers --profile FILE` judges by it");
    baselines
        ->add_option("--min-runs", learn->settings.min_runs,
                     "with --export-profile: the file's min_runs, below which a baseline judges nothing")
        ->capture_default_str()
        ->check(CLI::Range(1LL, 1000000000LL));
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
    CLI::Option* min_runs =
        outliers
            ->add_option("--min-runs", judge->settings.min_runs,
                         "a baseline of fewer runs judges nothing (default: the profile's min_runs, else 20)")
            ->check(CLI::Range(1LL, 1000000000LL));
    outliers->add_option("--threshold", judge->settings.threshold, "spreads off the baseline that make an outlier")
        ->capture_default_str();
    outliers->add_option("--profile", judge->profiles,
                         "judge by the baselines frozen in this profile file (store baselines --export-profile; "
                         "repeatable, later files win) instead of those learned from the store");
    outliers->callback([judge, min_runs, &exit_code, run] {
        judge->min_runs_given = min_runs->count() > 0;
        exit_code = run ? run_outliers(*judge) : 0;
    });

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
