// host.toolchain.cuda_compile: every nvcc on the node compiles and links a tiny kernel that includes
// <cmath>, with its default host compiler and with the distro's default C++ compiler; on a node with
// an NVIDIA GPU the probe also runs. A failure names its cause and the fix.
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/gpu_turn.hpp"
#include "core/interrupt.hpp"
#include "core/child_process.hpp"
#include "host/host_fs.hpp"
#include "host/verdict.hpp"
#include "toolchain/compile_reuse.hpp"
#include "toolchain/probe_compile.hpp"
#include "toolchain/toolchain_checks.hpp"

namespace gpuconform {

namespace {

constexpr double k_compile_limit_s = 120.0;
constexpr double k_run_limit_s = 30.0;

std::string limits_text(const HostCompilerLimits& l) {
    std::vector<std::string> parts;
    parts.push_back(l.gcc_max ? fmt::format("gcc <= {}", *l.gcc_max) : "gcc: no limit found");
    if (l.clang_max) {
        parts.push_back(fmt::format("clang <= {}", *l.clang_max));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

// Runs the probe binary; returns "" when it could not say (no GPU), else the outcome in words.
std::string run_probe(const std::string& binary, const std::string& dir, bool* ok) {
    const auto outcome = [&] {
        std::lock_guard<std::mutex> turn(gpu_timing_turn());  // never inside a device measurement
        return run_child({binary}, {}, dir + "/run.log", k_run_limit_s, &g_interrupted);
    }();
    const auto out = trim(read_text("/", dir + "/run.log").value_or(""));
    *ok = outcome.started && !outcome.timed_out && outcome.exit_code == 0;
    if (outcome.timed_out) {
        return fmt::format("the probe hung: killed after {} s", k_run_limit_s);
    }
    if (outcome.exit_code == 3) {
        *ok = true;  // compiled fine; the runtime sees no device, which other checks judge
        return "";
    }
    return out.empty() ? fmt::format("exit {}", outcome.exit_code) : out;
}

void run_cuda_compile(CheckContext& ctx, CheckResult& r) {
    if (ctx.options.quick) {
        throw SkipCheck("--quick: the compile probes take seconds; run without --quick to compile with every nvcc");
    }
    const char* path_env = std::getenv("PATH");
    const auto toolkits = find_cuda_toolkits("/", path_env != nullptr ? path_env : "");
    if (toolkits.empty()) {
        throw SkipCheck("no nvcc in /usr/bin, /usr/local/cuda*/bin or on PATH");
    }
    const std::string cxx = distro_cxx(path_env != nullptr ? path_env : "", std::getenv("CXX"));
    TempDir tmp;
    write_probe_sources(tmp.path());

    std::vector<CompileRun> runs;
    for (std::size_t i = 0; i < toolkits.size(); ++i) {
        const auto& tk = toolkits[i];
        const std::string base = fmt::format("{}/p{}", tmp.path(), i);
        runs.push_back(make_compile(fmt::format("{} (its default host compiler)", tk.nvcc),
                                    {tk.nvcc, "-o", base + "-default", tmp.path() + "/probe.cu"}, base + "-default"));
        if (!cxx.empty()) {
            runs.push_back(make_compile(fmt::format("{} -ccbin {}", tk.nvcc, cxx),
                                        {tk.nvcc, "-ccbin", cxx, "-o", base + "-cxx", tmp.path() + "/probe.cu"},
                                        base + "-cxx"));
        }
    }
    run_compiles(runs, tmp.path(), k_compile_limit_s);
    throw_if_stopped(runs);

    const bool gpu = count_pci_gpus(ctx.env, "nvidia") > 0 || ctx.env.kernel_drivers.count("nvidia") > 0;
    nlohmann::json facts = nlohmann::json::array();
    std::vector<std::string> failures;
    std::vector<std::string> fixes;
    bool default_failed = false;
    double total_s = 0;
    std::size_t k = 0;
    for (std::size_t i = 0; i < toolkits.size(); ++i) {
        const auto& tk = toolkits[i];
        nlohmann::json t{{"nvcc", tk.nvcc},
                         {"include_dir", tk.include_dir},
                         {"cuda_version", tk.cudart_version ? nlohmann::json(*tk.cudart_version) : nlohmann::json()},
                         {"supported_host_compilers", limits_text(tk.limits)},
                         {"compiles", nlohmann::json::array()}};
        for (; k < runs.size() && runs[k].argv[0] == tk.nvcc; ++k) {
            auto& run = runs[k];
            total_s += run.wall_s;
            const bool is_default = run.argv[1] == "-o";
            nlohmann::json c{{"how", run.label}, {"ok", run.ok}, {"wall_s", run.wall_s}};
            if (!run.ok) {
                const std::string host = is_default ? "nvcc's default host compiler" : cxx;
                run.diagnosis = diagnose_compile(run.output, tk.limits, host);
                c["cause"] = to_string(run.diagnosis.cause);
                c["output"] = run.output;
                failures.push_back(fmt::format("{}: {}", run.label, run.diagnosis.summary));
                fixes.push_back(run.diagnosis.fix);
                default_failed = default_failed || is_default;
            } else if (is_default && gpu) {
                bool ran = false;
                const auto said = run_probe(run.binary, tmp.path(), &ran);
                c["run"] = said.empty() ? "compiled; the runtime sees no device" : said;
                if (!ran) {
                    failures.push_back(fmt::format("{}: compiled, but the probe failed to run: {}", run.label, said));
                    fixes.push_back("check the driver against this toolkit (host.upgrade.cuda_runtimes)");
                    default_failed = true;
                }
            } else if (is_default) {
                c["run"] = "not run: no NVIDIA GPU on this node";
            }
            t["compiles"].push_back(c);
        }
        facts.push_back(t);
    }
    r.facts = {{"toolkits", facts}, {"distro_cxx", cxx.empty() ? nlohmann::json() : nlohmann::json(cxx)}};
    r.measurements.push_back(single("compile_wall_s_total", total_s, "s"));
    std::vector<std::string> names;
    for (const auto& tk : toolkits) {
        names.push_back(fmt::format("{} ({})", tk.nvcc, limits_text(tk.limits)));
    }
    if (failures.empty()) {
        apply({Status::Pass,
               fmt::format("{} nvcc compile and link the <cmath> probe with their default host compiler{}: {}",
                           toolkits.size(), cxx.empty() ? "" : " and with " + cxx, fmt::join(names, "; ")),
               ""},
              r);
        return;
    }
    // Plain nvcc works but builds that pass the distro's compiler (CMAKE_CUDA_HOST_COMPILER) break: warn.
    apply({default_failed ? Status::Fail : Status::Warn, fmt::format("{}", fmt::join(failures, "; ")),
           fmt::format("{}", fmt::join(fixes, "; "))},
          r);
}

// Every nvcc, the toolkit folders it reads (its bin/, nvvm/, headers, version.json), and the
// distro's compiler; compile_fingerprint adds what every probe shares.
std::string cuda_fingerprint(const CheckContext& ctx) {
    const char* path_env = std::getenv("PATH");
    const std::string path = path_env != nullptr ? path_env : "";
    std::vector<std::string> tools;
    for (const auto& tk : find_cuda_toolkits("/", path)) {
        const std::string nvcc = resolve_program("/", tk.nvcc);
        const std::string prefix = nvcc.substr(0, nvcc.rfind("/bin/"));
        for (const auto& p : {tk.nvcc, nvcc, prefix + "/bin", prefix + "/nvvm/bin", prefix + "/version.json",
                              tk.include_dir, tk.include_dir + "/crt"}) {
            tools.push_back(p);
        }
    }
    const std::string cxx = distro_cxx(path, std::getenv("CXX"));
    if (!cxx.empty()) {
        tools.push_back(resolve_program("/", cxx));
    }
    return compile_fingerprint(tools, ctx.env, path);
}

}  // namespace

CheckDef make_toolchain_cuda_compile() {
    auto def = host_check("host.toolchain.cuda_compile",
                          "every nvcc compiles a <cmath> kernel with its default and the distro's host compiler",
                          reuse_while_unchanged(cuda_fingerprint, run_cuda_compile));
    def.timeout_s = k_compile_limit_s + k_run_limit_s;
    def.measurements = {
        measure::diagnostic("compile_wall_s_total", Direction::Lower, 1.00),
    };
    return def;
}

}  // namespace gpuconform
