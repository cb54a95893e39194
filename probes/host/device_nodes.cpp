#include "host/device_nodes.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <regex>

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "host/host_checks.hpp"
#include "host/host_fs.hpp"

namespace gpuconform {

namespace {

std::string mode_string(mode_t m) {
    std::string s = S_ISCHR(m) ? "c" : S_ISDIR(m) ? "d" : S_ISBLK(m) ? "b" : "-";
    constexpr std::array<std::pair<mode_t, char>, 9> k_bits{{{S_IRUSR, 'r'},
                                                             {S_IWUSR, 'w'},
                                                             {S_IXUSR, 'x'},
                                                             {S_IRGRP, 'r'},
                                                             {S_IWGRP, 'w'},
                                                             {S_IXGRP, 'x'},
                                                             {S_IROTH, 'r'},
                                                             {S_IWOTH, 'w'},
                                                             {S_IXOTH, 'x'}}};
    for (const auto& [bit, c] : k_bits) {
        s += (m & bit) != 0 ? c : '-';
    }
    return s;
}

std::string user_name(uid_t uid) {
    const passwd* pw = getpwuid(uid);
    return pw != nullptr ? pw->pw_name : std::to_string(uid);
}

std::string group_name(gid_t gid) {
    const group* g = getgrgid(gid);
    return g != nullptr ? g->gr_name : std::to_string(gid);
}

void probe_family(const std::string& root, const std::string& dir, const std::regex& pattern, const std::string& first,
                  const std::string& vendor, std::vector<NodeProbe>& out) {
    bool any = false;
    for (const auto& name : list_dir(root, dir)) {
        if (std::regex_match(name, pattern)) {
            out.push_back(probe_node(root, dir + "/" + name, vendor, false));
            any = true;
        }
    }
    if (!any) {
        out.push_back(probe_node(root, dir + "/" + first, vendor, false));
    }
}

bool holds(const std::vector<std::string>& groups, const std::string& g) {
    return std::find(groups.begin(), groups.end(), g) != groups.end();
}

// What to do about one node this user cannot use.
std::string fix_for(const NodeProbe& n, const DeviceNodesInput& in) {
    if (!n.exists) {
        return n.vendor == "nvidia" ? "load the driver (modprobe nvidia; nvidia-modprobe or nvidia-persistenced "
                                      "create the nodes); in a container, pass the devices (--gpus / device plugin)"
                                    : "load amdgpu (modprobe amdgpu); in a container pass --device=/dev/kfd "
                                      "--device=/dev/dri";
    }
    if (!n.group.empty() && n.group != "root" && !holds(in.groups, n.group)) {
        return fmt::format("join group {} (usermod -aG {} {}), then log in again", n.group, n.group, in.user);
    }
    return fmt::format("make it readable and writable by this user (mode {} {}:{}; a udev rule sets it)", n.mode,
                       n.owner, n.group);
}

std::string describe(const NodeProbe& n) {
    if (!n.exists) {
        return fmt::format("{} missing", n.path);
    }
    return fmt::format("{} not openable ({}; {} {}:{})", n.path, n.error, n.mode, n.owner, n.group);
}

}  // namespace

NodeProbe probe_node(const std::string& root, const std::string& path, const std::string& vendor, bool lazy) {
    NodeProbe n;
    n.path = path;
    n.vendor = vendor;
    n.lazy = lazy;
    const auto full = under_root(root, path);
    struct stat st {};
    if (stat(full.c_str(), &st) != 0) {
        n.error = std::strerror(errno);
        return n;
    }
    n.exists = true;
    n.mode = mode_string(st.st_mode);
    n.owner = user_name(st.st_uid);
    n.group = group_name(st.st_gid);
    const int fd = open(full.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        n.error = std::strerror(errno);
        return n;
    }
    close(fd);
    n.openable = true;
    return n;
}

std::vector<NodeProbe> probe_vendor_nodes(const std::string& root, const std::string& vendor) {
    std::vector<NodeProbe> nodes;
    if (vendor == "nvidia") {
        nodes.push_back(probe_node(root, "/dev/nvidiactl", vendor, false));
        probe_family(root, "/dev", std::regex("nvidia[0-9]+"), "nvidia0", vendor, nodes);
        nodes.push_back(probe_node(root, "/dev/nvidia-uvm", vendor, true));
    } else if (vendor == "amd") {
        nodes.push_back(probe_node(root, "/dev/kfd", vendor, false));
        probe_family(root, "/dev/dri", std::regex("renderD[0-9]+"), "renderD128", vendor, nodes);
    }
    return nodes;
}

Verdict judge_device_nodes(const DeviceNodesInput& in) {
    if (in.nvidia_gpus == 0 && in.amd_gpus == 0) {
        return {Status::Skip, "no NVIDIA or AMD GPU on the PCI bus: no device nodes are needed", ""};
    }
    std::vector<std::string> failed;
    std::vector<std::string> fixes;
    std::vector<std::string> lazy_missing;
    std::vector<std::string> fine;
    for (const auto& n : in.nodes) {
        if (n.openable) {
            fine.push_back(n.path);
        } else if (n.lazy && !n.exists) {
            lazy_missing.push_back(n.path);
        } else {
            failed.push_back(describe(n));
            if (const auto fix = fix_for(n, in); std::find(fixes.begin(), fixes.end(), fix) == fixes.end()) {
                fixes.push_back(fix);
            }
        }
    }
    if (!failed.empty()) {
        return {Status::Fail,
                fmt::format("{}: the GPU runtime cannot reach the GPU as user {}", fmt::join(failed, "; "), in.user),
                fmt::format("{}", fmt::join(fixes, "; "))};
    }
    if (!lazy_missing.empty()) {
        return {Status::Warn,
                fmt::format("{} missing (the others open: {}); the driver creates it on first CUDA use, but if "
                            "nothing can create it (container, no nvidia-modprobe) CUDA fails to initialize",
                            fmt::join(lazy_missing, ", "), fmt::join(fine, ", ")),
                "run any CUDA program once as root, or enable nvidia-persistenced / nvidia-modprobe -u -c=0; in a "
                "container pass /dev/nvidia-uvm"};
    }
    // Root opens any node: a pass as root says nothing about the users who run jobs.
    return {Status::Pass,
            fmt::format("all {} device nodes open for user {}: {}{}", fine.size(), in.user, fmt::join(fine, ", "),
                        in.user == "root" ? " (as root: other users may still be refused)" : ""),
            ""};
}

CheckDef make_host_device_nodes(const std::string& root) {
    return host_check("host.device_nodes", "GPU device nodes exist and this user can open them",
                      [root](CheckContext& ctx, CheckResult& r) {
                          DeviceNodesInput in;
                          in.nvidia_gpus = count_pci_gpus(ctx.env, "nvidia");
                          in.amd_gpus = count_pci_gpus(ctx.env, "amd");
                          in.groups = ctx.env.groups;
                          in.user = ctx.env.user;
                          for (const auto* vendor : {"nvidia", "amd"}) {
                              if (count_pci_gpus(ctx.env, vendor) > 0) {
                                  auto nodes = probe_vendor_nodes(root, vendor);
                                  in.nodes.insert(in.nodes.end(), nodes.begin(), nodes.end());
                              }
                          }
                          nlohmann::json nodes = nlohmann::json::array();
                          for (const auto& n : in.nodes) {
                              nodes.push_back({{"path", n.path},
                                               {"exists", n.exists},
                                               {"openable", n.openable},
                                               {"error", n.error},
                                               {"mode", n.mode},
                                               {"owner", n.owner},
                                               {"group", n.group}});
                          }
                          r.facts = {{"nodes", nodes},
                                     {"groups", in.groups},
                                     {"in_video", holds(in.groups, "video")},
                                     {"in_render", holds(in.groups, "render")}};
                          apply(judge_device_nodes(in), r);
                      });
}

}  // namespace gpuconform
