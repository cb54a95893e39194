// The simulated device under the acceptance layer's load (backend/acceptance_ops.hpp): kernels do
// their real work on the host and take their modelled time, so the layer's figures and verdicts
// follow the model; the acceptance knobs (sim_backend.hpp) change one behaviour each.
//   memory      a 1 GHz, 512-bit interface: a 128 GB/s peak; STREAM runs at 90 % of it
//   matrix      1 GFLOP/s of FP16 (the profile's sim peak), a multiply at 80 % of it: ~23 ms a product
//   memtest     the layer is offered 128 MiB of free memory, so a test takes seconds on a CI host
//   clocks      1980 MHz of 1980 at 60 C and 500 W, no clock-event reason
#include <atomic>
#include <chrono>
#include <cstring>

#include "backend/acceptance_ops.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_errors.hpp"

namespace gpuconform::sim {

namespace {
constexpr int k_memory_clock_khz = 1'000'000;
constexpr int k_memory_bus_bits = 512;
constexpr double k_peak_bytes_per_s = 2.0 * k_memory_clock_khz * 1e3 * k_memory_bus_bits / 8;
constexpr double k_stream_share = 0.9;
constexpr double k_slow_hbm_share = 0.4;
constexpr double k_gemm_flops_per_s = 0.8e9;  // slow enough that host noise (ms) is small beside a product
constexpr std::size_t k_offered_free_bytes = std::size_t{128} << 20;
constexpr int k_wrong_element_every = 5;
constexpr std::uint64_t k_stuck_bit = 1ull << 17;
constexpr double k_max_clock_mhz = 1980;
constexpr double k_throttled_share = 0.6;
constexpr std::uint64_t k_reason_sw_thermal = 0x20;  // NVML's nvmlClocksEventReasonSwThermalSlowdown
constexpr std::uint64_t k_reason_hw_thermal = 0x40;  // ...HwThermalSlowdown

std::chrono::nanoseconds modelled(double seconds) {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(seconds * 1e9));
}

void record_bad(BadWords* bad, std::size_t i) {
    std::atomic_ref<unsigned long long>(bad->count).fetch_add(1);
    std::atomic_ref<unsigned long long> first(bad->first_index);
    unsigned long long seen = first.load();
    while (i < seen && !first.compare_exchange_weak(seen, i)) {
    }
}
}  // namespace

class SimAcceptance final : public AcceptanceOps {
public:
    explicit SimAcceptance(SimBackend& sim) : m_sim(sim) {}

    ApiResult memory_interface(int, int* clock_khz, int* bus_bits) override {
        *clock_khz = k_memory_clock_khz;
        *bus_bits = k_memory_bus_bits;
        return sim_ok();
    }
    ApiResult memory_info(std::size_t* free_bytes, std::size_t* total_bytes) override {
        *free_bytes = k_offered_free_bytes;
        *total_bytes = k_sim_device_memory;
        return sim_ok();
    }

    ApiResult launch_stream(StreamHandle stream, StreamOp op, double* a, double* b, double* c, std::size_t n,
                            double s) override {
        const bool three = op == StreamOp::Add || op == StreamOp::Triad;
        const double bytes = static_cast<double>(n) * sizeof(double) * (three ? 3 : 2);
        const double share = faults(stream).has(Fault::SlowHbm) ? k_slow_hbm_share : k_stream_share;
        auto body = [op, a, b, c, n, s] {
            for (std::size_t i = 0; i < n; ++i) {
                switch (op) {
                    case StreamOp::Copy:
                        c[i] = a[i];
                        break;
                    case StreamOp::Scale:
                        b[i] = s * c[i];
                        break;
                    case StreamOp::Add:
                        c[i] = a[i] + b[i];
                        break;
                    case StreamOp::Triad:
                        a[i] = b[i] + s * c[i];
                        break;
                }
            }
        };
        const std::size_t bytes_each = n * sizeof(double);
        return m_sim.launch(
            stream, TaskSpec{m_sim.checked_kernel({{a, bytes_each}, {b, bytes_each}, {c, bytes_each}}, std::move(body)),
                             modelled(bytes / (k_peak_bytes_per_s * share))});
    }

