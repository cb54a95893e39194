#include "async/toolkit.hpp"

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "backend/pattern_host.hpp"
#include "core/buffer_cache.hpp"
#include "core/touched_memory.hpp"

namespace gpuconform::async {

namespace {
std::atomic<Backend*> g_clock_backend{nullptr};
}  // namespace

Clock::time_point Clock::now() {
    Backend* b = g_clock_backend.load(std::memory_order_relaxed);
    const auto t = b != nullptr ? b->host_now() : std::chrono::steady_clock::now();
    return time_point(t.time_since_epoch());
}

void use_host_clock_of(Backend* backend) { g_clock_backend.store(backend, std::memory_order_relaxed); }

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Stream::Stream(Backend& b, StreamKind kind) : m_backend(b) { GC_CHECK(b.stream_create(kind, &m_handle)); }
Stream::~Stream() {
    if (m_handle != 0) {
        m_backend.stream_destroy(m_handle);
    }
}

Event::Event(Backend& b, bool timing) : m_backend(b) { GC_CHECK(b.event_create(timing, &m_handle)); }
Event::~Event() {
    if (m_handle != 0) {
        m_backend.event_destroy(m_handle);
    }
}

std::string to_string(HostKind k) {
    switch (k) {
        case HostKind::Pinned:
            return "pinned";
        case HostKind::Pageable:
            return "pageable";
        case HostKind::Registered:
            return "registered";
    }
    return "?";
}

BufferSource buffers_of(const CheckContext& ctx) { return {ctx.buffers, ctx.device}; }

HostBuffer::HostBuffer(Backend& b, std::size_t bytes, HostKind kind, BufferSource from, int slot)
    : m_backend(b), m_bytes(bytes), m_kind(kind) {
    if (from.cache != nullptr && kind != HostKind::Registered) {
        const auto cached = kind == HostKind::Pinned ? CachedKind::Pinned : CachedKind::Pageable;
        m_words = static_cast<std::uint32_t*>(from.cache->get(cached, from.device, slot, bytes));
        m_borrowed = true;
        return;
    }
    if (kind == HostKind::Pinned) {
        void* p = nullptr;
        GC_CHECK(b.host_alloc_pinned(bytes, &p));
        m_words = static_cast<std::uint32_t*>(p);
        return;
    }
    m_words = static_cast<std::uint32_t*>(alloc_touched(bytes));  // first-touch cost stays out of timings
    if (m_words == nullptr) {
        throw std::runtime_error(fmt::format("cannot allocate {} bytes of host memory", bytes));
    }
    if (kind == HostKind::Registered) {
        const ApiResult r = b.host_register(m_words, bytes);
        if (!r.ok()) {
            free_touched(m_words, bytes);
            m_words = nullptr;
            throw ApiError(r, "host_register", __FILE__, __LINE__);
        }
    }
}

HostBuffer::~HostBuffer() {
    if (m_words == nullptr || m_borrowed) {
        return;
    }
    if (m_kind == HostKind::Pinned) {
        m_backend.host_free_pinned(m_words);
        return;
    }
    if (m_kind == HostKind::Registered) {
        m_backend.host_unregister(m_words);
    }
    free_touched(m_words, m_bytes);
}

namespace {
// Runs body(begin, end) over [0, count) in a few threads when count is large: one core writes or
// checks the pattern at about 3-4 GB/s, so a 256 MiB buffer would take 60-90 ms on one and a 16 MiB
// one 4-5 ms. Results are per chunk, added up afterwards.
template <typename Body>
std::size_t over_chunks(std::size_t count, const Body& body) {
    constexpr std::size_t k_per_thread_min = std::size_t{1} << 20;  // words (4 MiB)
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threads = std::min<std::size_t>({8, cores, std::max<std::size_t>(1, count / k_per_thread_min)});
    if (threads <= 1) {
        return body(0, count);
    }
    std::vector<std::size_t> partial(threads, 0);
    std::vector<std::thread> pool;
    const std::size_t step = (count + threads - 1) / threads;
    for (std::size_t t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            const std::size_t begin = std::min(count, t * step);
            partial[t] = body(begin, std::min(count, begin + step));
        });
    }
    for (auto& th : pool) {
        th.join();
    }
    std::size_t total = 0;
    for (const std::size_t p : partial) {
        total += p;
    }
    return total;
}
}  // namespace

void HostBuffer::fill(std::uint32_t seed) {
    std::uint32_t* words_out = m_words;
    over_chunks(words(), [&](std::size_t begin, std::size_t end) {
        write_pattern(words_out, begin, end, seed);
        return std::size_t{0};
    });
}

