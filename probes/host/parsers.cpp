#include "host/parsers.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <sstream>

#include "host/host_fs.hpp"

namespace gpuconform {

namespace {

// os-release values may be quoted with " or ' and use backslash escapes.
std::string unquote(std::string v) {
    v = trim(v);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
        v = v.substr(1, v.size() - 2);
    }
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) {
            ++i;
        }
        out += v[i];
    }
    return out;
}

// "key\t: value" lines of /proc/cpuinfo and /proc/self/status.
bool split_colon(const std::string& line, std::string& key, std::string& value) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
        return false;
    }
    key = trim(line.substr(0, colon));
    value = trim(line.substr(colon + 1));
    return true;
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

}  // namespace

Distro parse_os_release(const std::string& text) {
    Distro d;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto eq = line.find('=');
        if (eq == std::string::npos || trim(line).starts_with("#")) {
            continue;
        }
        const auto key = trim(line.substr(0, eq));
        const auto value = unquote(line.substr(eq + 1));
        if (key == "ID") {
            d.id = value;
        } else if (key == "VERSION_ID") {
            d.version_id = value;
        } else if (key == "PRETTY_NAME") {
            d.pretty_name = value;
        }
    }
    return d;
}

CpuInfo parse_cpuinfo(const std::string& text) {
    CpuInfo info;
    std::string fallback_model;
    std::istringstream in(text);
    for (std::string line, key, value; std::getline(in, line);) {
        if (!split_colon(line, key, value)) {
            continue;
        }
        if (key == "processor") {
            ++info.logical_cpus;
        } else if (key == "model name" && info.model.empty()) {
            info.model = value;
        } else if ((key == "Model" || key == "Hardware" || key == "cpu model") && fallback_model.empty()) {
            fallback_model = value;
        }
    }
    if (info.model.empty()) {
        info.model = fallback_model;
    }
    return info;
}

std::optional<std::uint64_t> parse_meminfo_total(const std::string& text) {
    std::istringstream in(text);
    for (std::string line, key, value; std::getline(in, line);) {
        if (split_colon(line, key, value) && key == "MemTotal") {
            std::uint64_t kib = 0;
            const auto r = std::from_chars(value.data(), value.data() + value.size(), kib);
            if (r.ec != std::errc{}) {
                return std::nullopt;
            }
            return kib * 1024;  // the kernel's "kB" is KiB
        }
    }
    return std::nullopt;
}

std::optional<std::uint64_t> parse_cap_eff(const std::string& text) {
    std::istringstream in(text);
    for (std::string line, key, value; std::getline(in, line);) {
        if (split_colon(line, key, value) && key == "CapEff") {
            std::uint64_t v = 0;
            const auto r = std::from_chars(value.data(), value.data() + value.size(), v, 16);
            if (r.ec != std::errc{}) {
                return std::nullopt;
            }
            return v;
        }
    }
    return std::nullopt;
}

std::string parse_cgroup(const std::string& text) {
    std::istringstream in(text);
    std::string first;
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        if (line.empty()) {
            continue;
        }
        if (line.starts_with("0::")) {
            return line.substr(3);  // cgroup v2: the unified hierarchy's path
        }
        if (first.empty()) {
            first = line;
        }
        const auto c1 = line.find(':');
        const auto c2 = line.find(':', c1 + 1);
        if (c1 != std::string::npos && c2 != std::string::npos && contains(line.substr(c1, c2 - c1), "memory")) {
            return line;  // cgroup v1: the memory controller's line is the one limits apply to
        }
    }
    return first;
}

std::string detect_container(const ContainerHints& hints) {
    const auto& cg = hints.cgroup_text;
    if (hints.kubernetes_env || contains(cg, "kubepods")) {
        return "kubernetes";
    }
    if (hints.dockerenv || contains(cg, "/docker") || contains(cg, "docker-")) {
        return "docker";
    }
    if (hints.containerenv || contains(cg, "libpod")) {
        return "podman";
    }
    if (contains(cg, "/lxc") || contains(cg, "lxc.payload")) {
        return "lxc";
    }
    if (contains(cg, "containerd")) {
        return "containerd";
    }
    return "";
}

std::string parse_bracketed_choice(const std::string& text) {
    auto t = trim(text);
    const auto open = t.find('[');
    const auto close = t.find(']', open);
    if (open == std::string::npos || close == std::string::npos) {
        return t;
    }
    return t.substr(open + 1, close - open - 1);
}

}  // namespace gpuconform
