// host.toolchain.hip_compile: every hipcc on the node compiles and links the <cmath> probe; on a node
// with an AMD GPU it also runs. hipcc compiles host code with its own clang, so there is no second
// host compiler to try (unlike nvcc's -ccbin).
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

void run_hip_compile(CheckContext& ctx, CheckResult& r) {
    if (ctx.options.quick) {
        throw SkipCheck("--quick: the compile probes take seconds; run without --quick to compile with every hipcc");
    }
    const char* path_env = std::getenv("PATH");
    const auto compilers = find_hipcc("/", path_env != nullptr ? path_env : "");
    if (compilers.empty()) {
        throw SkipCheck("no hipcc in /usr/bin, /opt/rocm*/bin or on PATH");
    }
    TempDir tmp;
    write_probe_sources(tmp.path());
    const bool gpu = ctx.env.kernel_drivers.count("amdgpu") > 0 && path_exists("/", "/dev/kfd");
    std::vector<CompileRun> runs;
    for (std::size_t i = 0; i < compilers.size(); ++i) {
        const std::string out = fmt::format("{}/h{}", tmp.path(), i);
        std::vector<std::string> argv{compilers[i], "-o", out, tmp.path() + "/probe.hip"};
        if (!gpu) {
            // hipcc asks rocm_agent_enumerator for the node's GPUs; with none, name a target.
            argv.insert(argv.begin() + 1, "--offload-arch=gfx90a");
        }
        runs.push_back(make_compile(compilers[i], argv, out));
    }
    run_compiles(runs, tmp.path(), k_compile_limit_s);
    throw_if_stopped(runs);
    nlohmann::json facts = nlohmann::json::array();
    std::vector<std::string> failures;
    std::vector<std::string> fixes;
    double total_s = 0;
    for (auto& run : runs) {
        total_s += run.wall_s;
        nlohmann::json c{{"hipcc", run.label}, {"ok", run.ok}, {"wall_s", run.wall_s}};
        if (!run.ok) {
            run.diagnosis = diagnose_compile(run.output, {}, "hipcc's clang");
            c["cause"] = to_string(run.diagnosis.cause);
            c["output"] = run.output;
            failures.push_back(fmt::format("{}: {}", run.label, run.diagnosis.summary));
            fixes.push_back(run.diagnosis.fix);
        } else if (gpu) {
            const auto outcome = [&] {
                std::lock_guard<std::mutex> turn(gpu_timing_turn());  // never inside a device measurement
                return run_child({run.binary}, {}, tmp.path() + "/run.log", k_run_limit_s, &g_interrupted);
            }();
            const auto said = trim(read_text("/", tmp.path() + "/run.log").value_or(""));
            c["run"] = said;
            if (outcome.exit_code != 0 && outcome.exit_code != 3) {
                failures.push_back(fmt::format("{}: compiled, but the probe failed to run: {}", run.label,
                                               outcome.timed_out ? "hung" : said));
                fixes.push_back(
                    "a GPU whose gfx target the probe was not built for fails with "
                    "hipErrorNoBinaryForGpu: see host.upgrade.amd_code_objects");
            }
        } else {
            c["run"] = "not run: no AMD GPU (amdgpu and /dev/kfd) on this node";
        }
        facts.push_back(c);
    }
    r.facts = {{"compilers", facts}};
    r.measurements.push_back(single("compile_wall_s_total", total_s, "s"));
    if (failures.empty()) {
        apply({Status::Pass,
               fmt::format("{} hipcc compile and link the <cmath> probe: {}", compilers.size(),
                           fmt::join(compilers, ", ")),
               ""},
              r);
    } else {
        apply({Status::Fail, fmt::format("{}", fmt::join(failures, "; ")), fmt::format("{}", fmt::join(fixes, "; "))},
              r);
    }
}

// Every hipcc, the ROCm folders it reads (its bin/, llvm/bin, include/hip) and whether an AMD GPU
// can run the probe; compile_fingerprint adds what every probe shares.
std::string hip_fingerprint(const CheckContext& ctx) {
    const char* path_env = std::getenv("PATH");
    const std::string path = path_env != nullptr ? path_env : "";
    std::vector<std::string> tools{"/dev/kfd"};
    for (const auto& hipcc : find_hipcc("/", path)) {
        const std::string real = resolve_program("/", hipcc);
        const std::string prefix = real.substr(0, real.rfind("/bin/"));
        for (const auto& p : {hipcc, real, prefix + "/bin", prefix + "/llvm/bin", prefix + "/lib/llvm/bin",
                              prefix + "/include/hip", prefix + "/.info/version"}) {
            tools.push_back(p);
        }
    }
    return compile_fingerprint(tools, ctx.env, path);
}

}  // namespace

CheckDef make_toolchain_hip_compile() {
    auto def = host_check("host.toolchain.hip_compile", "every hipcc compiles and links a <cmath> kernel",
                          reuse_while_unchanged(hip_fingerprint, run_hip_compile));
    def.timeout_s = k_compile_limit_s + k_run_limit_s;
    def.measurements = {
        measure::diagnostic("compile_wall_s_total", Direction::Lower, 1.00),
    };
    return def;
}

}  // namespace gpuconform
