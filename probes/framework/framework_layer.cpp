#include "framework/framework_layer.hpp"
#include "core/temp_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/safe_write.hpp"
#include "core/child_process.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_build_id = "framework.torch.build";
constexpr const char* k_install_hint =
    "install python3-pytest and python3-torch (apt-get install python3-pytest python3-torch), or pass "
    "--python (or set GPUCONFORM_PYTHON) to a Python that has pytest and a GPU build of torch";

std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The last non-empty line, for a summary that names the actual failure.
std::string last_line(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    std::string last;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") != std::string::npos) {
            last = line;
        }
    }
    return last;
}

nlohmann::json read_torch_env(const fs::path& path) {
    try {
        const auto j = nlohmann::json::parse(read_file(path));
        return j.is_object() ? j : nlohmann::json(nullptr);
    } catch (const std::exception&) {
        return nullptr;
    }
}

// Why the child produced no usable results, as the one result the layer reports.
CheckResult explain_failure(const FrameworkOptions& o, const ChildOutcome& child, const std::string& log,
                            const std::string& parse_error) {
    if (!child.started) {
        return framework_machinery_result(Status::Skip,
                                          fmt::format("no Python to run the framework checks: "
                                                      "'{}' could not be started ({})",
                                                      o.python, child.exec_error),
                                          k_install_hint);
    }
    if (log.find("No module named pytest") != std::string::npos) {
        return framework_machinery_result(Status::Skip,
                                          fmt::format("{} has no pytest, so the framework "
                                                      "checks cannot run",
                                                      o.python),
                                          k_install_hint);
    }
    if (child.timed_out) {
        return framework_machinery_result(Status::Error,
                                          fmt::format("the framework checks did not finish "
                                                      "within {:g} s and were killed",
                                                      o.timeout_s),
                                          "raise the framework layer's time limit, or run `pytest "
                                          "python_tests/framework` by hand to see which check hangs");
    }
    const std::string how = "pytest " + child.how;
    return framework_machinery_result(
        Status::Error,
        fmt::format("the framework checks gave no results ({}; {}): {}", how, parse_error, last_line(log)),
        "run `python3 -m pytest python_tests/framework` by hand to see the error");
}

}  // namespace

std::vector<std::string> framework_pytest_argv(const FrameworkOptions& o, const std::string& results_path,
                                               const std::string& native_path, const std::string& env_path,
                                               const std::string& timings_path) {
    std::vector<std::string> argv{o.python,
                                  "-m",
                                  "pytest",
                                  (fs::path(o.tests_dir) / "framework").string(),
                                  "-q",
                                  "-p",
                                  "no:cacheprovider",
                                  "--rootdir=" + o.tests_dir,
                                  "--gpuconform-results=" + results_path,
                                  "--gpuconform-native=" + native_path,
                                  "--gpuconform-env=" + env_path};
    if (!timings_path.empty()) {
        argv.push_back("--gpuconform-timings=" + timings_path);
    }
    if (o.quick) {
        argv.push_back("--gpuconform-quick");
    }
    if (!o.only_glob.empty()) {
        argv.push_back("--gpuconform-only=" + o.only_glob);
    }
    return argv;
}

std::vector<CheckResult> parse_framework_results(const std::string& json_text) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(json_text);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("results are not JSON: ") + e.what());
    }
    if (!doc.is_array()) {
        throw std::runtime_error("results are not a JSON list");
    }
    std::vector<CheckResult> out;
    for (const auto& item : doc) {
        CheckResult r;
        try {
            r = item.get<CheckResult>();
        } catch (const std::exception& e) {
            throw std::runtime_error(std::string("a result is malformed: ") + e.what());
        }
        if (r.id.rfind("framework.", 0) != 0 || r.layer != "framework") {
            throw std::runtime_error("a result is not a framework result: " + r.id);
        }
        out.push_back(std::move(r));
    }
    return out;
}