    ApiResult launch_gemm_inputs(StreamHandle stream, void* a, void* b, int m, int n, int k) override {
        auto* ha = static_cast<std::uint16_t*>(a);
        auto* hb = static_cast<std::uint16_t*>(b);
        auto body = [ha, hb, m, n, k] {
            for (int t = 0; t < k; ++t) {
                for (int i = 0; i < m; ++i) {
                    ha[static_cast<std::size_t>(t) * m + i] =
                        half_of(gemm_a_value(i % k_gemm_row_period, t % k_gemm_inner_period));
                }
            }
            for (int j = 0; j < n; ++j) {
                for (int t = 0; t < k; ++t) {
                    hb[static_cast<std::size_t>(j) * k + t] =
                        half_of(gemm_b_value(t % k_gemm_inner_period, j % k_gemm_col_period));
                }
            }
        };
        const std::size_t a_bytes = static_cast<std::size_t>(m) * k * 2;
        const std::size_t b_bytes = static_cast<std::size_t>(k) * n * 2;
        return m_sim.launch(stream, TaskSpec{m_sim.checked_kernel({{a, a_bytes}, {b, b_bytes}}, std::move(body))});
    }

    // A plain triple loop over the FP16 integers (exact in float), FP32 accumulation.
    ApiResult gemm(StreamHandle stream, const void* a, const void* b, float* c, int m, int n, int k) override {
        const bool corrupt = faults(stream).has(Fault::GemmWrongElement) && ++m_gemms % k_wrong_element_every == 0;
        const auto* ha = static_cast<const std::uint16_t*>(a);
        const auto* hb = static_cast<const std::uint16_t*>(b);
        auto body = [ha, hb, c, m, n, k, corrupt] {
            for (int j = 0; j < n; ++j) {
                for (int i = 0; i < m; ++i) {
                    float sum = 0;
                    for (int t = 0; t < k; ++t) {
                        sum += float_of(ha[static_cast<std::size_t>(t) * m + i]) *
                               float_of(hb[static_cast<std::size_t>(j) * k + t]);
                    }
                    c[static_cast<std::size_t>(j) * m + i] = sum;
                }
            }
            if (corrupt) {
                c[static_cast<std::size_t>(m) * n / 3] += 1.0f;  // one element, as a faulty SM would
            }
        };
        const double flops = 2.0 * m * n * k;
        return m_sim.launch(stream, TaskSpec{m_sim.checked_kernel({{a, static_cast<std::size_t>(m) * k * 2},
                                                                   {b, static_cast<std::size_t>(k) * n * 2},
                                                                   {c, static_cast<std::size_t>(m) * n * 4}},
                                                                  std::move(body)),
                                             modelled(flops / k_gemm_flops_per_s)});
    }

    ApiResult launch_gemm_check(StreamHandle stream, const float* c, int m, int n, int k, BadWords* bad) override {
        auto body = [c, m, n, k, bad] {
            const std::size_t count = static_cast<std::size_t>(m) * n;
            for (std::size_t x = 0; x < count; ++x) {
                if (c[x] != gemm_expected(x % static_cast<std::size_t>(m), x / static_cast<std::size_t>(m), k)) {
                    record_bad(bad, x);
                }
            }
        };
        return m_sim.launch(
            stream, TaskSpec{m_sim.checked_kernel({{c, static_cast<std::size_t>(m) * n * 4}, {bad, sizeof(BadWords)}},
                                                  std::move(body))});
    }

