// host.upgrade.amd_code_objects: predicts hipErrorNoBinaryForGpu before a job meets it.
#include "toolchain/amd_code_objects.hpp"

#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "host/host_fs.hpp"
#include "toolchain/toolchain_checks.hpp"

namespace gpuconform {

std::string gfx_name_from_target_version(long v) {
    if (v <= 0) {
        return "";
    }
    return fmt::format("gfx{}{:x}{:x}", v / 10000, (v / 100) % 100, v % 100);
}

std::vector<std::string> scan_kfd_targets(const std::string& root) {
    std::vector<std::string> out;
    const std::string base = "/sys/class/kfd/kfd/topology/nodes";
    for (const auto& node : list_dir(root, base)) {
        const auto text = read_text(root, base + "/" + node + "/properties").value_or("");
        std::smatch m;
        if (std::regex_search(text, m, std::regex(R"((?:^|\n)gfx_target_version\s+(\d+))"))) {
            if (auto name = gfx_name_from_target_version(std::stol(m[1])); !name.empty()) {
                out.push_back(name);
            }
        }
    }
    return out;
}

std::set<std::string> targets_in_file_names(const std::vector<std::string>& names) {
    std::set<std::string> out;
    const std::regex gfx(R"(gfx[0-9]+[0-9a-f]*)");
    for (const auto& n : names) {
        for (auto it = std::sregex_iterator(n.begin(), n.end(), gfx); it != std::sregex_iterator(); ++it) {
            out.insert(it->str());
        }
    }
    return out;
}

std::vector<RocmLibrary> scan_rocblas(const std::string& root) {
    std::vector<std::string> dirs;
    const std::string debian = "/usr/lib/x86_64-linux-gnu/rocblas";
    for (const auto& version : list_dir(root, debian)) {
        dirs.push_back(debian + "/" + version + "/library");
    }
    for (const auto& opt : list_dir(root, "/opt")) {
        if (opt.rfind("rocm", 0) == 0) {
            dirs.push_back("/opt/" + opt + "/lib/rocblas/library");
        }
    }
    std::vector<RocmLibrary> out;
    for (const auto& d : dirs) {
        const auto names = list_dir(root, d);
        if (!names.empty()) {
            out.push_back({d, targets_in_file_names(names)});
        }
    }
    return out;
}

Verdict judge_amd_code_objects(const std::vector<std::string>& gpus, const std::vector<RocmLibrary>& libs) {
    if (gpus.empty()) {
        return {Status::Skip, "no AMD GPU in /sys/class/kfd (amdgpu not loaded, or none on the node)", ""};
    }
    if (libs.empty()) {
        return {Status::Skip,
                fmt::format("GPUs {}, but no rocBLAS library folder to compare with", fmt::join(gpus, ", ")), ""};
    }
    std::vector<std::string> missing;
    for (const auto& lib : libs) {
        for (const auto& g : std::set<std::string>(gpus.begin(), gpus.end())) {
            if (lib.targets.count(g) == 0) {
                missing.push_back(fmt::format("{} has no code objects for {} (it carries {})", lib.dir, g,
                                              fmt::join(lib.targets, " ")));
            }
        }
    }
    if (!missing.empty()) {
        return {Status::Fail,
                fmt::format("{}: rocBLAS calls on that GPU will fail (hipErrorNoBinaryForGpu / no Tensile library "
                            "for the architecture)",
                            fmt::join(missing, "; ")),
                "install a rocBLAS built for the GPU's target (AMD's ROCm packages list the supported GPUs), or "
                "rebuild it with -DAMDGPU_TARGETS including that target"};
    }
    return {Status::Pass,
            fmt::format("rocBLAS carries code objects for every GPU target here: {}", fmt::join(gpus, ", ")), ""};
}

CheckDef make_upgrade_amd_code_objects(const std::string& root) {
    return host_check("host.upgrade.amd_code_objects",
                      "each AMD GPU's gfx target has code objects in the installed rocBLAS",
                      [root](CheckContext&, CheckResult& r) {
                          const auto gpus = scan_kfd_targets(root);
                          const auto libs = scan_rocblas(root);
                          nlohmann::json l = nlohmann::json::array();
                          for (const auto& lib : libs) {
                              l.push_back({{"dir", lib.dir}, {"targets", lib.targets}});
                          }
                          r.facts = {{"gpu_targets", gpus}, {"rocblas", l}};
                          apply(judge_amd_code_objects(gpus, libs), r);
                      });
}

}  // namespace gpuconform
