// host.upgrade.cuda_runtimes: does the driver support every CUDA runtime an application here may load?
#include "toolchain/cuda_runtimes.hpp"

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/child_process.hpp"
#include "host/host_fs.hpp"
#include "runtime/driver_compat.hpp"
#include "toolchain/probe_compile.hpp"
#include "toolchain/toolchain_checks.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

int cuda_capability_of_driver(const std::string& kernel_module) {
    // https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html, table
    // "CUDA Toolkit and Corresponding Driver Versions", Linux x86_64, GA releases.
    static const std::vector<std::pair<int, const char*>> k_table{
        {13000, "580.65.06"}, {12090, "575.51.03"}, {12080, "570.26"},    {12060, "560.28.03"},
        {12050, "555.42.02"}, {12040, "550.54.14"}, {12030, "545.23.06"}, {12020, "535.54.03"},
        {12010, "530.30.02"}, {12000, "525.60.13"}, {11080, "520.61.05"},
    };
    if (kernel_module.empty() || kernel_module == "in-tree") {
        return 0;
    }
    for (const auto& [cuda, minimum] : k_table) {
        if (compare_dotted(kernel_module, minimum) >= 0) {
            return cuda;
        }
    }
    return 0;
}

std::vector<std::string> parse_ldconfig_cudart(const std::string& text) {
    std::vector<std::string> out;
    const std::regex line(R"(^\s*libcudart\.so\.\d[^\s]*\s.*=>\s*(\S+))");
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) {
        std::smatch m;
        if (std::regex_search(l, m, line)) {
            out.push_back(m[1]);
        }
    }
    return out;
}

std::optional<int> cudart_version_from_name(const std::string& name) {
    std::smatch m;
    if (std::regex_search(name, m, std::regex(R"(libcudart\.so\.(\d+)(?:\.(\d+))?)"))) {
        return std::stoi(m[1]) * 1000 + (m[2].matched ? std::stoi(m[2]) * 10 : 0);
    }
    return std::nullopt;
}

std::optional<int> parse_torch_cuda(const std::string& text) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex(R"((?:^|\n)cuda\s*(?::[^=\n]*)?=\s*['"](\d+)\.(\d+))"))) {
        return std::stoi(m[1]) * 1000 + std::stoi(m[2]) * 10;
    }
    return std::nullopt;
}

Verdict judge_cuda_runtimes(const std::vector<CudaRuntimeSeen>& runtimes, const std::string& kernel_module,
                            int nvidia_gpus) {
    if (runtimes.empty()) {
        return {Status::Skip, "no CUDA runtime found (toolkits, ldconfig's libcudart, torch)", ""};
    }
    std::vector<std::string> seen;
    for (const auto& rt : runtimes) {
        seen.push_back(fmt::format("{} {}.{}", rt.where, rt.version / 1000, rt.version % 1000 / 10));
    }
    const int capability = cuda_capability_of_driver(kernel_module);
    if (capability == 0) {
        return {
            nvidia_gpus > 0 ? Status::Fail : Status::Info,
            fmt::format("no NVIDIA driver to judge against{}; runtimes: {}",
                        nvidia_gpus > 0 ? fmt::format(" although {} NVIDIA GPU(s) are on the bus", nvidia_gpus) : "",
                        fmt::join(seen, "; ")),
            nvidia_gpus > 0 ? "install the NVIDIA driver (see host.kernel_driver)" : ""};
    }
    std::vector<std::string> too_new;
    std::vector<std::string> fixes;
    for (const auto& rt : runtimes) {
        const auto v = judge_cuda_compat(capability, rt.version, kernel_module);
        if (v.status == Status::Fail) {
            too_new.push_back(fmt::format("{}: {}", rt.where, v.summary));
            fixes.push_back(v.remediation);
        }
    }
    const std::string drv =
        fmt::format("driver {} (CUDA {}.{})", kernel_module, capability / 1000, capability % 1000 / 10);
    if (!too_new.empty()) {
        return {Status::Fail, fmt::format("{} is too old for: {}", drv, fmt::join(too_new, "; ")), fixes.front()};
    }
    return {Status::Pass, fmt::format("{} supports every CUDA runtime here: {}", drv, fmt::join(seen, "; ")), ""};
}

namespace {

std::vector<CudaRuntimeSeen> collect_runtimes(const std::string& root) {
    std::vector<CudaRuntimeSeen> out;
    const char* path_env = std::getenv("PATH");
    for (const auto& tk : find_cuda_toolkits(root, path_env != nullptr ? path_env : "")) {
        if (tk.cudart_version) {
            out.push_back({fmt::format("toolkit of {}", tk.nvcc), *tk.cudart_version});
        }
    }
    // ldconfig -p lists what the dynamic loader resolves; the real file's name carries the full version.
    TempDir tmp;
    const auto outcome = run_child({"ldconfig", "-p"}, {}, tmp.path() + "/ldconfig.txt", 5.0);
    if (outcome.started && outcome.exit_code == 0) {
        for (const auto& lib : parse_ldconfig_cudart(read_text("/", tmp.path() + "/ldconfig.txt").value_or(""))) {
            std::error_code ec;
            const auto real = fs::canonical(under_root(root, lib), ec);
            if (auto v = cudart_version_from_name(ec ? lib : real.filename().string())) {
                out.push_back({fmt::format("{} (ldconfig)", ec ? lib : real.string()), *v});
            }
        }
    }
    // torch's version.py is read, not imported: importing torch takes seconds.
    for (const auto& base : {"/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages"}) {
        if (auto text = read_text(root, std::string(base) + "/torch/version.py")) {
            if (auto v = parse_torch_cuda(*text)) {
                out.push_back({fmt::format("torch ({}/torch/version.py)", base), *v});
            }
        }
    }
    for (const auto& lib : list_dir(root, "/usr/local/lib")) {
        if (lib.rfind("python3", 0) == 0) {
            if (auto text = read_text(root, "/usr/local/lib/" + lib + "/dist-packages/torch/version.py")) {
                if (auto v = parse_torch_cuda(*text)) {
                    out.push_back({fmt::format("torch (/usr/local/lib/{}/dist-packages)", lib), *v});
                }
            }
        }
    }
    return out;
}

}  // namespace

CheckDef make_upgrade_cuda_runtimes(const std::string& root) {
    return host_check(
        "host.upgrade.cuda_runtimes", "the NVIDIA driver supports every CUDA runtime here (toolkits, libcudart, torch)",
        [root](CheckContext& ctx, CheckResult& r) {
            const auto runtimes = collect_runtimes(root);
            const auto it = ctx.env.kernel_drivers.find("nvidia");
            const std::string module = it == ctx.env.kernel_drivers.end() ? "" : it->second;
            nlohmann::json list = nlohmann::json::array();
            for (const auto& rt : runtimes) {
                list.push_back({{"where", rt.where}, {"cuda_version", rt.version}});
            }
            r.facts = {
                {"runtimes", list}, {"kernel_module", module}, {"driver_cuda", cuda_capability_of_driver(module)}};
            apply(judge_cuda_runtimes(runtimes, module, count_pci_gpus(ctx.env, "nvidia")), r);
        });
}

}  // namespace gpuconform
