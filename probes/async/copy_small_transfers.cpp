// The per-call cost of small copies: 256 pinned H2D copies of 4 KiB against one copy of the
// same 1 MiB, both timed with events (median of 5). Info: the articles' "batch your small
// copies" advice, measured on this install.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

constexpr std::size_t k_small = std::size_t{4} << 10;
constexpr std::size_t k_count = 256;
constexpr std::size_t k_total = k_small * k_count;

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    async::Stream s(b, StreamKind::NonBlocking);
    async::warm_up(b, s);
    async::HostBuffer host(b, k_total, async::HostKind::Pinned);
    async::DeviceBuffer many(b, k_total);
    async::DeviceBuffer one(b, k_total);
    const std::uint32_t seed = async::fresh_seed();
    host.fill(seed);
    const auto* src = reinterpret_cast<const std::byte*>(host.data());
    auto* dst = reinterpret_cast<std::byte*>(many.data());
    std::vector<double> small_ms, batched_ms;
    for (int i = 0, reps = static_cast<int>(ctx.expect(r, "repetitions")); i < reps; ++i) {
        small_ms.push_back(async::event_time_ms(b, s, [&] {
            for (std::size_t c = 0; c < k_count; ++c) {
                GC_CHECK(b.memcpy_async(dst + c * k_small, src + c * k_small, k_small, CopyKind::HostToDevice, s));
            }
        }));
        batched_ms.push_back(async::event_time_ms(
            b, s, [&] { GC_CHECK(b.memcpy_async(one.data(), host.data(), k_total, CopyKind::HostToDevice, s)); }));
    }
    const std::uint64_t wrong = async::device_mismatches(b, s, many, seed) + async::device_mismatches(b, s, one, seed);
    const double small = median(small_ms);
    const double batched = median(batched_ms);
    r.measurements.push_back(summarize("small_copies_total_ms", "ms", small_ms));
    r.measurements.push_back(summarize("batched_copy_ms", "ms", batched_ms));
    r.measurements.push_back(async::single("small_copy_per_call_us", small * 1e3 / k_count, "us"));
    if (wrong != 0) {
        r.status = Status::Fail;
        r.summary = fmt::format("pinned 4 KiB / 1 MiB copies delivered {} wrong words", wrong);
        r.remediation = "data corruption in plain pinned copies: report the driver version; check the hardware";
        return;
    }
    if (!(batched > 0) || !(small > 0)) {
        r.status = Status::Error;
        r.summary = fmt::format(
            "could not judge: events timed the copies as {:.4f} ms and {:.4f} ms; see "
            "async.event.timing_accuracy",
            small, batched);
        return;
    }
    const double ratio = small / batched;
    r.measurements.push_back(async::single("small_to_batched_ratio", ratio, "ratio"));
    r.status = Status::Info;
    const std::string figures = fmt::format(
        "one 1 MiB copy took {:.3f} ms, 256 copies of 4 KiB {:.3f} ms "
        "({:.1f} us per call)",
        batched, small, small * 1e3 / k_count);
    r.summary = ratio >= 1 ? fmt::format("batch small copies: batching is {:.1f}x faster; {}", ratio, figures)
                           : fmt::format("small copies cost no more per byte than one batched copy here; {}", figures);
}

}  // namespace

CheckDef make_async_copy_small_transfers() {
    CheckDef d;
    d.id = "async.copy.small_transfers";
    d.profile_keys = {
        keys::count("repetitions"),
    };
    d.informational = true;  // a reading: info, never pass
    d.measurements = {
        measure::diagnostic("*_ms", Direction::Lower, 0.50),
        measure::diagnostic("*_us", Direction::Lower, 0.50),
        measure::diagnostic("small_to_batched_ratio", Direction::Lower, 0.50),
    };
    d.caught_by = {"small_copies_corrupt", "copies_corrupt", "events_ignored"};
    d.timing_sensitive = true;  // latency of small copies
    d.layer = "async";
    d.description = "Per-call cost of 256 pinned 4 KiB copies against one batched 1 MiB copy";
    d.scope = Scope::Device;
    d.timeout_s = 10;
    d.run = run;
    return d;
}

}  // namespace gpuconform
