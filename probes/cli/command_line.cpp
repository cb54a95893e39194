#include "cli/command_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "checks/declarations.hpp"
#include "core/check.hpp"
#include "core/nearest_name.hpp"
#include "reports/rollup_cli.hpp"
#include "store/store_cli.hpp"

namespace gpuconform {

namespace {

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
    std::vector<std::string> out;
    for (const auto& v : values) {
        std::stringstream ss(v);
        std::string item;
        while (std::getline(ss, item, ',')) {
            if (!item.empty()) {
                out.push_back(item);
            }
        }
    }
    return out;
}

void add_run_command(CLI::App& app, RunRequest& req, std::vector<std::string>& layers, std::vector<std::string>& only,
                     std::vector<std::string>& backends, std::vector<std::string>& faults, std::string& when_busy,
                     std::string& framework_start) {
    auto* run = app.add_subcommand("run", "Run the checks and write a JSON report");
    run->add_option("--layer", layers,
                    "Layers to run, comma-separated: host, health, runtime, async, framework (default: these "
                    "five), acceptance (opt-in: loads every GPU for --budget seconds)");
    run->add_option("--only", only, "Only checks whose id matches this glob (repeatable, comma-separated)");
    run->add_option("--device", req.devices, "Only this device index (repeatable)")->delimiter(',');
    run->add_option("--json", req.json_path, "Report path (default gpuconform-<host>-<UTC>.json here; - for stdout)");
    run->add_option("--junit", req.junit_path, "Also write JUnit XML here");
    run->add_option("--profile", req.profile_files, "Expectations file layered over the built-in profile (repeatable)")
        ->check(CLI::ExistingFile);
    run->add_option("--backend", backends, "Backends to use: cuda, hip, sim (default cuda,hip)");
    run->add_option("--fault", faults,
                    "Inject a fault into the simulated backend (with --backend sim): NAME on every "
                    "device, NAME@K on device K only (repeatable)");
    run->add_option("--sim-devices", req.sim_devices, "Number of simulated devices")->check(CLI::Range(1, 64));
    run->add_option("--python", req.python,
                    "Python for the framework layer (default $GPUCONFORM_PYTHON, else python3)");
    run->add_option("--check-timeout", req.check_timeout_s,
                    "Seconds each device check may take (default: the check's own limit)")
        ->check(CLI::Range(0.001, 86400.0));
    run->add_option("--when-busy", when_busy,
                    "When another process uses a GPU, timing checks: wait (up to --busy-wait, then error naming it), "
                    "skip, or measure (anyway, and say so)")
        ->default_val("wait")
        ->check(CLI::IsMember({"wait", "skip", "measure"}));
    run->add_option("--busy-wait", req.busy_wait_s,
                    "Seconds each GPU may be waited for to go quiet, over the whole run")
        ->default_val(120)
        ->check(CLI::NonNegativeNumber);
    run->add_option("--sim-cotenant", req.sim_cotenant_s,
                    "Simulated backend: another process shares every device for S seconds (0: the whole run)")
        ->check(CLI::NonNegativeNumber);
    run->add_flag("--sim-cotenant-hidden", req.sim_cotenant_hidden,
                  "Simulated backend: the co-tenant runs where the process list cannot show it (another PID "
                  "namespace); only its utilisation is seen");
    run->add_flag("--verbose", req.verbose, "Print every result line (repeated skips are folded otherwise)");
    run->add_flag("--strict", req.strict, "Treat warn as failure in the exit status");
    run->add_flag("--quiet", req.quiet, "Print only what needs attention and the summary");
    run->add_option("--repeat", req.repeat,
                    "Run the device checks N times and fold each check's repetitions into one "
                    "result (median, outer min..max, every value in `samples`) for `diff`")
        ->check(CLI::Range(1, 100));
    run->add_option("--budget", req.budget_s,
                    "Seconds the acceptance layer may take, divided between its parts (default 300); it ends "
                    "within 5 % of it and says what it shortened")
        ->check(CLI::Range(10.0, 86400.0));
    run->add_flag("--quick", req.quick, "Fewer sizes and repetitions (for every-node nightly runs)");
    run->add_flag("--timings", req.timings,
                  "Print where the run's time went (the report's run.phases) after the summary");
    run->add_option("--framework-start", framework_start,
                    "When the framework layer's Python and torch import start: early (while the device checks run; "
                    "the GPU is touched only after them), late (after them), or auto: early with 4 or more CPUs")
        ->default_val("auto")
        ->check(CLI::IsMember({"auto", "early", "late"}));
    run->footer(
        "Exit status: 0 nothing failed; 1 a check failed or errored, or warned with --strict; 2 bad usage or "
        "bad input (an unknown option, layer, check or fault, a profile that does not parse, an unwritable "
        "report folder, a device index out of range): no check runs; 130 interrupted (SIGINT, SIGTERM or "
        "SIGHUP; the partial report is written).");
}

// One rule for every value of every subcommand's options and arguments: an empty one (or only
// commas) is bad usage. A script's `--only "$CHECKS"` with the variable unset would otherwise
// select everything, since the comma lists drop empty items.
void refuse_empty_values(CLI::App& app) {
    const CLI::Validator not_empty(
        [](std::string& value) {
            return value.find_first_not_of(", \t") == std::string::npos
                       ? std::string("the value is empty (an unset variable?)")
                       : std::string();
        },
        "", "");
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        for (CLI::Option* opt : sub->get_options()) {
            if (opt->get_type_size() != 0) {  // flags take no value
                opt->check(not_empty);
            }
        }
        refuse_empty_values(*sub);  // nested ones (`store ingest`) too
    }
}