CheckResult framework_machinery_result(Status status, const std::string& summary, const std::string& remediation) {
    CheckResult r;
    r.id = k_build_id;
    r.layer = "framework";
    r.status = status;
    r.summary = summary;
    r.remediation = remediation;
    r.facts = {{"native_twin", nullptr}};
    return r;
}

namespace {

constexpr const char* k_results_file = "framework-results.json";
constexpr const char* k_native_file = "native-results.json";
constexpr const char* k_profile_file = "framework-profile.json";
constexpr const char* k_env_file = "framework-env.json";
constexpr const char* k_log_file = "framework-pytest.log";
constexpr const char* k_timings_file = "framework-timings.json";

}  // namespace

std::unique_ptr<FrameworkRun> FrameworkRun::start(const FrameworkOptions& options, PhaseLog* phases) {
    std::unique_ptr<FrameworkRun> run(new FrameworkRun());
    run->m_options = options;
    run->m_phases = phases;
    run->m_own_dir = options.work_dir.empty();
    std::error_code ec;
    fs::path dir = options.work_dir;
    if (run->m_own_dir) {
        dir = fs::path(make_temp_dir("gpuconform-framework"));
    } else {
        fs::create_directories(dir, ec);
    }
    run->m_dir = dir;
    if (dir.empty() || !fs::is_directory(dir, ec)) {
        run->m_setup_error = "no folder to exchange results with pytest: " + dir.string();
        return run;
    }
    for (const char* name : {k_results_file, k_env_file, k_timings_file}) {
        fs::remove(dir / name, ec);
    }
    // A socket rather than a pipe: send() with MSG_NOSIGNAL cannot raise SIGPIPE when pytest has gone.
    int go[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0) {
        run->m_setup_error = std::string("cannot create the framework layer's go socket: ") + std::strerror(errno);
        return run;
    }
    auto argv = framework_pytest_argv(options, (dir / k_results_file).string(), (dir / k_native_file).string(),
                                      (dir / k_env_file).string(), (dir / k_timings_file).string());
    if (!options.profile_json.empty()) {
        const fs::path profile = dir / k_profile_file;
        std::string error;
        if (!write_file_atomic(profile.string(), options.profile_json + "\n", error)) {
            run->m_setup_error = "cannot hand the profile's framework values to pytest: " + error;
            close(go[0]);
            close(go[1]);
            return run;
        }
        argv.push_back("--gpuconform-profile=" + profile.string());
    }
    // No bytecode written next to the installed tests; they may be read-only. No pytest plugin the
    // host has installed is loaded (ours comes from conftest.py): each costs start-up time, and one
    // that breaks on import would take the layer down with it.
    run->m_child = start_child(argv,
                               {{"PYTHONDONTWRITEBYTECODE", "1"},
                                {"PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"},
                                {k_go_fd_variable, std::to_string(go[1])}},
                               (dir / k_log_file).string(), go[1]);
    close(go[1]);
    run->m_go_fd = go[0];
    return run;
}

FrameworkRun::~FrameworkRun() {
    if (m_go_fd >= 0) {
        close(m_go_fd);
    }
    end_child(m_child);
    std::error_code ec;
    if (m_own_dir && !m_dir.empty()) {
        fs::remove_all(m_dir, ec);
    }
}

