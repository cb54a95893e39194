// async.copy.pinned_capacity: pin a configurable amount and report the rate; fails only if pinning
// fails, and then says what limits it (docs/vendor-behaviour.md: the NVIDIA driver's pinned memory is not bound
// by RLIMIT_MEMLOCK; ROCm's accounting is; CAP_IPC_LOCK ignores the limit).
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/toolkit.hpp"
#include "core/buffer_cache.hpp"

namespace gpuconform {

namespace {

using namespace async;

std::string limits_text(const CheckContext& ctx) {
    const auto& e = ctx.env;
    const std::string soft = e.memlock_soft ? fmt::format("{} KiB", *e.memlock_soft / 1024) : "unlimited";
    const std::string vendor = ctx.backend->vendor();
    const char* meaning = vendor == "nvidia"
                              ? "the NVIDIA driver does not count pinned memory against it, so look at free "
                                "host memory and the driver's own limits"
                          : vendor == "amd" ? "ROCm counts pinned memory against it: raise the limit (limits.conf / "
                                              "systemd LimitMEMLOCK)"
                                            : "the simulated backend pins nothing for real";
    return fmt::format("RLIMIT_MEMLOCK soft {}{}; {}", soft, e.cap_ipc_lock ? " (ignored: CAP_IPC_LOCK)" : "", meaning);
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    const auto bytes = static_cast<std::uint64_t>(ctx.expect(r, "pinned_bytes"));
    if (ctx.buffers != nullptr) {
        ctx.buffers->release_host();  // pinned memory held for other checks would count against a limit
    }
    void* p = nullptr;
    const auto t0 = Clock::now();
    const ApiResult result = b.host_alloc_pinned(bytes, &p);
    const double alloc_ms = ms_since(t0);
    if (!result.ok()) {
        r.status = Status::Fail;
        r.summary = fmt::format("pinning {} MiB failed: {} ({})", bytes >> 20, result.name, result.message);
        r.remediation = limits_text(ctx);
        return;
    }
    auto* words = static_cast<std::uint32_t*>(p);
    const std::uint32_t seed = fresh_seed();
    for (std::size_t i = 0; i < bytes / 4; i += 1024) {  // one word a page proves the pages are backed
        words[i] = pattern_word(seed, i);
    }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < bytes / 4; i += 1024) {
        wrong += words[i] != pattern_word(seed, i) ? 1 : 0;
    }
    r.measurements.push_back({"pinned_bytes", static_cast<double>(bytes), "bytes", 1, {}, {}});
    r.measurements.push_back({"alloc_ms", alloc_ms, "ms", 1, {}, {}});
    r.measurements.push_back({"alloc_rate_gbps", bytes / (alloc_ms * 1e6), "GB/s", 1, {}, {}});
    std::string after;
    // Kept, the later copy checks use this memory as their pinned buffers (core/buffer_cache.hpp).
    // Not where pinned memory counts against RLIMIT_MEMLOCK (ROCm): held for the run, the gigabyte
    // would leave a later check's registration over a limit that the checks met one at a time.
    const bool counts_against_memlock = b.vendor() == "amd";
    if (wrong == 0 && ctx.buffers != nullptr && !counts_against_memlock && ctx.buffers->adopt_pinned(p, bytes)) {
        after = "kept as the copy checks' pinned buffers";
    } else {
        const auto t1 = Clock::now();
        GC_CHECK(b.host_free_pinned(p));
        const double free_ms = ms_since(t1);
        r.measurements.push_back({"free_ms", free_ms, "ms", 1, {}, {}});
        after = fmt::format("freed in {:.1f} ms", free_ms);
    }
    if (wrong != 0) {
        r.status = Status::Fail;
        r.summary = fmt::format("pinned memory did not hold what was written ({} pages)", wrong);
        return;
    }
    r.status = Status::Info;
    r.summary = fmt::format("pinned {} MiB in {:.1f} ms ({:.1f} GB/s), {}; {}", bytes >> 20, alloc_ms,
                            bytes / (alloc_ms * 1e6), after, limits_text(ctx));
}

}  // namespace

CheckDef make_async_copy_pinned_capacity() {
    CheckDef d;
    d.id = "async.copy.pinned_capacity";
    d.profile_keys = {
        keys::range("pinned_bytes", 1 << 20, 1ull << 40, true),  // 1 MiB to 1 TiB
    };
    d.informational = true;  // a reading: info, never pass
    d.measurements = {
        measure::diagnostic("*_ms", Direction::Lower, 1.00),
        measure::diagnostic("alloc_rate_gbps", Direction::Higher, 0.50),
        measure::diagnostic("pinned_bytes", Direction::Higher, 0.00),
    };
    d.caught_by = {"pinned_limit"};
    d.timing_sensitive = false;  // whether the allocation and copy succeed
    d.layer = "async";
    d.description = "Pin 1 GiB of host memory (configurable) and report the rate; fail only if pinning fails";
    d.scope = Scope::Device;
    d.timeout_s = 30;
    d.run = run;
    return d;
}

}  // namespace gpuconform