// CLI11 takes an unknown first word for a stray argument ("A subcommand is required"): name it.
std::string unknown_command(const CLI::App& app, const std::string& word) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        names.push_back(sub->get_name());
    }
    if (std::find(names.begin(), names.end(), word) != names.end()) {
        return "";
    }
    const std::string near = nearest_name(word, names);
    if (!near.empty()) {
        return fmt::format("unknown command \"{}\"; did you mean \"{}\"?", word, near);
    }
    std::string all;
    for (const auto& n : names) {
        all += (all.empty() ? "" : ", ") + n;
    }
    return fmt::format("unknown command \"{}\" (commands: {})", word, all);
}

}  // namespace

std::string run_request_problem(const RunRequest& req) {
    for (const auto& l : req.layers) {
        const auto& known = known_layers();
        if (std::find(known.begin(), known.end(), l) == known.end()) {
            return fmt::format("unknown layer '{}' (layers: host, health, runtime, async, framework, acceptance)", l);
        }
    }
    if (req.budget_s > 0 && !layer_chosen(req.layers, "acceptance")) {
        return "--budget is the acceptance layer's time: add --layer acceptance";
    }
    const auto chosen = [&](const std::string& layer) { return layer_chosen(req.layers, layer); };
    for (const auto& glob : req.only) {
        // Every glob must match a check of a chosen layer (the framework layer's rows included).
        bool hit = false;
        for (const auto& c : declared_checks()) {
            hit = hit || (chosen(c.layer) && matches_any(c.id, {glob}));
        }
        if (!hit) {
            return fmt::format("--only '{}' matches no check in the chosen layers (see `gpuconform list`)", glob);
        }
    }
    // CLI11's range checks compare, and NaN fails every comparison: refuse it here.
    if (!std::isfinite(req.check_timeout_s) || !std::isfinite(req.busy_wait_s) || !std::isfinite(req.sim_cotenant_s)) {
        return "--check-timeout, --busy-wait and --sim-cotenant take a finite number of seconds";
    }
    for (const int d : req.devices) {
        if (d < 0) {
            return fmt::format("--device {} is not a device index (0, 1, ...)", d);
        }
    }
    if (const char* dir = std::getenv("GPUCONFORM_MODULE_DIR"); dir != nullptr && *dir != 0) {
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) {
            return fmt::format("GPUCONFORM_MODULE_DIR={} is not a folder, so no backend module could load", dir);
        }
    }
    for (const auto& b : req.backends) {
        if (b != "cuda" && b != "hip" && b != "sim") {
            return fmt::format("unknown backend '{}' (cuda, hip, sim)", b);
        }
    }
    const bool sim = std::find(req.backends.begin(), req.backends.end(), "sim") != req.backends.end();
    if (req.sim_cotenant_s >= 0 && !sim) {
        return "--sim-cotenant needs --backend sim (the co-tenant lives in the simulated backend)";
    }
    if (req.sim_cotenant_hidden && req.sim_cotenant_s < 0) {
        return "--sim-cotenant-hidden needs --sim-cotenant S (it says where that co-tenant runs)";
    }
    if (!req.faults.empty() && !sim) {
        return "--fault needs --backend sim (faults are injected into the simulated backend only)";
    }
    for (const auto& f : req.faults) {
        if (!is_sim_fault(f)) {
            return fmt::format("unknown fault '{}' (see `gpuconform selftest --list-faults`)", f);
        }
        // NAME@K on a device the simulated backend will not have would be refused by the module
        // only after the run started, and the run would pass without the fault.
        if (const auto at = f.find('@'); at != std::string::npos) {
            const std::string index = f.substr(at + 1);
            if (index.size() > 6 || std::stoi(index) >= req.sim_devices) {
                return fmt::format(
                    "--fault {} names device {}, but the simulated backend has {} device{} "
                    "(--sim-devices)",
                    f, index, req.sim_devices, req.sim_devices == 1 ? "" : "s");
            }
        }
    }
    return "";
}