std::size_t HostBuffer::mismatches(std::uint32_t seed) const {
    const std::uint32_t* words_in = m_words;
    return over_chunks(words(), [&](std::size_t begin, std::size_t end) {
        return count_pattern_mismatches(words_in, begin, end, seed);
    });
}

DeviceBuffer::DeviceBuffer(Backend& b, std::size_t bytes, BufferSource from, int slot) : m_backend(b), m_bytes(bytes) {
    if (from.cache != nullptr) {
        m_words = static_cast<std::uint32_t*>(from.cache->get(CachedKind::Device, from.device, slot, bytes));
        m_borrowed = true;
        return;
    }
    void* p = nullptr;
    GC_CHECK(b.device_alloc(bytes, &p));
    m_words = static_cast<std::uint32_t*>(p);
}

DeviceBuffer::~DeviceBuffer() {
    if (m_words != nullptr && !m_borrowed) {
        m_backend.device_free(m_words);
    }
}

std::uint64_t device_mismatches(Backend& b, StreamHandle stream, const DeviceBuffer& buf, std::uint32_t seed) {
    DeviceBuffer counter(b, sizeof(unsigned long long));
    HostBuffer result(b, sizeof(unsigned long long) * 2, HostKind::Pinned);
    auto* host_count = reinterpret_cast<unsigned long long*>(result.data());
    *host_count = 0;
    GC_CHECK(b.memcpy_async(counter.data(), host_count, sizeof(unsigned long long), CopyKind::HostToDevice, stream));
    GC_CHECK(
        b.launch_verify(stream, buf.data(), buf.words(), seed, reinterpret_cast<unsigned long long*>(counter.data())));
    GC_CHECK(b.stream_synchronize(stream));
    *host_count = ~0ull;  // a read-back that did not happen shows as a huge count, never as 0
    GC_CHECK(b.memcpy_async(host_count, counter.data(), sizeof(unsigned long long), CopyKind::DeviceToHost, stream));
    GC_CHECK(b.stream_synchronize(stream));
    return *host_count;
}

std::uint32_t fresh_seed() {
    static std::mt19937 rng{std::random_device{}()};
    return rng() | 1u;
}

void warm_up(Backend& b, StreamHandle stream) {
    DeviceBuffer dev(b, 1 << 16);
    HostBuffer pinned(b, 1 << 16, HostKind::Pinned);
    pinned.fill(1);
    GC_CHECK(b.launch_spin(stream, 1000));
    GC_CHECK(b.launch_releasable_spin(stream, 1000));  // a backend maps its release word on the first
    GC_CHECK(b.release_spins());
    GC_CHECK(b.launch_fill(stream, dev.data(), dev.words(), 1));
    GC_CHECK(b.memcpy_async(pinned.data(), dev.data(), dev.bytes(), CopyKind::DeviceToHost, stream));
    GC_CHECK(b.memcpy_async(dev.data(), pinned.data(), dev.bytes(), CopyKind::HostToDevice, stream));
    DeviceBuffer sink(b, 4096);
    GC_CHECK(b.launch_compute(stream, 16, reinterpret_cast<float*>(sink.data())));
    GC_CHECK(b.stream_synchronize(stream));
    if (device_mismatches(b, stream, dev, 1) != 0) {
        throw std::runtime_error("warm-up copy round trip returned wrong data");
    }
}

double event_time_ms(Backend& b, StreamHandle stream, const std::function<void()>& enqueue) {
    Event start(b);
    Event stop(b);
    GC_CHECK(b.event_record(start, stream));
    enqueue();
    GC_CHECK(b.event_record(stop, stream));
    GC_CHECK(b.event_synchronize(stop));
    float ms = 0;
    GC_CHECK(b.event_elapsed_ms(start, stop, &ms));
    return ms;
}

double held_event_time_ms(Backend& b, StreamHandle stream, const std::function<void()>& enqueue,
                          std::uint64_t first_hold_ns) {
    Event start(b);
    Event stop(b);
    std::uint64_t hold_ns = first_hold_ns;
    for (int attempt = 1;; ++attempt, hold_ns *= k_hold_growth) {
        StartGate gate(b, hold_ns);
        gate.hold(stream);
        GC_CHECK(b.event_record(start, stream));
        enqueue();
        GC_CHECK(b.event_record(stop, stream));
        const bool held = gate.lift();
        GC_CHECK(b.event_synchronize(stop));
        // Launches that return only after the spin (CUDA_LAUNCH_BLOCKING, a debugger) hold nothing,
        // however long the spin: the time stands as plain event timing would read it.
        if (held || gate.launch_blocked() || attempt == k_hold_attempts) {
            float ms = 0;
            GC_CHECK(b.event_elapsed_ms(start, stop, &ms));
            return ms;
        }
    }
}

