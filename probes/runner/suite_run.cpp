// `gpuconform run` from request to report, cut by phase. Each phase is one member function and
// reads what the phases before it left in the members; run() is the order and the early exits.
//
//   refuse_bad_input   profile, report and JUnit targets, the sim's memory   (exit 2, nothing run)
//   start_framework    the Python choice's probes; pytest and `import torch` start early on a large node
//   start_host_checks  beside the device checks on a large node, before them on a small one
//   start_backends     the workers are forked before anything here opens NVML
//   settle_python_choice the probes' answers; a different Python than the one started replaces it
//   read_health        the GPUs' own state, before any device check
//   run_backend_checks each loaded runtime's own checks; then a --device no runtime has is refused
//   run_device_checks  the device checks (--repeat times), folded with the host checks' results
//   finish_framework   the framework layer's results, after the GPU is free
//   read_health_growth the error counters again: what grew under our own work
//   write_report       causes and verdict assembled; the JSON report, JUnit, the terminal's summary
#include "runner/suite_run.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "checks/declarations.hpp"
#include "core/interrupt.hpp"
#include "core/safe_write.hpp"
#include "reports/junit.hpp"
#include "reports/render_phases.hpp"
#include "runner/causes.hpp"
#include "runner/module_loader.hpp"
#include "runner/report.hpp"
#include "runner/repeats.hpp"
#include "runner/selftest.hpp"
#include "runner/sim_capacity.hpp"
#include "host/environment_reader.hpp"

