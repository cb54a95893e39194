// The simulated backend's kernels: each runs on its stream's worker thread and takes its
// modelled time (spin: ns; compute: 1 ns per iteration; fill/verify: the real work only).
// Every launch goes through launch(), where the kernel fault knobs apply.
#include <atomic>
#include <csignal>

#include "backend/pattern_host.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_cotenant.hpp"
#include "backend/sim/sim_errors.hpp"

namespace gpuconform::sim {

// The crash, sticky_error, hang, no_overlap, launch_blocks and releases_lost knobs apply to all
// kernels alike.
ApiResult SimBackend::launch(StreamHandle stream, TaskSpec spec) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    if (!s) {
        return fail(sim_bad_handle("stream"));
    }
    SimDevice& d = device_of(*s);
    if (d.faults.has(Fault::Crash)) {
        std::raise(SIGSEGV);
    }
    if (d.faults.has(Fault::StickyError)) {
        m_scheduler.set_sticky(
            sim_error(SimError::LaunchFailure, "unspecified launch failure (sim fault sticky_error)"));
        return failed_sticky();
    }
    if (d.faults.has(Fault::Hang)) {
        spec = TaskSpec{[this] { m_scheduler.hang(); }};
    }
    if (d.faults.has(Fault::NoOverlap)) {
        spec.engine = &d.only_engine;
    }
    if (d.faults.has(Fault::ReleasesLost)) {
        spec.releasable = false;
    }
    spec.cost = std::chrono::duration_cast<Clock::duration>(spec.cost * cotenant_compute_factor(m_options));
    const TaskPtr t = enqueue(*s, std::move(spec));
    return d.faults.has(Fault::LaunchBlocks) ? wait_and_report(t) : sim_ok();
}

// A kernel body that first checks its pointers, faulting (sticky) as a device would.
std::function<void()> SimBackend::checked_kernel(std::vector<std::pair<const void*, std::size_t>> args,
                                                 std::function<void()> body) {
    return [this, args = std::move(args), body = std::move(body)] {
        for (const auto& [ptr, bytes] : args) {
            if (bytes > 0 && !m_memory.device_accessible(ptr, bytes)) {
                m_scheduler.set_sticky(
                    sim_error(SimError::IllegalAddress, "kernel accessed memory that is neither device nor pinned"));
                return;
            }
        }
        body();
    };
}

ApiResult SimBackend::launch_spin(StreamHandle stream, std::uint64_t ns) {
    return launch(stream, TaskSpec{{}, std::chrono::nanoseconds(ns)});
}

ApiResult SimBackend::launch_releasable_spin(StreamHandle stream, std::uint64_t ns) {
    TaskSpec spec{{}, std::chrono::nanoseconds(ns)};
    spec.releasable = true;
    return launch(stream, std::move(spec));
}

// A host write on a real device: it cannot fail, and needs no device.
ApiResult SimBackend::release_spins() {
    m_scheduler.release();
    return sim_ok();
}

ApiResult SimBackend::launch_fill(StreamHandle stream, std::uint32_t* words, std::size_t count, std::uint32_t seed) {
    auto body = [words, count, seed] { write_pattern(words, 0, count, seed); };
    return launch(stream, TaskSpec{checked_kernel({{words, count * sizeof(std::uint32_t)}}, std::move(body))});
}

ApiResult SimBackend::launch_verify(StreamHandle stream, const std::uint32_t* words, std::size_t count,
                                    std::uint32_t seed, unsigned long long* device_mismatches) {
    auto body = [words, count, seed, device_mismatches] {
        const unsigned long long bad = count_pattern_mismatches(words, 0, count, seed);
        std::atomic_ref<unsigned long long>(*device_mismatches).fetch_add(bad);
    };
    return launch(stream, TaskSpec{checked_kernel(
                              {{words, count * sizeof(std::uint32_t)}, {device_mismatches, sizeof(unsigned long long)}},
                              std::move(body))});
}

// Takes 1 ns per iteration: every block runs in parallel, so time scales with iterations only.
ApiResult SimBackend::launch_compute(StreamHandle stream, std::uint64_t iterations, float* sink) {
    auto body = [iterations, sink] {
        if (sink != nullptr) {
            *sink = static_cast<float>(iterations);
        }
    };
    return launch(stream, TaskSpec{checked_kernel({{sink, sink != nullptr ? sizeof(float) : 0}}, std::move(body)),
                                   std::chrono::nanoseconds(iterations)});
}

ApiResult SimBackend::launch_invalid(StreamHandle stream) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    if (!s) {
        return fail(sim_bad_handle("stream"));
    }
    if (device_of(*s).faults.has(Fault::ErrorsSwallowed)) {
        return sim_ok();
    }
    return fail(sim_error(SimError::InvalidConfiguration,
                          "invalid configuration argument (more threads per "
                          "block than the device allows)"));
}

ApiResult SimBackend::launch_fault(StreamHandle stream) {
    if (const StreamPtr s = resolve_stream(stream); s && device_of(*s).faults.has(Fault::ErrorsSwallowed)) {
        return launch(stream, TaskSpec{});
    }
    return launch(
        stream, TaskSpec{[this] {
            m_scheduler.set_sticky(sim_error(SimError::IllegalAddress, "an illegal memory access was encountered"));
        }});
}

}  // namespace gpuconform::sim
