// What every async check needs, written once: RAII handles over the backend interface, fresh
// patterns, verification after the timed region, device-event timing and the gate technique.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/byte_sizes.hpp"  // size_label, for the measurement names of every size
#include "core/check.hpp"

namespace gpuconform::async {

// The clock checks time host calls with: the backend's host_now() once the worker named it
// (use_host_clock_of), so that on the simulated device host-clock and event timings share one
// model clock; steady_clock before.
struct Clock {
    using duration = std::chrono::steady_clock::duration;
    using rep = duration::rep;
    using period = duration::period;
    using time_point = std::chrono::time_point<Clock>;
    static constexpr bool is_steady = true;
    static time_point now();
};
void use_host_clock_of(Backend* backend);  // the worker's one backend; nullptr: steady_clock
double ms_since(Clock::time_point start);

class Stream {
public:
    Stream(Backend& b, StreamKind kind);
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    StreamHandle handle() const { return m_handle; }
    operator StreamHandle() const { return m_handle; }

private:
    Backend& m_backend;
    StreamHandle m_handle = 0;
};

class Event {
public:
    explicit Event(Backend& b, bool timing = true);
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    operator EventHandle() const { return m_handle; }

private:
    Backend& m_backend;
    EventHandle m_handle = 0;
};

enum class HostKind { Pinned, Pageable, Registered };
std::string to_string(HostKind k);

// Where a check's buffers come from: the worker's cache (core/buffer_cache.hpp) when it has one,
// else a fresh allocation freed with the buffer. Registered memory is always fresh: registering
// it is part of what its check exercises.
struct BufferSource {
    BufferCache* cache = nullptr;
    int device = 0;
};
BufferSource buffers_of(const CheckContext& ctx);

// A host buffer of 32-bit words: pinned (HostAlloc), pageable (plain heap) or registered.
class HostBuffer {
public:
    HostBuffer(Backend& b, std::size_t bytes, HostKind kind, BufferSource from = {}, int slot = 0);
    ~HostBuffer();
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    std::uint32_t* data() const { return m_words; }
    std::size_t bytes() const { return m_bytes; }
    std::size_t words() const { return m_bytes / 4; }
    void fill(std::uint32_t seed);
    std::size_t mismatches(std::uint32_t seed) const;  // words != pattern(seed)

private:
    Backend& m_backend;
    std::size_t m_bytes;
    HostKind m_kind;
    bool m_borrowed = false;
    std::uint32_t* m_words = nullptr;
};

class DeviceBuffer {
public:
    DeviceBuffer(Backend& b, std::size_t bytes, BufferSource from = {}, int slot = 0);
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    std::uint32_t* data() const { return m_words; }
    std::size_t bytes() const { return m_bytes; }
    std::size_t words() const { return m_bytes / 4; }

private:
    Backend& m_backend;
    std::size_t m_bytes;
    bool m_borrowed = false;
    std::uint32_t* m_words = nullptr;
};

// Counts device words != pattern(seed) with the verify kernel; synchronizes `stream`.
std::uint64_t device_mismatches(Backend& b, StreamHandle stream, const DeviceBuffer& buf, std::uint32_t seed);

// A fresh seed per call, so no run can pass on data left by an earlier one.
std::uint32_t fresh_seed();

// Launches every kernel and makes one copy of each kind, so lazy module loading and first-touch
// costs stay out of timed regions.
void warm_up(Backend& b, StreamHandle stream);

// Device-event time of work queued by `enqueue` on `stream`, in ms. The start event fires as soon
// as the stream reaches it, so the time includes whatever gap the host left before queueing the
// work: the launch latency, and a preemption on a busy host. Right where that gap is part of what
// is measured (the per-call cost of small copies) or where the work blocks the host (pageable
// copies, which no hold can outlast).
double event_time_ms(Backend& b, StreamHandle stream, const std::function<void()>& enqueue);

// The same time with the stream held behind a short spin (a StartGate) until the host has queued
// the work and the stop event, as nvbandwidth's blocking kernel holds its copies: the events then
// time the device's work alone, however late the host was between two calls. A hold the host
// outlasted (the spin ended before the stop event was queued) is taken again with a spin
// k_hold_growth times longer, so `enqueue` may run up to k_hold_attempts times; after the last,
// or when launches block (nothing can be held), the time stands. For asynchronous work only:
// copy-bandwidth figures. nvbandwidth and nvbench hold their streams the same way, with a kernel
// the host releases (https://github.com/NVIDIA/nvbench, nvbench/blocking_kernel.cuh).
constexpr std::uint64_t k_first_hold_ns = 100'000;  // ~10x the queueing of a copy and two events
constexpr std::uint64_t k_hold_growth = 10;
constexpr int k_hold_attempts = 3;
double held_event_time_ms(Backend& b, StreamHandle stream, const std::function<void()>& enqueue,
                          std::uint64_t first_hold_ns = k_first_hold_ns);

// The gate technique: queue a spin of gate_ns on `stream`, make the call, query the stream; then
// release the spin, the evidence being in.
struct GatedCall {
    ApiResult call_result;
    double call_ms = 0;       // how long the call took to return (host clock)
    bool queue_busy = false;  // the stream still had work right after the call returned
    double gate_ms = 0;
    double gate_launch_ms = 0;  // how long queueing the spin itself took (it should return at once)
};
GatedCall gated_call(Backend& b, StreamHandle stream, std::uint64_t gate_ns, const std::function<ApiResult()>& call);

// How a gated call behaved, in the classes of docs/vendor-behaviour.md, "Copies".
enum class CallClass {
    ReturnedEarly,    // came back while the queued spin was still running
    WaitedThenAsync,  // waited for the queue, returned before its own work finished
    Synchronous,      // returned after everything, its own work included
    Undecided,        // the gate did not hold; no evidence either way
};
std::string to_string(CallClass c);
CallClass classify(const GatedCall& g);

// A short spin that holds work back until the host has queued all of it, so two streams start
// together: 5 ms is far above any launch latency and far below a check's time budget.
constexpr std::uint64_t k_start_gate_ns = 5'000'000;

// The spin runs on a stream of its own and ends in an event the held streams wait on. lift(),
// after the last call, tells whether the spin was still running, then releases it so the held
// work starts at once rather than when the spin would have ended: only a spin still running had
// the streams really start together (a host descheduled for longer than the spin staggers them),
// and never one whose own launch returned only after it (synchronous launches).
class StartGate {
public:
    StartGate(Backend& b, std::uint64_t ns = k_start_gate_ns);
    void hold(StreamHandle s);
    EventHandle start() const { return m_start; }
    bool lift();
    bool launch_blocked() const { return m_launch_blocked; }

private:
    Backend& m_backend;
    Stream m_stream;
    Event m_start;
    bool m_launch_blocked = false;  // launch_spin returned only after the spin could have ended
};
// Tries a gated measurement up to `attempts` times until its gate held; returns whether one did.
bool with_held_gate(const std::function<bool()>& measure, int attempts = 3);

// The gated calls' one rule: a call that took half the gate's length or more waited for it (the
// gate is long against any call's own cost), and past half the gate the queued work may be done.
inline constexpr double k_half_gate = 0.5;

// Expectation helpers with the profile: the gate length (gate_ms) and size labels.
std::uint64_t gate_ns(const CheckContext& ctx, CheckResult& r);

using gpuconform::single;  // core/result.hpp: one measured value (n = 1)

// A derived figure outside its physical range: `error` naming the figure, the raw timings stay in
// the measurements, and facts.out_of_range tells the runner to measure once more.
void mark_out_of_range(CheckResult& r, const std::string& figure);

// A figure below its floor in every judged reading while the same check read the same path at
// or above it: the link carried the rate, so the shortfall was traffic no GPU reading shows
// (another VM or device on the host's PCIe or memory path), not the install. The failure stays
// on record but carries a `disturbance` (kind `link_unsteady`): the run cannot judge.
// `seen`: what the path reached in the check; `judged`: what the verdict read.
void mark_link_unsteady(CheckResult& r, const std::string& seen, const std::string& judged);

}  // namespace gpuconform::async
