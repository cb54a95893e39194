// The acceptance layer's load (probes/acceptance/): STREAM kernels, a matrix multiply on the
// matrix units whose exact answer is known, memory-test patterns, and what a module reads of its
// memory interface. A module that has none answers Backend::acceptance() with nullptr; one that
// lacks a single operation answers it with k_not_supported, and the check skips saying why.
// Nothing here may depend on a vendor header: the known-answer functions below are shared by the
// kernels, the simulated backend and the host-side tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "backend/backend.hpp"
#include "backend/pattern.hpp"  // GPUCONFORM_HOST_DEVICE

namespace gpuconform {

// What a module answers for an operation it does not have; the check skips naming it.
constexpr const char* k_not_supported_name = "gpuconformNotSupported";
inline ApiResult not_supported(const std::string& what) { return ApiResult{-1, k_not_supported_name, what}; }
inline bool is_not_supported(const ApiResult& r) { return r.name == k_not_supported_name; }

// BabelStream's four kernels (https://github.com/UoB-HPC/BabelStream, src/cuda/CUDAStream.cu):
// copy c = a; mul b = s*c; add c = a + b; triad a = b + s*c. Bytes moved per element: 2, 2, 3, 3
// doubles.
enum class StreamOp { Copy, Scale, Add, Triad };

// Memory-test patterns over 64-bit words; `param` picks the variant (a shift, a word, a seed).
enum class MemPattern {
    WalkingOnes,       // 1 << ((i + param) % 64)
    WalkingZeros,      // its complement
    Solid,             // param itself: moving inversions write it, then its complement
    AddressInAddress,  // the word's own address
    Random,            // a hash of the index and param
};

// Where a check kernel saw its first wrong word: `count` wrong words, the lowest index among them
// (~0 when none). Device memory, zeroed and set by the caller before the check kernel runs.
struct BadWords {
    unsigned long long count = 0;
    unsigned long long first_index = ~0ull;
};

GPUCONFORM_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

GPUCONFORM_HOST_DEVICE inline std::uint64_t memtest_word(MemPattern p, std::uint64_t i, std::uint64_t address,
                                                         std::uint64_t param, bool inverted) {
    std::uint64_t w = 0;
    switch (p) {
        case MemPattern::WalkingOnes:
            w = 1ull << ((i + param) & 63u);
            break;
        case MemPattern::WalkingZeros:
            w = ~(1ull << ((i + param) & 63u));
            break;
        case MemPattern::Solid:
            w = param;
            break;
        case MemPattern::AddressInAddress:
            w = address;
            break;
        case MemPattern::Random:
            w = mix64(i ^ mix64(param));
            break;
    }
    return inverted ? ~w : w;
}

// The matrix multiply's known answer. A (m x k) and B (k x n) are column-major half-precision
// matrices of small integers (-2..2: exact in FP16, products and sums exact in FP32 up to 2^24),
// periodic so that C = A*B has a closed form: A(i, t) = a_value(i % 61, t % 35),
// B(t, j) = b_value(t % 35, j % 67), and with k a multiple of 35,
// C(i, j) = k / 35 * sum over t < 35 of a_value(i % 61, t) * b_value(t, j % 67).
// The periods are coprime to the matrix units' tile sizes, so no tile sees a repeated block.
constexpr int k_gemm_row_period = 61;
constexpr int k_gemm_inner_period = 35;
constexpr int k_gemm_col_period = 67;

GPUCONFORM_HOST_DEVICE inline int gemm_a_value(int row, int inner) {
    return static_cast<int>(mix64(static_cast<std::uint64_t>(row) * 1000003u + static_cast<std::uint64_t>(inner)) %
                            5u) -
           2;
}
GPUCONFORM_HOST_DEVICE inline int gemm_b_value(int inner, int col) {
    return static_cast<int>(mix64(0x5bd1e995u + static_cast<std::uint64_t>(inner) * 7919u +
                                  static_cast<std::uint64_t>(col) * 1000033u) %
                            5u) -
           2;
}
GPUCONFORM_HOST_DEVICE inline float gemm_expected(std::uint64_t i, std::uint64_t j, int k) {
    const int r = static_cast<int>(i % k_gemm_row_period);
    const int c = static_cast<int>(j % k_gemm_col_period);
    int sum = 0;
    for (int t = 0; t < k_gemm_inner_period; ++t) {
        sum += gemm_a_value(r, t) * gemm_b_value(t, c);
    }
    return static_cast<float>(sum * (k / k_gemm_inner_period));
}

// One reading of a GPU's clocks and limits, taken while it is under load.
struct LoadSample {
    double sm_clock_mhz = -1;  // -1: not read
    double max_sm_clock_mhz = -1;
    double temperature_c = -1;
    double power_w = -1;
    std::uint64_t clock_event_reasons = 0;  // NVML's nvmlClocksEventReason bits (nvml/nvml_api.hpp)
    bool reasons_read = false;
};

class AcceptanceOps {
public:
    virtual ~AcceptanceOps() = default;

    // The memory interface as the runtime reports it: its clock (kHz) and bus width (bits). The
    // theoretical peak is 2 x clock x width / 8 (double data rate).
    virtual ApiResult memory_interface(int device, int* clock_khz, int* bus_bits) = 0;
    // Free and total device memory of the current device.
    virtual ApiResult memory_info(std::size_t* free_bytes, std::size_t* total_bytes) = 0;

    // One STREAM kernel over n doubles (a, b, c as StreamOp says).
    virtual ApiResult launch_stream(StreamHandle stream, StreamOp op, double* a, double* b, double* c, std::size_t n,
                                    double scalar) = 0;
    // Fills a (m x k) and b (k x n), FP16 column-major, with the known-answer inputs above.
    virtual ApiResult launch_gemm_inputs(StreamHandle stream, void* a, void* b, int m, int n, int k) = 0;
    // c (m x n, FP32, column-major) = a * b on the matrix units, FP32 accumulation.
    virtual ApiResult gemm(StreamHandle stream, const void* a, const void* b, float* c, int m, int n, int k) = 0;
    // Compares every element of c with gemm_expected; adds to *bad (device memory).
    virtual ApiResult launch_gemm_check(StreamHandle stream, const float* c, int m, int n, int k, BadWords* bad) = 0;

    // Writes memtest_word(pattern, i, &words[i], param, inverted) to words[0..count).
    virtual ApiResult launch_memtest_write(StreamHandle stream, std::uint64_t* words, std::size_t count, MemPattern p,
                                           std::uint64_t param, bool inverted) = 0;
    // Compares words[0..count) with that pattern into *bad; with invert_after, then writes the
    // complement over each word that matched (moving inversions: each word read, then inverted);
    // a wrong word is left as it was read, for the report.
    virtual ApiResult launch_memtest_check(StreamHandle stream, std::uint64_t* words, std::size_t count, MemPattern p,
                                           std::uint64_t param, bool inverted, bool invert_after, BadWords* bad) = 0;

    // Clocks, temperature, power and clock-event reasons of `device` read by the module itself;
    // real modules leave this to NVML in the check (k_not_supported), the sim answers it.
    virtual ApiResult sample_load(int device, LoadSample* sample) = 0;
};

}  // namespace gpuconform
