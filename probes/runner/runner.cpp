#include "runner/runner.hpp"
#include "runner/repeats.hpp"

#include <fnmatch.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "checks/declarations.hpp"
#include "core/check.hpp"
#include "core/interrupt.hpp"
#include "core/safe_write.hpp"
#include "framework/framework_layer.hpp"
#include "framework/python_choice.hpp"
#include "junit.hpp"
#include "render_phases.hpp"
#include "runner/causes.hpp"
#include "runner/device_phase.hpp"
#include "runner/health_phase.hpp"
#include "runner/host_checks.hpp"
#include "runner/module_loader.hpp"
#include "runner/output.hpp"
#include "runner/report.hpp"
#include "runner/selftest.hpp"
#include "runner/sim_capacity.hpp"
#include "runner/terminal.hpp"
#include "runner/worker.hpp"
#include "runner/worker_child.hpp"
#include "host/environment_reader.hpp"

namespace gpuconform {

namespace {

bool layer_selected(const RunRequest& req, const std::string& layer) { return layer_chosen(req.layers, layer); }

std::vector<const CheckDef*> select_checks(const RunRequest& req) {
    std::vector<const CheckDef*> out;
    for (const auto& c : all_checks()) {
        if (layer_selected(req, c.layer) && matches_any(c.id, req.only) && (!req.quick || c.quick)) {
            out.push_back(&c);
        }
    }
    return out;
}

std::string sim_options(const RunRequest& req) { return sim_module_options(req.sim_devices, req.faults); }

FrameworkOptions framework_options(const RunRequest& req, const Profile& profile, const PythonChoice& python) {
    FrameworkOptions fw;
    fw.profile_json = profile.layers_json("framework.").dump(1);
    fw.python = python.python;
    fw.tests_dir = find_python_tests_dir();
    for (const auto& glob : req.only) {
        fw.only_glob += (fw.only_glob.empty() ? "" : ",") + glob;  // the plugin takes a comma-separated list
    }
    fw.quick = req.quick;
    fw.stop = &g_interrupted;
    // fw.work_dir stays empty: the framework layer makes a private folder and removes it.
    return fw;
}

}  // namespace

const std::vector<std::string>& known_layers() {
    static const std::vector<std::string> layers{"host", "health", "runtime", "async", "framework", "acceptance"};
    return layers;
}

const std::vector<std::string>& opt_in_layers() {
    static const std::vector<std::string> layers{"acceptance"};
    return layers;
}

bool layer_chosen(const std::vector<std::string>& layers, const std::string& layer) {
    if (layers.empty()) {
        return std::find(opt_in_layers().begin(), opt_in_layers().end(), layer) == opt_in_layers().end();
    }
    return std::find(layers.begin(), layers.end(), layer) != layers.end();
}

bool framework_starts_early(FrameworkStart start, int cpus) {
    return start == FrameworkStart::Early || (start == FrameworkStart::Auto && cpus >= k_early_start_min_cpus);
}

int usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        return 1;
    }
    return CPU_COUNT(&set);
}

bool only_reaches_layer(const std::vector<std::string>& only, const std::string& layer) {
    if (only.empty()) {
        return true;
    }
    const std::string prefix = layer + ".";
    for (const auto& glob : only) {
        const std::string literal = glob.substr(0, glob.find_first_of("*?["));
        if (prefix.compare(0, literal.size(), literal) == 0 || literal.compare(0, prefix.size(), prefix) == 0) {
            return true;
        }
    }
    return false;
}

bool matches_any(const std::string& id, const std::vector<std::string>& globs) {
    if (globs.empty()) {
        return true;
    }
    for (const auto& g : globs) {
        if (fnmatch(g.c_str(), id.c_str(), 0) == 0) {
            return true;
        }
    }
    return false;
}

Profile load_profile(const std::vector<std::string>& files) {
    const ProfileCatalogue& catalogue = profile_catalogue();
    Profile profile = Profile::builtin(catalogue);
    for (const auto& file : files) {
        profile.merge(Profile::load_file(file, catalogue));
    }
    return profile;
}

