// Which kernels are installed, which of them have a GPU kernel module, and which boots next.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/verdict.hpp"

namespace gpuconform {

struct InstalledKernel {
    std::string release;         // "6.1.0-28-amd64", the name under /lib/modules and after vmlinuz-
    bool has_image = false;      // /boot/vmlinuz-<release>
    bool nvidia_module = false;  // nvidia.ko* anywhere below /lib/modules/<release> (DKMS: updates/dkms)
    bool amdgpu_module = false;
};

// Kernels below `root` from /lib/modules/* and /boot/vmlinuz-*, sorted oldest first.
std::vector<InstalledKernel> scan_kernels(const std::string& root);

// -1, 0, 1 comparing kernel releases by their numbers in order ("6.1.0-28" < "6.12.48+deb13").
int compare_kernel_release(const std::string& a, const std::string& b);

// The release of the first `linux /boot/vmlinuz-<release>` line of grub.cfg (GRUB_DEFAULT=0), or "".
std::string grub_first_kernel(const std::string& grub_cfg);

// The rule, in order: GRUB's first entry when GRUB_DEFAULT is 0 (or unset) and grub.cfg exists;
// otherwise the newest kernel with an image (what Debian's update-grub lists first).
struct BootChoice {
    std::string release;
    std::string why;
};
BootChoice next_boot_kernel(const std::vector<InstalledKernel>& kernels, const std::string& grub_cfg,
                            const std::string& grub_default);

Verdict judge_next_boot(const std::vector<InstalledKernel>& kernels, const BootChoice& next, int nvidia_gpus,
                        int amd_gpus, const std::string& running);

}  // namespace gpuconform
