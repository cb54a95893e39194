// How many streams really run kernels at once: one spin of S ms per stream, n streams together;
// concurrency(n) = n x S / wall(n). Nothing is required of it (info); on ROCm the hardware queues
// (GPU_MAX_HW_QUEUES) are where streams start to share queues and gain false dependencies.
#include <memory>

#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/overlap.hpp"

namespace gpuconform {

namespace {

// Host wall time from the first launch until every stream has finished its spin; *launch_ms is
// how long the launches took (as long as a spin: they blocked, and nothing could run at once).
double wall_ms(Backend& b, const std::vector<std::unique_ptr<async::Stream>>& streams, int n, std::uint64_t spin_ns,
               double* launch_ms) {
    GC_CHECK(b.device_synchronize());
    const auto t0 = async::Clock::now();
    for (int i = 0; i < n; ++i) {
        GC_CHECK(b.launch_spin(*streams[static_cast<std::size_t>(i)], spin_ns));
    }
    *launch_ms = std::max(*launch_ms, async::ms_since(t0));
    for (int i = 0; i < n; ++i) {
        GC_CHECK(b.stream_synchronize(*streams[static_cast<std::size_t>(i)]));
    }
    return async::ms_since(t0);
}

std::string amd_note(const CheckContext& ctx) {
    if (ctx.backend->vendor() != "amd") {
        return "";
    }
    const auto it = ctx.env.gpu_env.find("GPU_MAX_HW_QUEUES");
    return fmt::format(
        "; ROCm maps streams onto hardware queues (GPU_MAX_HW_QUEUES={}): beyond them streams share "
        "queues and wait for each other",
        it == ctx.env.gpu_env.end() ? "unset, default 4" : it->second);
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    const double spin_ms = ctx.expect(r, "spin_ms");
    const double min_ratio = ctx.expect(r, "scaling_min_ratio");
    // 1, 4, 16, ... streams up to max_streams: the step where concurrency stops is what is read.
    std::vector<int> counts;
    for (int n = 1; n <= static_cast<int>(ctx.expect(r, "max_streams")); n = n < 16 ? n * 4 : n * 2) {
        counts.push_back(n);
    }
    const int reps = static_cast<int>(ctx.expect(r, "repetitions"));
    std::vector<std::unique_ptr<async::Stream>> streams;
    for (int i = 0; i < counts.back(); ++i) {
        streams.push_back(std::make_unique<async::Stream>(b, StreamKind::NonBlocking));
    }
    async::warm_up(b, *streams.front());
    const auto spin_ns = static_cast<std::uint64_t>(spin_ms * 1e6);
    std::vector<std::pair<int, double>> concurrency;
    double launch_ms = 0;
    nlohmann::json table = nlohmann::json::array();
    for (int n : counts) {
        std::vector<double> walls;
        for (int i = 0; i < reps; ++i) {
            walls.push_back(wall_ms(b, streams, n, spin_ns, &launch_ms));
        }
        Measurement m = summarize(fmt::format("wall_{}_streams", n), "ms", walls);
        const double c = n * spin_ms / m.value.value_or(n * spin_ms);
        concurrency.emplace_back(n, c);
        r.measurements.push_back(m);
        r.measurements.push_back(async::single(fmt::format("concurrency_{}_streams", n), c, "kernels"));
        table.push_back({{"streams", n}, {"wall_ms", *m.value}, {"concurrency", c}});
    }
    const int limit = async::scaling_limit(concurrency, min_ratio);
    r.facts["by_streams"] = table;
    r.facts["scaling_limit_streams"] = limit;
    r.measurements.push_back(async::single("slowest_launches_ms", launch_ms, "ms"));
    if (launch_ms >= spin_ms) {
        r.status = Status::Error;
        r.summary = fmt::format(
            "could not judge: launching the kernels took {:.1f} ms, as long as a {:.0f} ms spin: "
            "launches block here; see async.launch.returns_early",
            launch_ms, spin_ms);
        return;
    }
    for (const auto& [n, c] : concurrency) {
        if (c > n * (1 + async::k_overlap_noise_margin)) {
            async::mark_out_of_range(
                r, fmt::format("{} streams ran {:.1f} kernels at once, more than were launched", n, c));
            return;
        }
    }
    const double top = concurrency.back().second;
    if (limit < counts.back() && top >= min_ratio * counts.back()) {
        // Scaling that drops and then recovers contradicts itself: some runs were disturbed.
        async::mark_out_of_range(r, fmt::format("concurrency fell below {:.0f}% of the streams after {} stream(s) yet "
                                                "{} streams ran {:.1f} kernels at once",
                                                min_ratio * 100, limit, counts.back(), top));
        return;
    }
    r.status = Status::Info;
    if (limit == counts.back()) {
        r.summary = fmt::format("{} streams ran {:.1f} {:.0f} ms kernels at once: no limit up to {} streams{}",
                                counts.back(), top, spin_ms, counts.back(), amd_note(ctx));
    } else {
        r.summary = fmt::format(
            "kernel concurrency stops scaling after {} stream(s): {} streams ran only {:.1f} "
            "kernels at once; spread work over at most {} streams{}",
            limit, counts.back(), top, std::max(limit, 1), amd_note(ctx));
    }
}

}  // namespace

CheckDef make_async_stream_many_streams() {
    CheckDef d;
    d.id = "async.stream.many_streams";
    d.profile_keys = {
        keys::ms("spin_ms"),
        keys::ratio("scaling_min_ratio"),
        keys::range("max_streams", 1, 1024, true),
        keys::count("repetitions"),
    };
    d.informational = true;  // a reading: info, never pass
    d.measurements = {
        measure::diagnostic("long_kernel", Direction::None, 0.20),
        measure::diagnostic("tiny_kernel_completion", Direction::Lower, 2.00),
        measure::diagnostic("concurrency_*", Direction::Higher, 0.20),
        measure::diagnostic("wall_*", Direction::Lower, 0.50),
        measure::diagnostic("slowest_launches_ms", Direction::Lower, 2.00),
    };
    d.caught_by = {"launch_blocks"};
    d.timing_sensitive = true;  // concurrency from durations
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = "How many streams run kernels concurrently (1, 4, 16, 32 streams)";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
