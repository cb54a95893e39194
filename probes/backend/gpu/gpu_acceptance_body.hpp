// The acceptance layer's kernels (backend/acceptance_ops.hpp), written once for CUDA and HIP like
// the rest of the body; included by gpu_backend_body.hpp inside its anonymous namespace, after
// wrap() and launch_result(). The STREAM kernels follow BabelStream's CUDA version: one element per
// thread, 1024 threads a block.
#pragma once  // included inside gpu_backend_body.hpp's anonymous namespace

// backend/acceptance_ops.hpp is included at the top of the body, outside every namespace.

namespace stream_kernels {

__global__ void copy(const double* a, double* c, std::size_t n) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i];
    }
}
__global__ void scale(double* b, const double* c, std::size_t n, double s) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        b[i] = s * c[i];
    }
}
__global__ void add(const double* a, const double* b, double* c, std::size_t n) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
__global__ void triad(double* a, const double* b, const double* c, std::size_t n, double s) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = b[i] + s * c[i];
    }
}

}  // namespace stream_kernels

__device__ inline void note_bad(BadWords* bad, std::size_t i) {
    atomicAdd(&bad->count, 1ull);
    atomicMin(&bad->first_index, static_cast<unsigned long long>(i));
}

__global__ void gemm_inputs_kernel(__half* a, __half* b, int m, int n, int k) {
    const std::size_t a_count = static_cast<std::size_t>(m) * k;
    const std::size_t b_count = static_cast<std::size_t>(k) * n;
    for (std::size_t x = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; x < a_count + b_count;
         x += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        if (x < a_count) {  // column-major: x = row + column * m
            const int row = static_cast<int>(x % static_cast<std::size_t>(m));
            const int inner = static_cast<int>(x / static_cast<std::size_t>(m));
            a[x] = __int2half_rn(gemm_a_value(row % k_gemm_row_period, inner % k_gemm_inner_period));
        } else {
            const std::size_t y = x - a_count;
            const int inner = static_cast<int>(y % static_cast<std::size_t>(k));
            const int col = static_cast<int>(y / static_cast<std::size_t>(k));
            b[y] = __int2half_rn(gemm_b_value(inner % k_gemm_inner_period, col % k_gemm_col_period));
        }
    }
}

__global__ void gemm_check_kernel(const float* c, int m, int n, int k, BadWords* bad) {
    const std::size_t count = static_cast<std::size_t>(m) * n;
    for (std::size_t x = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; x < count;
         x += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        if (c[x] != gemm_expected(x % static_cast<std::size_t>(m), x / static_cast<std::size_t>(m), k)) {
            note_bad(bad, x);
        }
    }
}

__global__ void memtest_write_kernel(std::uint64_t* words, std::size_t count, MemPattern p, std::uint64_t param,
                                     bool inverted) {
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        words[i] = memtest_word(p, i, reinterpret_cast<std::uint64_t>(words + i), param, inverted);
    }
}

__global__ void memtest_check_kernel(std::uint64_t* words, std::size_t count, MemPattern p, std::uint64_t param,
                                     bool inverted, bool invert_after, BadWords* bad) {
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::uint64_t expected = memtest_word(p, i, reinterpret_cast<std::uint64_t>(words + i), param, inverted);
        if (words[i] != expected) {
            note_bad(bad, i);
        } else if (invert_after) {
            words[i] = ~expected;
        }
    }
}

constexpr int k_stream_threads = 1024;  // BabelStream's TBSIZE
constexpr int k_grid_stride_blocks = 8192;

class GpuAcceptance final : public AcceptanceOps {
public:
    ApiResult memory_interface(int device, int* clock_khz, int* bus_bits) override {
        return wrap(vendor::memory_interface(device, clock_khz, bus_bits));
    }
    ApiResult memory_info(std::size_t* free_bytes, std::size_t* total_bytes) override {
        return wrap(GC_RT(MemGetInfo)(free_bytes, total_bytes));
    }
    ApiResult launch_stream(StreamHandle stream, StreamOp op, double* a, double* b, double* c, std::size_t n,
                            double scalar) override {
        const auto blocks = static_cast<unsigned>((n + k_stream_threads - 1) / k_stream_threads);
        const RuntimeStream s = to_stream(stream);
        switch (op) {
            case StreamOp::Copy:
                stream_kernels::copy<<<blocks, k_stream_threads, 0, s>>>(a, c, n);
                break;
            case StreamOp::Scale:
                stream_kernels::scale<<<blocks, k_stream_threads, 0, s>>>(b, c, n, scalar);
                break;
            case StreamOp::Add:
                stream_kernels::add<<<blocks, k_stream_threads, 0, s>>>(a, b, c, n);
                break;
            case StreamOp::Triad:
                stream_kernels::triad<<<blocks, k_stream_threads, 0, s>>>(a, b, c, n, scalar);
                break;
        }
        return launch_result();
    }
    ApiResult launch_gemm_inputs(StreamHandle stream, void* a, void* b, int m, int n, int k) override {
        gemm_inputs_kernel<<<k_grid_stride_blocks, 256, 0, to_stream(stream)>>>(static_cast<__half*>(a),
                                                                                static_cast<__half*>(b), m, n, k);
        return launch_result();
    }
    ApiResult gemm(StreamHandle stream, const void* a, const void* b, float* c, int m, int n, int k) override {
        if (const std::string why = m_blas.open(); !why.empty()) {
            return not_supported(why);
        }
        const int status = m_blas.gemm(to_stream(stream), a, b, c, m, n, k);
        if (status != 0) {
            return ApiResult{status, std::string(vendor::Blas::k_name) + " status " + std::to_string(status),
                             "the matrix multiply call failed"};
        }
        return launch_result();
    }
    ApiResult launch_gemm_check(StreamHandle stream, const float* c, int m, int n, int k, BadWords* bad) override {
        gemm_check_kernel<<<k_grid_stride_blocks, 256, 0, to_stream(stream)>>>(c, m, n, k, bad);
        return launch_result();
    }
    ApiResult launch_memtest_write(StreamHandle stream, std::uint64_t* words, std::size_t count, MemPattern p,
                                   std::uint64_t param, bool inverted) override {
        memtest_write_kernel<<<k_grid_stride_blocks, 256, 0, to_stream(stream)>>>(words, count, p, param, inverted);
        return launch_result();
    }
    ApiResult launch_memtest_check(StreamHandle stream, std::uint64_t* words, std::size_t count, MemPattern p,
                                   std::uint64_t param, bool inverted, bool invert_after, BadWords* bad) override {
        memtest_check_kernel<<<k_grid_stride_blocks, 256, 0, to_stream(stream)>>>(words, count, p, param, inverted,
                                                                                  invert_after, bad);
        return launch_result();
    }
    ApiResult sample_load(int, LoadSample*) override {
        return not_supported("the GPU modules leave clocks to NVML or sysfs in the check");
    }

private:
    vendor::Blas m_blas;
};