CommandLine::CommandLine(bool run_rollups) {
    app.require_subcommand(1);
    app.set_version_flag("--version", GPUCONFORM_VERSION);
    add_run_command(app, run, layers, only, backends, faults, when_busy, framework_start);

    auto* list = app.add_subcommand("list", "List the checks: id and one-line description");
    list->add_option("--layer", list_layer, "Only this layer");
    list->add_flag("--json", list_json, "As JSON");

    app.add_subcommand("version", "Print the version, the package version and the build");

    auto* profile = app.add_subcommand(
        "profile", "Print the profile's layers as JSON, validated: the built-in one, then each --profile file");
    profile->add_option("--profile", profile_files, "Expectations file layered over the built-in profile (repeatable)")
        ->check(CLI::ExistingFile);
    profile->add_option("--prefix", profile_prefix,
                        "Only check ids starting with this (framework. is what the pytest layer reads)");
    profile->footer(
        "Exit status: 0 the layers were printed; 2 a profile file does not parse or holds a bad value (with "
        "file, line and field), or standard output could not be written.");

    auto* self =
        app.add_subcommand("selftest", "Prove, on the simulated backend, that every device check catches its fault");
    self->add_flag("--list-faults", selftest.list_faults, "List the fault knobs and the checks each must trip");
    self->add_option("--only-fault", selftest.faults,
                     "Only these scenarios, by the name --list-faults shows or by fault (repeatable)");
    self->add_option("--jobs", selftest.jobs,
                     "Scenarios at once, each in its own process (default: 3 for every 2 CPUs, 2 to 8; 1 runs them in "
                     "this process)")
        ->check(CLI::Range(1, 64));
    self->footer(
        "Side by side, a scenario that did not match runs once more, alone, and both tries are shown (the "
        "simulated device keeps time on this host, which other scenarios load; a fault's mismatch repeats).\n"
        "Exit status: 0 every fault was caught by exactly its checks; 1 some scenario did not match; 2 bad "
        "usage (an --only-fault that names no scenario); 130 stopped by a signal.");

    add_rollup_commands(app, rollup_exit, run_rollups, store::read_store_set);
    store::add_store_command(app, rollup_exit, run_rollups);
    refuse_empty_values(app);
}

std::optional<int> parse_command_line(CommandLine& cl, int argc, const char* const* argv, std::ostream& out,
                                      std::ostream& err) {
    if (argc > 1 && argv[1][0] != '-') {
        if (const std::string why = unknown_command(cl.app, argv[1]); !why.empty()) {
            err << "gpuconform: " << why << "\nRun with --help for more information.\n";
            return 2;
        }
    }
    try {
        cl.app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = cl.app.exit(e, out, err);
        return code == 0 ? 0 : 2;
    }
    if (cl.app.got_subcommand("run")) {
        RunRequest& req = cl.run;
        req.layers = split_commas(cl.layers);
        req.only = split_commas(cl.only);
        req.backends = split_commas(cl.backends);
        req.faults = split_commas(cl.faults);
        req.when_busy = when_busy_from_string(cl.when_busy).value_or(WhenBusy::Wait);
        req.framework_start = cl.framework_start == "early"  ? FrameworkStart::Early
                              : cl.framework_start == "late" ? FrameworkStart::Late
                                                             : FrameworkStart::Auto;
        req.command_line.assign(argv, argv + argc);
        if (const auto error = run_request_problem(req); !error.empty()) {
            err << "gpuconform run: " << error << "\n";
            return 2;
        }
    }
    if (cl.app.got_subcommand("list") && !cl.list_layer.empty()) {
        const auto& known = known_layers();
        if (std::find(known.begin(), known.end(), cl.list_layer) == known.end()) {
            err << "gpuconform list: unknown layer '" << cl.list_layer
                << "' (layers: host, health, runtime, async, framework, acceptance)\n";
            return 2;
        }
    }
    return std::nullopt;
}

}  // namespace gpuconform