void FrameworkRun::record_child_phases() {
    if (m_phases == nullptr || !m_child.outcome.started) {
        return;
    }
    const auto child_start = m_child.start;
    // Until it was reaped: an early child that failed at once is only reaped at go.
    m_phases->add("framework.child", child_start,
                  child_start + std::chrono::duration_cast<PhaseLog::Clock::duration>(
                                    std::chrono::duration<double>(m_child.outcome.wall_s)));
    // The plugin's stamps (time.monotonic(), the same clock); unreadable stamps are left out.
    try {
        const auto j = nlohmann::json::parse(read_file(m_dir / k_timings_file));
        if (j.contains("loaded") && j["loaded"].is_number()) {
            m_phases->add("framework.python_start", child_start, monotonic_time_point(j["loaded"].get<double>()));
        }
        for (const auto& p : j.value("phases", nlohmann::json::array())) {
            if (p.is_object() && p.value("name", nlohmann::json()).is_string() &&
                p.value("start", nlohmann::json()).is_number() && p.value("end", nlohmann::json()).is_number()) {
                m_phases->add_monotonic("framework." + p["name"].get<std::string>(), p["start"].get<double>(),
                                        p["end"].get<double>());
            }
        }
    } catch (const std::exception&) {
    }
}

namespace {
// A child that already ended (no pytest, a crash) is explained by its outcome in finish().
void say(int fd, std::string_view line) { (void)::send(fd, line.data(), line.size(), MSG_NOSIGNAL); }
}  // namespace

void FrameworkRun::allow_gpu_start() {
    if (m_go_fd >= 0 && !m_gpu_allowed) {
        say(m_go_fd, "gpu\n");
        m_gpu_allowed = true;
    }
}

FrameworkOutcome FrameworkRun::finish(const std::vector<CheckResult>& native) {
    FrameworkOutcome outcome{{}, nullptr};
    if (!m_setup_error.empty()) {
        outcome.results.push_back(
            framework_machinery_result(Status::Error, m_setup_error, "pass a writable work folder"));
        return outcome;
    }
    const auto go_at = PhaseLog::Clock::now();
    std::ofstream(m_dir / k_native_file) << nlohmann::json(native).dump(-1, ' ', false,
                                                                        nlohmann::json::error_handler_t::replace)
                                         << '\n';
    // "gpu" first when it was not said yet (a late start, no device check): the plugin then
    // starts the driver beside torch's import instead of after it.
    allow_gpu_start();
    if (m_go_fd >= 0) {
        say(m_go_fd, "go\n");
        close(m_go_fd);
        m_go_fd = -1;
    }
    // The limit counts from go, as it counted from the start when pytest started here.
    const auto deadline = go_at + std::chrono::duration_cast<PhaseLog::Clock::duration>(
                                      std::chrono::duration<double>(m_options.timeout_s));
    const ChildOutcome child = wait_child(m_child, deadline, m_options.stop);
    // What the run waited for: from go, not from the early start (a child that failed at once
    // is only reaped here).
    const double waited_s = std::chrono::duration<double>(PhaseLog::Clock::now() - go_at).count();
    record_child_phases();
    const fs::path results = m_dir / k_results_file;
    std::error_code ec;
    std::string parse_error = "no results file";
    bool parsed = false;  // an empty list is fine: --only matched no check
    if (child.stopped) {
        outcome.results = {framework_machinery_result(Status::Error,
                                                      "the run was stopped (SIGINT/SIGTERM/SIGHUP); "
                                                      "pytest's process group was ended",
                                                      "")};
        outcome.results.front().duration_s = waited_s;
    } else if (child.started && !child.timed_out && fs::exists(results, ec)) {
        try {
            outcome.results = parse_framework_results(read_file(results));
            outcome.torch = read_torch_env(m_dir / k_env_file);
            parsed = true;
        } catch (const std::runtime_error& e) {
            parse_error = e.what();
        }
    }
    if (!parsed && !child.stopped) {
        outcome.results = {explain_failure(m_options, child, read_file(m_dir / k_log_file), parse_error)};
        outcome.results.front().duration_s = waited_s;
    }
    if (m_phases != nullptr) {
        m_phases->add("framework.layer", go_at, PhaseLog::Clock::now());
    }
    return outcome;
}

FrameworkOutcome run_framework_layer(const FrameworkOptions& options, const std::vector<CheckResult>& native) {
    return FrameworkRun::start(options)->finish(native);
}

}  // namespace gpuconform
