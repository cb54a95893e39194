#include <algorithm>
#include <cstdlib>
#include <vector>

#include <gnu/libc-version.h>
#include <grp.h>
#include <pwd.h>
#include <sys/resource.h>
#include <unistd.h>

extern char** environ;

#include "core/utf8.hpp"
#include "host/collect.hpp"
#include "host/instrumentation.hpp"
#include "host/gpu_env_vars.hpp"
#include "host/host_fs.hpp"
#include "host/parsers.hpp"

namespace gpuconform {

namespace {

std::optional<std::uint64_t> limit_bytes(rlim_t v) {
    if (v == RLIM_INFINITY) {
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(v);
}

std::string group_name(gid_t gid) {
    if (const group* g = getgrgid(gid)) {
        return g->gr_name;
    }
    return std::to_string(gid);
}

// The groups this process holds now: a user added to `render` gets it only at the next login.
std::vector<std::string> process_groups() {
    std::vector<gid_t> gids(static_cast<std::size_t>(std::max(0, getgroups(0, nullptr))));
    const int n = getgroups(static_cast<int>(gids.size()), gids.data());
    gids.resize(static_cast<std::size_t>(std::max(0, n)));
    const gid_t primary = getegid();
    std::vector<std::string> names{group_name(primary)};
    for (const gid_t g : gids) {
        if (g != primary) {
            names.push_back(group_name(g));
        }
    }
    return names;
}

}  // namespace

void collect_process_facts(Environment& env) {
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) == 0) {
        env.hostname = host;
    }
    env.glibc = gnu_get_libc_version();
    rlimit rl{};
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
        env.memlock_soft = limit_bytes(rl.rlim_cur);
        env.memlock_hard = limit_bytes(rl.rlim_max);
    }
    env.uid = static_cast<std::uint32_t>(getuid());
    if (const passwd* pw = getpwuid(getuid())) {
        env.user = pw->pw_name;
    } else {
        env.user = std::to_string(env.uid);
    }
    env.groups = process_groups();
    if (const auto status = read_text("/", "/proc/self/status")) {
        const auto caps = parse_cap_eff(*status);
        env.cap_ipc_lock = caps && ((*caps >> k_cap_ipc_lock_bit) & 1u) != 0;
    }
    collect_gpu_env(environ, env);
    env.instrumentation = collect_instrumentation();
}

void collect_gpu_env(char** environment, Environment& env) {
    for (char** e = environment; e != nullptr && *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const auto eq = entry.find('=');
        if (eq == std::string_view::npos) {
            continue;
        }
        const std::string name(entry.substr(0, eq));
        std::string value(entry.substr(eq + 1));
        const bool listed = find_gpu_env_var(name) != nullptr;
        if (!listed || !is_valid_utf8(name)) {
            continue;
        }
        if (name == "LD_LIBRARY_PATH") {
            const auto shadows = shadowing_library_dirs(value);
            if (shadows.empty()) {
                continue;  // an ordinary search path: not a GPU setting
            }
        }
        if (!is_valid_utf8(value)) {
            env.gpu_env_raw[name] = escape_bytes(value);  // the bytes as they were, \xNN-escaped
            value = to_valid_utf8(value);
        }
        env.gpu_env[name] = value;
    }
}

}  // namespace gpuconform
