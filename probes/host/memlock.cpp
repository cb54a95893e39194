#include "host/memlock.hpp"

#include <fmt/format.h>

#include "host/host_checks.hpp"

namespace gpuconform {

namespace {

bool below(const std::optional<std::uint64_t>& soft, const std::optional<double>& min) {
    return soft && min && static_cast<double>(*soft) < *min;
}

constexpr const char* k_rdma = "mlock and RDMA registration (GPUDirect, NCCL over InfiniBand)";
constexpr const char* k_rocm = "ROCm pinned memory (hipHostMalloc/hipHostRegister)";

// Said wherever an NVIDIA GPU is present: the usual "raise ulimit -l" advice does not apply to it.
std::string nvidia_note(const MemlockInput& in) {
    return in.nvidia_gpu ? "; NVIDIA pinned memory (cudaHostAlloc/cudaHostRegister) is not bound by it" : "";
}

// What the limit governs on this node, by the GPUs on its bus.
std::string what_applies(const MemlockInput& in) {
    return fmt::format("it binds {}{}{}", k_rdma, in.amd_gpu ? fmt::format(" and {}", k_rocm) : "", nvidia_note(in));
}

std::string remediation(const MemlockInput& in) {
    std::string s =
        "raise it for the users that run GPU jobs: `* - memlock unlimited` in /etc/security/limits.d/gpu.conf, "
        "LimitMEMLOCK=infinity for systemd services and slurmd, `--ulimit memlock=-1:-1` for containers";
    if (!in.hard || (in.soft && *in.hard > *in.soft)) {
        s += fmt::format("; the hard limit ({}) already allows `ulimit -l {}` in the job script", format_bytes(in.hard),
                         in.hard ? std::to_string(*in.hard / 1024) : "unlimited");
    }
    return s;
}

}  // namespace

Verdict judge_memlock(const MemlockInput& in) {
    const auto limits = fmt::format("RLIMIT_MEMLOCK soft {} (hard {})", format_bytes(in.soft), format_bytes(in.hard));
    if (in.cap_ipc_lock) {
        return {Status::Info,
                fmt::format("{}, but this process has CAP_IPC_LOCK and ignores it, so success here says nothing "
                            "about unprivileged users; {}",
                            limits, what_applies(in)),
                ""};
    }
    if (!in.soft) {
        return {
            Status::Info,
            fmt::format("{}: {}{} are not limited{}", limits, k_rdma, in.amd_gpu ? fmt::format(" and {}", k_rocm) : "",
                        in.nvidia_gpu ? " (NVIDIA pinned memory never is)" : ""),
            ""};
    }
    if (in.amd_gpu && below(in.soft, in.amd_min_soft_bytes)) {
        return {Status::Warn,
                fmt::format("{} is below {} with an AMD GPU on the bus: {}, {} beyond it fail{}", limits,
                            format_bytes(static_cast<std::uint64_t>(*in.amd_min_soft_bytes)), k_rocm, k_rdma,
                            nvidia_note(in)),
                remediation(in)};
    }
    if (below(in.soft, in.min_soft_bytes)) {
        return {Status::Warn,
                fmt::format("{} is below {}: {} beyond it fail{}", limits,
                            format_bytes(static_cast<std::uint64_t>(*in.min_soft_bytes)), k_rdma, nvidia_note(in)),
                remediation(in)};
    }
    return {Status::Info, fmt::format("{}; {}", limits, what_applies(in)), ""};
}

CheckDef make_host_memlock() {
    CheckDef d = host_check(
        "host.memlock", "RLIMIT_MEMLOCK and what it limits on this node", [](CheckContext& ctx, CheckResult& r) {
            const auto& env = ctx.env;
            MemlockInput in;
            in.soft = env.memlock_soft;
            in.hard = env.memlock_hard;
            in.cap_ipc_lock = env.cap_ipc_lock;
            in.amd_gpu = count_pci_gpus(env, "amd") > 0;
            in.nvidia_gpu = count_pci_gpus(env, "nvidia") > 0;
            in.min_soft_bytes = ctx.expect_optional(r, "min_soft_bytes");
            in.amd_min_soft_bytes = ctx.expect_optional(r, "amd_min_soft_bytes");
            // Unlimited is a fact, not a number: a null value would read as "not measured".
            if (in.soft) {
                r.measurements.push_back(single("memlock_soft", static_cast<double>(*in.soft), "bytes"));
            }
            if (in.hard) {
                r.measurements.push_back(single("memlock_hard", static_cast<double>(*in.hard), "bytes"));
            }
            r.facts = {{"soft_unlimited", !in.soft},
                       {"hard_unlimited", !in.hard},
                       {"cap_ipc_lock", in.cap_ipc_lock},
                       {"uid", env.uid}};
            apply(judge_memlock(in), r);
        });
    d.profile_keys = {
        keys::bytes("min_soft_bytes"),
        keys::bytes("amd_min_soft_bytes"),
    };
    d.measurements = {
        measure::diagnostic("memlock_*", Direction::Higher, 0.00),
    };
    return d;
}

}  // namespace gpuconform