int run_suite(const RunRequest& req) {
    install_stop_handlers();
    const auto t0 = std::chrono::steady_clock::now();
    RunRecord run;
    run.run_id = new_run_id();
    run.started = utc_now_iso();
    run.command_line = req.command_line;

    Profile profile;
    try {
        profile = load_profile(req.profile_files);
    } catch (const ProfileError& e) {
        fmt::print(stderr, "gpuconform: bad profile: {}\nno checks were run.\n", e.what());
        return 2;
    }
    run.profile_sources = profile.sources();
    for (const auto& l : known_layers()) {
        if (layer_selected(req, l)) {
            run.layers.push_back(l);
        }
    }

    PhaseLog phases(t0);
    {
        PhaseLog::Scope stamp(&phases, "host.environment");
        run.env = collect_environment("/");
    }
    ReportOutput output = ReportOutput::prepare(req.json_path, run.env.hostname);
    if (!output.error.empty()) {
        fmt::print(stderr, "gpuconform: {}\nno checks were run.\n", output.error);
        return 2;
    }
    if (!req.junit_path.empty()) {
        const std::string problem = req.junit_path == "-" ? "needs a file path (stdout is the terminal view)"
                                                          : output_target_problem(req.junit_path);
        if (!problem.empty()) {
            fmt::print(stderr, "gpuconform: --junit: {}\nno checks were run.\n", problem);
            return 2;
        }
    }
    std::FILE* term = output.to_stdout ? stderr : stdout;
    TerminalView view(term, req.quiet, req.verbose);
    view.header(fmt::format("gpuconform {} on {} ({}, kernel {})", GPUCONFORM_VERSION, run.env.hostname,
                            run.env.distro.pretty_name, run.env.kernel));

    RunOptions options;
    options.quick = req.quick;
    options.timeout_override_s = req.check_timeout_s;
    options.devices = req.devices;  // node checks (peers) keep to pairs with a chosen GPU
    options.budget_s = req.budget_s > 0 ? req.budget_s : k_default_acceptance_budget_s;
    const auto checks = select_checks(req);
    auto record = [&](CheckResult r) {
        view.result(r);
        run.results.push_back(std::move(r));
    };
    // Python, pytest and `import torch` take seconds and need no GPU: they proceed while the host
    // and device checks run; the plugin touches the GPU only after finish() says go.
    std::unique_ptr<FrameworkRun> framework;
    const bool framework_selected = layer_selected(req, "framework") && only_reaches_layer(req.only, "framework");
    PythonChoice python;
    if (framework_selected) {
        PhaseLog::Scope stamp(&phases, "framework.python_choice");
        python = choose_python(req.python);
        view.note(python.note);
        run.framework_python = {{"path", python.python}, {"source", python.source}, {"note", python.note}};
        if (python.modules) {
            run.framework_python["pytest"] = python.modules->pytest;
            run.framework_python["torch"] = python.modules->torch;
        }
    }
    if (framework_selected && framework_starts_early(req.framework_start, usable_cpus())) {
        framework = FrameworkRun::start(framework_options(req, profile, python), &phases);
    }

    const bool needs_backends = std::any_of(checks.begin(), checks.end(), [](const CheckDef* c) {
        return c->scope == Scope::Backend || c->scope == Scope::Device || c->scope == Scope::Node;
    });
    const bool simulated = std::find(req.backends.begin(), req.backends.end(), "sim") != req.backends.end();
    if (const std::string why =
            simulated && needs_backends ? sim_capacity_problem(req.sim_devices, mem_available_bytes()) : std::string();
        !why.empty()) {
        fmt::print(stderr, "gpuconform: {}\nno checks were run.\n", why);
        return 2;
    }
    // Host checks need no GPU (a compile probe that runs takes the GPU turn, core/gpu_turn.hpp):
    // with CPUs to spare they run beside the device checks; on a small node, before them.
    HostChecks host_checks(checks, run.env, profile, options);
    if (needs_backends && usable_cpus() >= k_early_start_min_cpus) {
        host_checks.start();
    } else {
        host_checks.run_here();
    }
    if (!host_checks.started()) {
        host_checks.finish(&phases, record);
    }

    // The workers are forked before this process first opens NVML (the health readers, the
    // occupancy sampler): NVML's state does not survive a fork, and a forked worker whose parent
    // had initialised it cannot initialise it again (nvml/nvml_library.hpp). The acceptance
    // layer reads clocks and link counters from the worker.
    DevicePhase phase(run.env, profile, options, req, record);
    phase.set_phase_log(&phases);
    const bool start_backends = needs_backends && !g_interrupted;
    if (start_backends) {
        std::vector<std::string> names = req.backends.empty() ? std::vector<std::string>{"cuda", "hip"} : req.backends;
        for (const auto& name : names) {
            phase.add_backend(name, name == "sim" ? sim_options(req) : "");
        }
    }

    // The GPUs' own state, read in milliseconds without a GPU runtime, before any device check.
    std::vector<std::unique_ptr<HealthReader>> health;
    std::vector<NodeHealth> health_before;
    const bool health_read = has_health_checks(checks) && !g_interrupted;
    if (health_read) {
        const auto backends = req.backends.empty() ? std::vector<std::string>{"cuda", "hip"} : req.backends;
        health = health_readers(run.env, backends, sim_options(req));
        health_before = run_health_checks(checks, health, run.env, profile, options, &phases, record);
    }

    if (start_backends && !g_interrupted) {
        for (const auto* def : checks) {
            if (def->scope == Scope::Backend) {
                for (const auto& info : phase.backends()) {
                    if (info.name != def->backend) {
                        continue;
                    }
                    record(run_host_check(*def, run.env, profile, options, &info));
                }
            }
        }
        if (int bad = phase.validate_devices(); bad >= 0) {
            fmt::print(stderr, "gpuconform: --device {} is out of range: {}\n", bad, phase.describe_devices());
            return 2;
        }
        PhaseLog::Scope device_stamp(&phases, "device.checks");
        for (int i = 0; i < req.repeat && !g_interrupted; ++i) {
            phase.run_device_checks(checks);
        }
        device_stamp.end();
        if (host_checks.started()) {
            // Their results go first in the report, as when they ran first.
            std::vector<CheckResult> device_results = std::move(run.results);
            run.results.clear();
            host_checks.finish(&phases, record);
            for (auto& r : device_results) {
                run.results.push_back(std::move(r));
            }
        }
        run.results = fold_repeats(std::move(run.results), req.repeat);
        run.backends = phase.backends();
        if (!phase.first_occupancy().empty()) {
            run.gpu_occupancy = phase.first_occupancy();
        }
    }

    host_checks.finish(&phases, record);  // when the device block did not (an interrupted run)

    if (framework_selected && !g_interrupted) {
        if (!framework) {
            framework = FrameworkRun::start(framework_options(req, profile, python), &phases);
        }
        auto outcome = framework->finish(run.results);
        run.torch = outcome.torch;
        for (auto& r : outcome.results) {
            if (matches_any(r.id, req.only)) {
                record(std::move(r));
            }
        }
    }

    framework.reset();  // a child never told to go (a stop) has its group ended here

    // The error counters again, milliseconds: what grew under our own copies. Also after a stop,
    // so that the partial report still says whether the links misbehaved while we ran.
    if (health_read) {
        run_health_growth_checks(checks, health, health_before, run.env, profile, options, &phases, record);
    }

    PhaseLog::Scope report_stamp(&phases, "report.assemble");
    attribute_environment(run.results, run.env);
    const auto causes = group_causes(run.results, run.env);
    attribute_to_causes(run.results, causes);
    run.causes = causes;
    run.interrupted = g_interrupted;
    run.strict = req.strict;
    // Judged: pass, fail, warn, info. A node whose GPUs the device layer never judged is incomplete.
    const bool async_judged = std::any_of(run.results.begin(), run.results.end(), [](const CheckResult& r) {
        return r.layer == "async" && r.status != Status::Skip && r.status != Status::Error;
    });
    run.device_layer_missing = !run.env.pci_gpus.empty() && layer_selected(req, "async") &&
                               only_reaches_layer(req.only, "async") && !async_judged;
    run.finished = utc_now_iso();
    run.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    run.exit_status = exit_status_for(run.results, req.strict, run.interrupted);
    report_stamp.end();
    run.phases = phases.phases();  // the write below cannot be in the file it writes: --timings shows it
    const auto report = build_report(run);
    const auto write_start = PhaseLog::Clock::now();
    std::string written;
    if (!output.write(report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", &written)) {
        fmt::print(stderr, "gpuconform: {}\n", written);
        return 2;
    }
    if (!req.junit_path.empty()) {
        std::string error;
        if (!write_file_atomic(req.junit_path, render_junit(report), error)) {
            fmt::print(stderr, "gpuconform: JUnit XML: {} (the JSON report was written)\n", error);
            return 2;
        }
    }
    phases.add("report.write", write_start, PhaseLog::Clock::now());
    view.summary(run.results, run.duration_s, output.to_stdout ? "" : written);
    VerdictTally tally = tally_results(run.results, run.interrupted, req.strict);
    tally.device_layer_missing = run.device_layer_missing;
    view.verdict(tally, causes);
    if (req.timings) {
        nlohmann::json timed = report;
        timed["run"]["phases"] = phases.phases();
        fmt::print(term, "{}", render_phases(timed));
    }
    if (run.interrupted) {
        fmt::print(stderr, "gpuconform: interrupted; the partial report is marked so\n");
    }
    return run.exit_status;
}

}  // namespace gpuconform
