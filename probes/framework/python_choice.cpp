#include "framework/python_choice.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/temp_dir.hpp"
#include "core/child_process.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

namespace {

// The probe prints two digits: pytest, torch.
constexpr const char* k_probe_code =
    "import importlib.util as u, sys\n"
    "sys.stdout.write(''.join('1' if u.find_spec(m) else '0' for m in ('pytest', 'torch')))\n";
constexpr double k_probe_timeout_s = 10;

std::string describe(const PythonModules& m) {
    if (m.pytest && m.torch) {
        return "has pytest and torch";
    }
    if (!m.pytest && !m.torch) {
        return "has neither pytest nor torch";
    }
    return m.pytest ? "has pytest but no torch" : "has torch but no pytest";
}

struct Candidate {
    std::string python;
    std::string source;
    std::optional<PythonModules> modules;
};

std::string canonical_or_self(const std::string& path) {
    std::error_code ec;
    const fs::path c = fs::canonical(path, ec);
    return ec ? path : c.string();
}

std::vector<std::string> pythons_on_path(const std::string& path) {
    std::vector<std::string> out;
    std::istringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "python3";
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
            out.push_back(candidate.string());
        }
    }
    return out;
}

// Each python3 on PATH, then the system's, once each by canonical path: /bin/python3 and
// /usr/bin/python3 are one on merged-/usr.
std::vector<Candidate> candidates_of(const std::string& path, const std::string& system_python) {
    std::vector<Candidate> candidates;
    std::vector<std::string> seen;
    const auto add = [&](const std::string& python, const std::string& source) {
        const std::string key = canonical_or_self(python);
        if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
            seen.push_back(key);
            candidates.push_back({python, source, std::nullopt});
        }
    };
    for (const auto& p : pythons_on_path(path)) {
        add(p, "python3 on PATH");
    }
    std::error_code ec;
    if (fs::exists(system_python, ec)) {
        add(system_python, "the system's python3");
    }
    return candidates;
}

}  // namespace

std::optional<PythonModules> probe_python(const std::string& python) {
    int fd = -1;
    const std::string name = make_temp_file("gpuconform-python-probe", "", fd);
    if (fd < 0) {
        return std::nullopt;
    }
    ::close(fd);
    const ChildOutcome out = run_child({python, "-c", k_probe_code}, {}, name, k_probe_timeout_s);
    std::ifstream in(name);
    std::string text;
    std::getline(in, text);
    ::unlink(name.c_str());
    if (!out.started || out.exit_code != 0 || text.size() < 2) {
        return std::nullopt;
    }
    const std::string digits = text.substr(text.size() - 2);
    return PythonModules{digits[0] == '1', digits[1] == '1'};
}

PythonChoice choose_python(const std::string& cli_value, const std::string& env_value, const std::string& path,
                           const PythonProbe& probe, const std::string& system_python) {
    if (!cli_value.empty()) {
        return {cli_value, "--python", std::nullopt,
                fmt::format("framework layer: {} (given with --python)", cli_value)};
    }
    if (!env_value.empty()) {
        return {env_value, "$GPUCONFORM_PYTHON", std::nullopt,
                fmt::format("framework layer: {} (given with GPUCONFORM_PYTHON)", env_value)};
    }
    std::vector<Candidate> candidates = candidates_of(path, system_python);
    for (auto& c : candidates) {
        c.modules = probe(c.python);
    }
    if (candidates.empty()) {
        return {"python3", "python3 on PATH", std::nullopt, "framework layer: no python3 on PATH nor " + system_python};
    }
    const auto pick = [&](auto wanted) -> const Candidate* {
        for (const auto& c : candidates) {
            if (c.modules && wanted(*c.modules)) {
                return &c;
            }
        }
        return nullptr;
    };
    const Candidate* chosen = pick([](const PythonModules& m) { return m.pytest && m.torch; });
    if (chosen == nullptr) {
        chosen = pick([](const PythonModules& m) { return m.pytest; });
    }
    if (chosen == nullptr) {
        chosen = &candidates.front();
    }
    std::string note = fmt::format("framework layer: {} ({}{})", chosen->python, chosen->source,
                                   chosen->modules ? ", " + describe(*chosen->modules) : ", could not be started");
    const Candidate& first = candidates.front();
    if (chosen != &first) {
        note += fmt::format("; the first python3 on PATH, {}, {}", first.python,
                            first.modules ? describe(*first.modules) : "could not be started");
    }
    return {chosen->python, chosen->source, chosen->modules, note};
}

PythonChoice choose_python(const std::string& cli_value) {
    const char* env = std::getenv("GPUCONFORM_PYTHON");
    const char* path = std::getenv("PATH");
    return choose_python(cli_value, env != nullptr ? env : "", path != nullptr ? path : "", probe_python);
}

std::string likely_python(const std::string& cli_value, const std::string& env_value, const std::string& path,
                          const std::string& system_python) {
    if (!cli_value.empty()) {
        return cli_value;
    }
    if (!env_value.empty()) {
        return env_value;
    }
    const std::vector<Candidate> candidates = candidates_of(path, system_python);
    return candidates.empty() ? "python3" : candidates.front().python;
}

std::string likely_python(const std::string& cli_value) {
    const char* env = std::getenv("GPUCONFORM_PYTHON");
    const char* path = std::getenv("PATH");
    return likely_python(cli_value, env != nullptr ? env : "", path != nullptr ? path : "");
}

}  // namespace gpuconform
