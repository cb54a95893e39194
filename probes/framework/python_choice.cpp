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

struct PythonProbes::Started {
    std::string python;
    std::string out_path;  // the probe's stdout; "" when no file could be made
    StartedChild child;

    explicit Started(const std::string& p) : python(p) {
        int fd = -1;
        out_path = make_temp_file("gpuconform-python-probe", "", fd);
        if (fd < 0) {
            out_path.clear();
            return;
        }
        ::close(fd);
        child = start_child({python, "-c", k_probe_code}, {}, out_path);
    }
    ~Started() {
        end_child(child);
        if (!out_path.empty()) {
            ::unlink(out_path.c_str());
        }
    }
    Started(const Started&) = delete;
    Started& operator=(const Started&) = delete;

    std::optional<PythonModules> answer() {
        if (out_path.empty()) {
            return std::nullopt;
        }
        const auto deadline = child.start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(k_probe_timeout_s));
        const ChildOutcome out = wait_child(child, deadline);
        std::ifstream in(out_path);
        std::string text;
        std::getline(in, text);
        if (!out.started || out.exit_code != 0 || text.size() < 2) {
            return std::nullopt;
        }
        const std::string digits = text.substr(text.size() - 2);
        return PythonModules{digits[0] == '1', digits[1] == '1'};
    }
};

std::optional<PythonModules> probe_python(const std::string& python) { return PythonProbes::Started(python).answer(); }

namespace {

std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "";
}

}  // namespace

PythonProbes::PythonProbes(const std::string& cli_value) {
    if (!cli_value.empty() || !env_or_empty("GPUCONFORM_PYTHON").empty()) {
        return;
    }
    for (const auto& c : candidates_of(env_or_empty("PATH"), "/usr/bin/python3")) {
        m_started.push_back(std::make_unique<Started>(c.python));
    }
}

PythonProbes::~PythonProbes() = default;

std::optional<PythonModules> PythonProbes::answer(const std::string& python) {
    for (const auto& s : m_started) {
        if (s->python == python) {
            return s->answer();
        }
    }
    return probe_python(python);
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
    return choose_python(cli_value, env_or_empty("GPUCONFORM_PYTHON"), env_or_empty("PATH"), probe_python);
}

PythonChoice choose_python(const std::string& cli_value, PythonProbes& probes) {
    return choose_python(cli_value, env_or_empty("GPUCONFORM_PYTHON"), env_or_empty("PATH"),
                         [&probes](const std::string& python) { return probes.answer(python); });
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
    return likely_python(cli_value, env_or_empty("GPUCONFORM_PYTHON"), env_or_empty("PATH"));
}

}  // namespace gpuconform