GatedCall gated_call(Backend& b, StreamHandle stream, std::uint64_t gate_ns, const std::function<ApiResult()>& call) {
    GatedCall g;
    g.gate_ms = static_cast<double>(gate_ns) / 1e6;
    const auto launched = Clock::now();
    GC_CHECK(b.launch_releasable_spin(stream, gate_ns));
    g.gate_launch_ms = ms_since(launched);
    const auto t0 = Clock::now();
    g.call_result = call();
    g.call_ms = ms_since(t0);
    bool done = false;
    GC_CHECK(b.stream_query(stream, &done));
    g.queue_busy = !done;
    GC_CHECK(b.release_spins());
    GC_CHECK(b.stream_synchronize(stream));
    return g;
}

StartGate::StartGate(Backend& b, std::uint64_t ns) : m_backend(b), m_stream(b, StreamKind::NonBlocking), m_start(b) {
    const auto launched = Clock::now();
    GC_CHECK(b.launch_releasable_spin(m_stream, ns));
    m_launch_blocked = ms_since(launched) * 1e6 >= static_cast<double>(ns);
    GC_CHECK(b.event_record(m_start, m_stream));
}

void StartGate::hold(StreamHandle s) { GC_CHECK(m_backend.stream_wait_event(s, m_start)); }

bool StartGate::lift() {
    bool done = true;
    if (!m_launch_blocked) {  // else the spin had ended before its launch returned: it held nothing
        GC_CHECK(m_backend.stream_query(m_stream, &done));
    }
    GC_CHECK(m_backend.release_spins());
    return !done;
}

bool with_held_gate(const std::function<bool()>& measure, int attempts) {
    for (int i = 0; i < attempts; ++i) {
        if (measure()) {
            return true;
        }
    }
    return false;
}

std::string to_string(CallClass c) {
    switch (c) {
        case CallClass::ReturnedEarly:
            return "returned early";
        case CallClass::WaitedThenAsync:
            return "waited for the queue, then returned before its copy finished";
        case CallClass::Synchronous:
            return "fully synchronous";
        case CallClass::Undecided:
            return "undecided (the gate did not hold)";
    }
    return "?";
}

CallClass classify(const GatedCall& g) {
    if (g.gate_launch_ms >= k_half_gate * g.gate_ms) {
        return CallClass::Undecided;  // the spin's own launch waited for it: nothing was queued ahead
    }
    const bool waited = g.call_ms >= k_half_gate * g.gate_ms;
    if (!waited && g.queue_busy) {
        return CallClass::ReturnedEarly;
    }
    if (waited && g.queue_busy) {
        return CallClass::WaitedThenAsync;
    }
    if (waited) {
        return CallClass::Synchronous;
    }
    return CallClass::Undecided;  // quick return yet an idle queue: the spin ended too soon to tell
}

std::uint64_t gate_ns(const CheckContext& ctx, CheckResult& r) {
    return static_cast<std::uint64_t>(ctx.expect(r, "gate_ms") * 1e6);
}

void mark_out_of_range(CheckResult& r, const std::string& figure) {
    r.status = Status::Error;
    r.summary = "impossible figure, not judged: " + figure +
                "; the measurement was disturbed (another GPU user?) or wrong; raw timings are in the measurements";
    r.remediation = "run again on an otherwise idle GPU (see async.device.occupancy)";
    r.facts["out_of_range"] = figure;
}

void mark_link_unsteady(CheckResult& r, const std::string& seen, const std::string& judged) {
    r.disturbance = {
        {"summary", fmt::format("{} in this check, yet {}: the link's rate moved with traffic no GPU reading shows "
                                "(another VM or device on the host's PCIe path?)",
                                seen, judged)},
        {"others", nlohmann::json::array()},
        {"link_unsteady", {{"seen", seen}, {"judged", judged}}}};
    r.summary += "; the same check read the link above its floor, so this is not a verdict on the install";
    r.remediation =
        "measure again; where it recurs, look for other traffic on the host's PCIe path (other VMs, other GPUs or "
        "NICs behind the same switch) and for link errors (health.pcie_errors)";
}

}  // namespace gpuconform::async