    ApiResult launch_memtest_write(StreamHandle stream, std::uint64_t* words, std::size_t count, MemPattern p,
                                   std::uint64_t param, bool inverted) override {
        const bool stuck = faults(stream).has(Fault::BadMemoryCell);
        auto body = [words, count, p, param, inverted, stuck] {
            for (std::size_t i = 0; i < count; ++i) {
                words[i] = memtest_word(p, i, reinterpret_cast<std::uint64_t>(words + i), param, inverted);
            }
            if (stuck && count > 0) {
                words[count / 2] &= ~k_stuck_bit;
            }
        };
        return m_sim.launch(stream, TaskSpec{m_sim.checked_kernel({{words, count * 8}}, std::move(body)),
                                             modelled(static_cast<double>(count) * 8 / k_peak_bytes_per_s)});
    }

    ApiResult launch_memtest_check(StreamHandle stream, std::uint64_t* words, std::size_t count, MemPattern p,
                                   std::uint64_t param, bool inverted, bool invert_after, BadWords* bad) override {
        const bool stuck = faults(stream).has(Fault::BadMemoryCell);
        auto body = [words, count, p, param, inverted, invert_after, bad, stuck] {
            for (std::size_t i = 0; i < count; ++i) {
                const std::uint64_t expected =
                    memtest_word(p, i, reinterpret_cast<std::uint64_t>(words + i), param, inverted);
                if (words[i] != expected) {
                    record_bad(bad, i);
                } else if (invert_after) {
                    words[i] = ~expected;
                }
            }
            if (stuck && invert_after && count > 0) {
                words[count / 2] &= ~k_stuck_bit;
            }
        };
        return m_sim.launch(
            stream, TaskSpec{m_sim.checked_kernel({{words, count * 8}, {bad, sizeof(BadWords)}}, std::move(body)),
                             modelled(static_cast<double>(count) * 8 * (invert_after ? 2 : 1) / k_peak_bytes_per_s)});
    }

    ApiResult sample_load(int device, LoadSample* sample) override {
        if (device < 0 || device >= static_cast<int>(m_sim.m_devices.size())) {
            return sim_error(SimError::InvalidDevice, "no such simulated device");
        }
        const bool throttles = m_sim.m_devices[static_cast<std::size_t>(device)]->faults.has(Fault::ThrottlesUnderLoad);
        sample->max_sm_clock_mhz = k_max_clock_mhz;
        sample->sm_clock_mhz = throttles ? k_max_clock_mhz * k_throttled_share : k_max_clock_mhz;
        sample->temperature_c = throttles ? 91 : 60;
        sample->power_w = 500;
        sample->clock_event_reasons = throttles ? (k_reason_sw_thermal | k_reason_hw_thermal) : 0;
        sample->reasons_read = true;
        return sim_ok();
    }

private:
    const FaultSet& faults(StreamHandle stream) {
        const StreamPtr s = m_sim.resolve_stream(stream);
        return s ? m_sim.device_of(*s).faults : m_none;
    }
    // IEEE half from a small integer (|v| <= 2048, exact), and back: the sim has no half type.
    static std::uint16_t half_of(int v) {
        if (v == 0) {
            return 0;
        }
        const std::uint16_t sign = v < 0 ? 0x8000 : 0;
        unsigned mag = static_cast<unsigned>(v < 0 ? -v : v);
        int exp = 0;
        while ((mag >> exp) > 1) {
            ++exp;
        }
        const unsigned mantissa = (mag << (10 - exp)) & 0x3ffu;
        return static_cast<std::uint16_t>(sign | ((exp + 15) << 10) | mantissa);
    }
    static float float_of(std::uint16_t h) {
        if ((h & 0x7fff) == 0) {
            return 0.0f;
        }
        const int exp = ((h >> 10) & 0x1f) - 15;
        const float mag = (1.0f + static_cast<float>(h & 0x3ff) / 1024.0f) * static_cast<float>(1 << exp);
        return (h & 0x8000) != 0 ? -mag : mag;
    }

    SimBackend& m_sim;
    FaultSet m_none;
    int m_gemms = 0;
};

AcceptanceOps* SimBackend::acceptance() {
    std::lock_guard lock(m_state_mutex);
    if (!m_acceptance) {
        m_acceptance = std::make_shared<SimAcceptance>(*this);
    }
    return m_acceptance.get();
}

}  // namespace gpuconform::sim
