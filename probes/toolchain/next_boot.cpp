// host.upgrade.next_boot: will the kernel that boots next have a GPU kernel module?
#include "toolchain/next_boot.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "host/host_fs.hpp"
#include "toolchain/toolchain_checks.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

int compare_kernel_release(const std::string& a, const std::string& b) {
    auto numbers = [](const std::string& s) {
        std::vector<long> out;
        const std::regex num(R"(\d+)");
        for (auto it = std::sregex_iterator(s.begin(), s.end(), num); it != std::sregex_iterator(); ++it) {
            out.push_back(std::stol(it->str()));
        }
        return out;
    };
    const auto na = numbers(a);
    const auto nb = numbers(b);
    for (std::size_t i = 0; i < std::min(na.size(), nb.size()); ++i) {
        if (na[i] != nb[i]) {
            return na[i] < nb[i] ? -1 : 1;
        }
    }
    return na.size() == nb.size() ? a.compare(b) < 0 ? -1 : (a == b ? 0 : 1) : (na.size() < nb.size() ? -1 : 1);
}

std::vector<InstalledKernel> scan_kernels(const std::string& root) {
    std::map<std::string, InstalledKernel> found;
    for (const auto& name : list_dir(root, "/lib/modules")) {
        auto& k = found[name];
        k.release = name;
        std::error_code ec;
        const fs::path dir = under_root(root, "/lib/modules/" + name);
        for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            const auto file = it->path().filename().string();
            // nvidia.ko, nvidia.ko.xz, nvidia.ko.zst; Debian's DKMS names it nvidia-current.ko.
            k.nvidia_module =
                k.nvidia_module || file.rfind("nvidia.ko", 0) == 0 || file.rfind("nvidia-current.ko", 0) == 0;
            k.amdgpu_module = k.amdgpu_module || file.rfind("amdgpu.ko", 0) == 0;
        }
    }
    for (const auto& name : list_dir(root, "/boot")) {
        if (name.rfind("vmlinuz-", 0) == 0) {
            auto& k = found[name.substr(8)];
            k.release = name.substr(8);
            k.has_image = true;
        }
    }
    std::vector<InstalledKernel> out;
    for (auto& [name, k] : found) {
        out.push_back(k);
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return compare_kernel_release(a.release, b.release) < 0; });
    return out;
}

std::string grub_first_kernel(const std::string& grub_cfg) {
    std::smatch m;
    if (std::regex_search(grub_cfg, m, std::regex(R"(\n\s*linux\s+\S*/vmlinuz-(\S+))"))) {
        return m[1];
    }
    return "";
}

BootChoice next_boot_kernel(const std::vector<InstalledKernel>& kernels, const std::string& grub_cfg,
                            const std::string& grub_default) {
    if (!grub_cfg.empty() && (grub_default.empty() || grub_default == "0")) {
        if (auto first = grub_first_kernel(grub_cfg); !first.empty()) {
            return {first, "the first entry of /boot/grub/grub.cfg (GRUB_DEFAULT=0)"};
        }
    }
    for (auto it = kernels.rbegin(); it != kernels.rend(); ++it) {
        if (it->has_image) {
            return {it->release,
                    grub_default.empty() || grub_default == "0"
                        ? "the newest /boot/vmlinuz-* (no grub.cfg to read)"
                        : fmt::format("the newest /boot/vmlinuz-* (GRUB_DEFAULT={} not followed)", grub_default)};
        }
    }
    return {"", "no /boot/vmlinuz-* installed"};
}

Verdict judge_next_boot(const std::vector<InstalledKernel>& kernels, const BootChoice& next, int nvidia_gpus,
                        int amd_gpus, const std::string& running) {
    if (kernels.empty() || next.release.empty()) {
        return {Status::Skip, "no kernel image in /boot (a container or chroot?): the next boot is decided elsewhere",
                ""};
    }
    std::vector<std::string> without;
    std::vector<std::string> listing;
    const InstalledKernel* boot = nullptr;
    for (const auto& k : kernels) {
        const bool ok = (nvidia_gpus == 0 || k.nvidia_module) && (amd_gpus == 0 || k.amdgpu_module);
        listing.push_back(fmt::format("{}{}: {}", k.release, k.release == running ? " (running)" : "",
                                      k.nvidia_module ? "nvidia" : (k.amdgpu_module ? "amdgpu" : "no GPU module")));
        if (!ok) {
            without.push_back(k.release);
        }
        if (k.release == next.release) {
            boot = &k;
        }
    }
    if (nvidia_gpus == 0 && amd_gpus == 0) {
        return {Status::Info,
                fmt::format("no GPU on the bus; next boot: {} ({}); kernels: {}", next.release, next.why,
                            fmt::join(listing, "; ")),
                ""};
    }
    const std::string vendor = nvidia_gpus > 0 ? "nvidia" : "amdgpu";
    if (boot == nullptr || std::find(without.begin(), without.end(), next.release) != without.end()) {
        return {Status::Fail,
                fmt::format("the next boot starts kernel {} ({}), which has no {} module: after the reboot the GPUs "
                            "will be unusable (no driver loads)",
                            next.release, next.why, vendor),
                fmt::format("build the driver for it before rebooting (apt install linux-headers-{} and let DKMS "
                            "build it: dkms autoinstall -k {}), or make a kernel with the module the default "
                            "(GRUB_DEFAULT, update-grub)",
                            next.release, next.release)};
    }
    if (!without.empty()) {
        return {
            Status::Warn,
            fmt::format("next boot: {} has the {} module ({}), but {} {} no GPU module: booting it loses the GPUs",
                        next.release, vendor, next.why, fmt::join(without, ", "), without.size() == 1 ? "has" : "have"),
            "build the driver for those kernels too (linux-headers-<release> + DKMS), or remove them"};
    }
    return {Status::Pass,
            fmt::format("every installed kernel has the {} module; next boot: {} ({})", vendor, next.release, next.why),
            ""};
}

namespace {

// GRUB_DEFAULT from /etc/default/grub, unquoted; "" when unset.
std::string grub_default_of(const std::string& text) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex(R"((?:^|\n)GRUB_DEFAULT=["']?([^"'\n]*))"))) {
        return m[1];
    }
    return "";
}

}  // namespace

CheckDef make_upgrade_next_boot(const std::string& root) {
    return host_check("host.upgrade.next_boot", "every installed kernel, and the next one to boot, has a GPU module",
                      [root](CheckContext& ctx, CheckResult& r) {
                          const auto kernels = scan_kernels(root);
                          const auto next =
                              next_boot_kernel(kernels, read_text(root, "/boot/grub/grub.cfg").value_or(""),
                                               grub_default_of(read_text(root, "/etc/default/grub").value_or("")));
                          nlohmann::json list = nlohmann::json::array();
                          for (const auto& k : kernels) {
                              list.push_back({{"release", k.release},
                                              {"image", k.has_image},
                                              {"nvidia_module", k.nvidia_module},
                                              {"amdgpu_module", k.amdgpu_module}});
                          }
                          r.facts = {{"kernels", list}, {"next_boot", next.release}, {"rule", next.why}};
                          apply(judge_next_boot(kernels, next, count_pci_gpus(ctx.env, "nvidia"),
                                                count_pci_gpus(ctx.env, "amd"), ctx.env.kernel),
                                r);
                      });
}

}  // namespace gpuconform