namespace gpuconform {

namespace {

int refused(const std::string& why) {
    fmt::print(stderr, "gpuconform: {}\nno checks were run.\n", why);
    return 2;
}

std::vector<const CheckDef*> select_checks(const RunRequest& req) {
    std::vector<const CheckDef*> out;
    for (const auto& c : all_checks()) {
        if (layer_chosen(req.layers, c.layer) && matches_any(c.id, req.only) && (!req.quick || c.quick)) {
            out.push_back(&c);
        }
    }
    return out;
}

std::vector<std::string> backend_names(const RunRequest& req) {
    return req.backends.empty() ? std::vector<std::string>{"cuda", "hip"} : req.backends;
}

}  // namespace

SuiteRun::SuiteRun(const RunRequest& req)
    : m_req(req), m_t0(std::chrono::steady_clock::now()), m_phases(m_t0), m_checks(select_checks(req)) {
    m_run.run_id = new_run_id();
    m_run.started = utc_now_iso();
    m_run.command_line = req.command_line;
    m_options.quick = req.quick;
    m_options.timeout_override_s = req.check_timeout_s;
    m_options.devices = req.devices;  // node checks (peers) keep to pairs with a chosen GPU
    m_options.budget_s = req.budget_s > 0 ? req.budget_s : k_default_acceptance_budget_s;
    m_needs_backends = std::any_of(m_checks.begin(), m_checks.end(), [](const CheckDef* c) {
        return c->scope == Scope::Backend || c->scope == Scope::Device || c->scope == Scope::Node;
    });
    m_framework_selected = layer_chosen(req.layers, "framework") && only_reaches_layer(req.only, "framework");
}

SuiteRun::~SuiteRun() = default;

int SuiteRun::run() {
    install_stop_handlers();
    if (const std::string why = refuse_bad_input(); !why.empty()) {
        return refused(why);
    }
    start_framework();
    if (const std::string why = sim_memory_problem(); !why.empty()) {
        return refused(why);
    }
    start_host_checks();
    start_backends();
    settle_python_choice();
    read_health();
    if (m_backends_started && !g_interrupted) {
        run_backend_checks();
        if (const int bad = m_device_phase->validate_devices(); bad >= 0) {
            fmt::print(stderr, "gpuconform: --device {} is out of range: {}\n", bad,
                       m_device_phase->describe_devices());
            return 2;
        }
        run_device_checks();
    }
    m_host_checks->finish(&m_phases, recorder());  // when the device block did not (an interrupted run)
    finish_framework();
    read_health_growth();
    return write_report();
}

SuiteRun::Record SuiteRun::recorder() {
    return [this](CheckResult r) {
        m_view->result(r);
        m_run.results.push_back(std::move(r));
    };
}

std::string SuiteRun::refuse_bad_input() {
    try {
        m_profile = load_profile(m_req.profile_files);
    } catch (const ProfileError& e) {
        return fmt::format("bad profile: {}", e.what());
    }
    m_run.profile_sources = m_profile.sources();
    for (const auto& l : known_layers()) {
        if (layer_chosen(m_req.layers, l)) {
            m_run.layers.push_back(l);
        }
    }
    {
        PhaseLog::Scope stamp(&m_phases, "host.environment");
        m_run.env = collect_environment("/");
    }
    m_output = ReportOutput::prepare(m_req.json_path, m_run.env.hostname);
    if (!m_output.error.empty()) {
        return m_output.error;
    }
    if (!m_req.junit_path.empty()) {
        const std::string problem = m_req.junit_path == "-" ? "needs a file path (stdout is the terminal view)"
                                                            : output_target_problem(m_req.junit_path);
        if (!problem.empty()) {
            return "--junit: " + problem;
        }
    }
    m_term = m_output.to_stdout ? stderr : stdout;
    m_view = std::make_unique<TerminalView>(m_term, m_req.quiet, m_req.verbose);
    m_view->header(fmt::format("gpuconform {} on {} ({}, kernel {})", GPUCONFORM_VERSION, m_run.env.hostname,
                               m_run.env.distro.pretty_name, m_run.env.kernel));
    return "";
}

FrameworkOptions SuiteRun::framework_options(const std::string& python) const {
    FrameworkOptions fw;
    fw.profile_json = m_profile.layers_json("framework.").dump(1);
    fw.python = python;
    fw.tests_dir = find_python_tests_dir();
    for (const auto& glob : m_req.only) {
        fw.only_glob += (fw.only_glob.empty() ? "" : ",") + glob;  // the plugin takes a comma-separated list
    }
    fw.quick = m_req.quick;
    fw.stop = &g_interrupted;
    // fw.work_dir stays empty: the framework layer makes a private folder and removes it.
    return fw;
}

// Python, pytest and `import torch` take seconds and need no GPU: they proceed while the host and
// device checks run; the plugin touches the GPU only after finish() says go. The choice of Python
// probes each candidate (a Python start each, ~50 ms); the probes start here and are answered in
// settle_python_choice(), after the device workers started. Meanwhile pytest already starts with
// the Python the choice most likely picks: a different pick replaces that child, told nothing yet.
void SuiteRun::start_framework() {
    if (!m_framework_selected) {
        return;
    }
    m_python_choice_start = PhaseLog::Clock::now();
    m_python_probes = std::make_unique<PythonProbes>(m_req.python);
    if (framework_starts_early(m_req.framework_start, usable_cpus())) {
        m_started_python = likely_python(m_req.python);
        m_framework = FrameworkRun::start(framework_options(m_started_python), &m_phases);
    } else {
        settle_python_choice();  // nothing to overlap: the note comes before any result
    }
}

void SuiteRun::settle_python_choice() {
    if (!m_python_probes) {
        return;
    }
    m_python = choose_python(m_req.python, *m_python_probes);
    m_python_probes.reset();
    m_phases.add("framework.python_choice", m_python_choice_start, PhaseLog::Clock::now());
    m_view->note(m_python.note);
    m_run.framework_python = {{"path", m_python.python}, {"source", m_python.source}, {"note", m_python.note}};
    if (m_python.modules) {
        m_run.framework_python["pytest"] = m_python.modules->pytest;
        m_run.framework_python["torch"] = m_python.modules->torch;
    }
    if (m_framework && m_python.python != m_started_python) {
        m_framework.reset();  // ends the first child's process group and removes its folder
        m_framework = FrameworkRun::start(framework_options(m_python.python), &m_phases);
    }
}

std::string SuiteRun::sim_memory_problem() const {
    const bool simulated = std::find(m_req.backends.begin(), m_req.backends.end(), "sim") != m_req.backends.end();
    return simulated && m_needs_backends ? sim_capacity_problem(m_req.sim_devices, mem_available_bytes())
                                         : std::string();
}

// Host checks need no GPU (a compile probe that runs takes the GPU turn, core/gpu_turn.hpp): with
// CPUs to spare they run beside the device checks; on a small node, before them.
void SuiteRun::start_host_checks() {
    m_host_checks = std::make_unique<HostChecks>(m_checks, m_run.env, m_profile, m_options);
    if (m_needs_backends && usable_cpus() >= k_early_start_min_cpus) {
        m_host_checks->start();
    } else {
        m_host_checks->run_here();
    }
    if (!m_host_checks->started()) {
        m_host_checks->finish(&m_phases, recorder());
    }
}

// The workers are forked before this process first opens NVML (the health readers, the occupancy
// sampler): NVML's state does not survive a fork, and a forked worker whose parent had initialised
// it cannot initialise it again (nvml/nvml_library.hpp). The acceptance layer reads clocks and
// link counters from the worker.
void SuiteRun::start_backends() {
    m_device_phase = std::make_unique<DevicePhase>(m_run.env, m_profile, m_options, m_req, recorder());
    m_device_phase->set_phase_log(&m_phases);
    m_backends_started = m_needs_backends && !g_interrupted;
    if (!m_backends_started) {
        return;
    }
    for (const auto& name : backend_names(m_req)) {
        m_device_phase->add_backend(name, name == "sim" ? sim_module_options(m_req.sim_devices, m_req.faults) : "");
    }
}

// The GPUs' own state, read in milliseconds without a GPU runtime, before any device check.
void SuiteRun::read_health() {
    m_health_read = has_health_checks(m_checks) && !g_interrupted;
    if (!m_health_read) {
        return;
    }
    m_health = health_readers(m_run.env, backend_names(m_req), sim_module_options(m_req.sim_devices, m_req.faults));
    m_health_before = run_health_checks(m_checks, m_health, m_run.env, m_profile, m_options, &m_phases, recorder());
}

// Checks of a runtime as loaded (its version, its devices), judged from what its worker reported.
void SuiteRun::run_backend_checks() {
    const Record record = recorder();
    for (const auto* def : m_checks) {
        if (def->scope != Scope::Backend) {
            continue;
        }
        for (const auto& info : m_device_phase->backends()) {
            if (info.name == def->backend) {
                record(run_host_check(*def, m_run.env, m_profile, m_options, &info));
            }
        }
    }
}

void SuiteRun::run_device_checks() {
    const Record record = recorder();
    PhaseLog::Scope device_stamp(&m_phases, "device.checks");
    // Once nothing of ours measures any more, the framework layer may start torch's GPU runtime:
    // it then overlaps the fault checks and their worker's end instead of following them.
    const std::function<void()> measuring_done = [this] {
        if (m_framework) {
            m_framework->allow_gpu_start();
        }
    };
    for (int i = 0; i < m_req.repeat && !g_interrupted; ++i) {
        m_device_phase->run_device_checks(m_checks, i + 1 == m_req.repeat ? measuring_done : nullptr);
    }
    device_stamp.end();
    if (m_host_checks->started()) {
        // Their results go first in the report, as when they ran first.
        std::vector<CheckResult> device_results = std::move(m_run.results);
        m_run.results.clear();
        m_host_checks->finish(&m_phases, record);
        for (auto& r : device_results) {
            m_run.results.push_back(std::move(r));
        }
    }
    m_run.results = fold_repeats(std::move(m_run.results), m_req.repeat);
    m_run.backends = m_device_phase->backends();
    if (!m_device_phase->first_occupancy().empty()) {
        m_run.gpu_occupancy = m_device_phase->first_occupancy();
    }
}

void SuiteRun::finish_framework() {
    if (m_framework_selected && !g_interrupted) {
        if (!m_framework) {
            m_framework = FrameworkRun::start(framework_options(m_python.python), &m_phases);
        }
        auto outcome = m_framework->finish(m_run.results);
        m_run.torch = outcome.torch;
        const Record record = recorder();
        for (auto& r : outcome.results) {
            if (matches_any(r.id, m_req.only)) {
                record(std::move(r));
            }
        }
    }
    m_framework.reset();  // a child never told to go (a stop) has its group ended here
}

// The error counters again, milliseconds: what grew under our own copies. Also after a stop, so
// that the partial report still says whether the links misbehaved while we ran.
void SuiteRun::read_health_growth() {
    if (m_health_read) {
        run_health_growth_checks(m_checks, m_health, m_health_before, m_run.env, m_profile, m_options, &m_phases,
                                 recorder());
    }
}

// Causes, the verdict's inputs and the exit status, into the run record.
void SuiteRun::assemble_report() {
    PhaseLog::Scope report_stamp(&m_phases, "report.assemble");
    attribute_environment(m_run.results, m_run.env);
    m_causes = group_causes(m_run.results, m_run.env);
    attribute_to_causes(m_run.results, m_causes);
    m_run.causes = m_causes;
    m_run.interrupted = g_interrupted;
    m_run.strict = m_req.strict;
    // Judged: pass, fail, warn, info. A node whose GPUs the device layer never judged is incomplete.
    const bool async_judged = std::any_of(m_run.results.begin(), m_run.results.end(), [](const CheckResult& r) {
        return r.layer == "async" && r.status != Status::Skip && r.status != Status::Error;
    });
    m_run.device_layer_missing = !m_run.env.pci_gpus.empty() && layer_chosen(m_req.layers, "async") &&
                                 only_reaches_layer(m_req.only, "async") && !async_judged;
    m_run.finished = utc_now_iso();
    m_run.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
    m_run.exit_status = exit_status_for(m_run.results, m_req.strict, m_run.interrupted);
}

// The JSON report, JUnit, and the terminal's summary, verdict and causes.
int SuiteRun::write_report() {
    assemble_report();
    m_run.phases = m_phases.phases();  // the write below cannot be in the file it writes: --timings shows it
    const auto report = build_report(m_run);
    const auto write_start = PhaseLog::Clock::now();
    std::string written;
    if (!m_output.write(report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", &written)) {
        fmt::print(stderr, "gpuconform: {}\n", written);
        return 2;
    }
    if (!m_req.junit_path.empty()) {
        std::string error;
        if (!write_file_atomic(m_req.junit_path, render_junit(report), error)) {
            fmt::print(stderr, "gpuconform: JUnit XML: {} (the JSON report was written)\n", error);
            return 2;
        }
    }
    m_phases.add("report.write", write_start, PhaseLog::Clock::now());
    m_view->summary(m_run.results, m_run.duration_s, m_output.to_stdout ? "" : written);
    VerdictTally tally = tally_results(m_run.results, m_run.interrupted, m_req.strict);
    tally.device_layer_missing = m_run.device_layer_missing;
    m_view->verdict(tally, m_causes);
    if (m_req.timings) {
        nlohmann::json timed = report;
        timed["run"]["phases"] = m_phases.phases();
        fmt::print(m_term, "{}", render_phases(timed));
    }
    if (m_run.interrupted) {
        fmt::print(stderr, "gpuconform: interrupted; the partial report is marked so\n");
    }
    return m_run.exit_status;
}

int run_suite(const RunRequest& req) { return SuiteRun(req).run(); }

}  // namespace gpuconform
