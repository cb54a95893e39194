#include "framework/framework_layer.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <unistd.h>

#include "framework/child_process.hpp"

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
        return framework_machinery_result(Status::Skip, fmt::format("no Python to run the framework checks: "
                                          "'{}' could not be started ({})", o.python, child.exec_error), k_install_hint);
    }
    if (log.find("No module named pytest") != std::string::npos) {
        return framework_machinery_result(Status::Skip, fmt::format("{} has no pytest, so the framework "
                                          "checks cannot run", o.python), k_install_hint);
    }
    if (child.timed_out) {
        return framework_machinery_result(Status::Error, fmt::format("the framework checks did not finish "
                                          "within {:g} s and were killed", o.timeout_s),
                                          "raise the framework layer's time limit, or run `pytest "
                                          "python_tests/framework` by hand to see which check hangs");
    }
    const std::string how = child.signal != 0 ? fmt::format("pytest was killed by signal {}", child.signal)
                                              : fmt::format("pytest exited with status {}", child.exit_code);
    return framework_machinery_result(Status::Error, fmt::format("the framework checks gave no results ({}; {}): {}",
                                      how, parse_error, last_line(log)),
                                      "run `python3 -m pytest python_tests/framework` by hand to see the error");
}

}  // namespace

std::string find_python(const std::string& cli_value) {
    if (!cli_value.empty()) {
        return cli_value;
    }
    if (const char* env = std::getenv("GPUCONFORM_PYTHON"); env != nullptr && *env != '\0') {
        return env;
    }
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path != nullptr ? path : "");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "python3";
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
            return candidate.string();
        }
    }
    return "python3";
}

std::vector<std::string> framework_pytest_argv(const FrameworkOptions& o, const std::string& results_path,
                                               const std::string& native_path, const std::string& env_path) {
    std::vector<std::string> argv{o.python, "-m", "pytest", (fs::path(o.tests_dir) / "framework").string(),
                                  "-q", "-p", "no:cacheprovider", "--rootdir=" + o.tests_dir,
                                  "--gpuconform-results=" + results_path, "--gpuconform-native=" + native_path,
                                  "--gpuconform-env=" + env_path};
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

FrameworkOutcome run_framework_layer(const FrameworkOptions& options, const std::vector<CheckResult>& native) {
    FrameworkOutcome outcome{{}, nullptr};
    const bool own_dir = options.work_dir.empty();
    std::error_code ec;
    fs::path dir = options.work_dir;
    if (own_dir) {
        std::string pattern = (fs::temp_directory_path(ec) / "gpuconform-framework-XXXXXX").string();
        dir = ::mkdtemp(pattern.data()) != nullptr ? fs::path(pattern) : fs::path();
    } else {
        fs::create_directories(dir, ec);
    }
    if (dir.empty() || !fs::is_directory(dir, ec)) {
        outcome.results.push_back(framework_machinery_result(Status::Error, "no folder to exchange results with "
                                  "pytest: " + dir.string(), "pass a writable work folder"));
        return outcome;
    }
    const fs::path results = dir / "framework-results.json";
    const fs::path native_file = dir / "native-results.json";
    const fs::path env_file = dir / "framework-env.json";
    const fs::path log_file = dir / "framework-pytest.log";
    fs::remove(results, ec);
    fs::remove(env_file, ec);
    std::ofstream(native_file) << nlohmann::json(native).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    const auto argv = framework_pytest_argv(options, results.string(), native_file.string(), env_file.string());
    // No bytecode written next to the installed tests; they may be read-only.
    const ChildOutcome child = run_child(argv, {{"PYTHONDONTWRITEBYTECODE", "1"}}, log_file.string(), options.timeout_s,
                                        options.stop);
    std::string parse_error = "no results file";
    bool parsed = false;  // an empty list is fine: --only matched no check
    if (child.stopped) {
        outcome.results = {framework_machinery_result(Status::Error, "the run was stopped (SIGINT/SIGTERM/SIGHUP); "
                                                      "pytest's process group was ended", "")};
        outcome.results.front().duration_s = child.wall_s;
    } else if (child.started && !child.timed_out && fs::exists(results, ec)) {
        try {
            outcome.results = parse_framework_results(read_file(results));
            outcome.torch = read_torch_env(env_file);
            parsed = true;
        } catch (const std::runtime_error& e) {
            parse_error = e.what();
        }
    }
    if (!parsed && !child.stopped) {
        outcome.results = {explain_failure(options, child, read_file(log_file), parse_error)};
        outcome.results.front().duration_s = child.wall_s;
    }
    if (own_dir) {
        fs::remove_all(dir, ec);
    }
    return outcome;
}

}  // namespace gpuconform
