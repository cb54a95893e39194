#include "host/gpu_env_vars.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuconform {

namespace {
// Sources (docs/environment-variables.md lists them per variable).
constexpr std::string_view k_dcgm =
    "https://github.com/NVIDIA/DCGM/blob/903d745504f50153be8293f8566346f9de3b3c93/nvvs/plugin_src/software/"
    "Software.cpp";
constexpr std::string_view k_cuda_env =
    "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html";
constexpr std::string_view k_cuda_gdb = "https://docs.nvidia.com/cuda/cuda-gdb/index.html#gpu-core-dump-support";
constexpr std::string_view k_cupti = "https://docs.nvidia.com/cupti/main/main.html";
constexpr std::string_view k_ld_so = "https://man7.org/linux/man-pages/man8/ld.so.8.html";
constexpr std::string_view k_torch_cuda = "https://docs.pytorch.org/docs/stable/notes/cuda.html#environment-variables";
constexpr std::string_view k_nccl = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html";
constexpr std::string_view k_hip_env = "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/env_variables.html";
constexpr std::string_view k_rocr_env =
    "https://rocm.docs.amd.com/projects/ROCR-Runtime/en/latest/api-reference/environment_variables.html";
constexpr std::string_view k_nvidia_container =
    "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html";

// What a variable can disturb, by category: each reaches every check whose CheckDef says its
// verdict rests on it (timing, asynchrony, error reporting) or that runs on a GPU, never a list of
// ids; and the framework layer, whose pytest checks share all of these.
#define GC_TIMING k_timing_sensitive_checks, "framework.*"
#define GC_SERIALIZED k_asynchrony_checks, "framework.*"
#define GC_ERRORS k_error_reporting_checks, "framework.*"
#define GC_ALL_DEVICE k_device_checks, "framework.*"
}  // namespace

const std::vector<GpuEnvVar>& gpu_env_vars() {
    static const std::vector<GpuEnvVar> table{
        // DCGM's software test warns on these ten (checkForBadEnvVaribles).
        {"NSIGHT_CUDA_DEBUGGER",
         "nvidia",
         "debugger",
         true,
         "makes the Nsight debugger resident in every CUDA process",
         {GC_ALL_DEVICE},
         k_dcgm},
        {"CUDA_INJECTION32_PATH",
         "nvidia",
         "debugger",
         true,
         "injects a tool library (profiler, tracer) into every CUDA process",
         {GC_ALL_DEVICE},
         k_cupti},
        {"CUDA_INJECTION64_PATH",
         "nvidia",
         "debugger",
         true,
         "injects a tool library (profiler, tracer) into every CUDA process",
         {GC_ALL_DEVICE},
         k_cupti},
        {"CUDA_AUTO_BOOST",
         "nvidia",
         "env_var",
         true,
         "overrides the GPU's clock boost policy (obsolete)",
         {GC_TIMING},
         k_cuda_env},
        {"CUDA_ENABLE_COREDUMP_ON_EXCEPTION",
         "nvidia",
         "debugger",
         true,
         "a device exception writes a GPU core dump and stops the process instead of returning the error",
         {GC_ERRORS},
         k_cuda_gdb},
        {"CUDA_COREDUMP_FILE",
         "nvidia",
         "debugger",
         true,
         "where GPU core dumps go (core dumps are being taken)",
         {GC_ERRORS},
         k_cuda_gdb},
        {"CUDA_DEVICE_WAITS_ON_EXCEPTION",
         "nvidia",
         "debugger",
         true,
         "a device exception halts the kernel and waits for a debugger instead of returning the error",
         {GC_ERRORS},
         k_cuda_env},
        {"CUDA_PROFILE",
         "nvidia",
         "debugger",
         true,
         "legacy command-line profiler: timestamps every launch",
         {GC_TIMING},
         k_dcgm},
        {"COMPUTE_PROFILE",
         "nvidia",
         "debugger",
         true,
         "legacy command-line profiler: timestamps every launch",
         {GC_TIMING},
         k_dcgm},
        {"OPENCL_PROFILE", "nvidia", "debugger", true, "OpenCL profiler of the NVIDIA driver", {GC_TIMING}, k_dcgm},
        // Interposers.
        {"LD_PRELOAD",
         "glibc",
         "debugger",
         true,
         "loads a library ahead of every other (a sanitizer, a shim, an interposer)",
         {GC_ALL_DEVICE},
         k_ld_so},
        {"LD_LIBRARY_PATH",
         "glibc",
         "env_var",
         false,
         "recorded only when an entry makes the loader pick another GPU driver or runtime library than the system's "
         "(another version of the same library); a folder holding the only copy, such as the NVIDIA container "
         "toolkit's driver folder, is the driver itself",
         {GC_ALL_DEVICE},
         k_ld_so},
        // CUDA execution, JIT, caching and module loading.
        {"CUDA_LAUNCH_BLOCKING",
         "nvidia",
         "env_var",
         true,
         "every launch waits for the kernel to finish",
         {GC_SERIALIZED},
         k_cuda_env},
        {"CUDA_DEVICE_MAX_CONNECTIONS",
         "nvidia",
         "env_var",
         false,
         "how many hardware work queues streams share",
         {"async.stream.*", "async.overlap.*", "async.queue.*"},
         k_cuda_env},
        {"CUDA_DEVICE_MAX_COPY_CONNECTIONS",
         "nvidia",
         "env_var",
         false,
         "how many copy work queues streams share",
         {"async.copy.*", "async.overlap.copy_compute"},
         k_cuda_env},
        {"CUDA_SCALE_LAUNCH_QUEUES",
         "nvidia",
         "env_var",
         false,
         "scales the launch queue (command buffer) size",
         {"async.queue.*", "async.launch.*"},
         k_cuda_env},
        {"CUDA_MODULE_LOADING",
         "nvidia",
         "env_var",
         false,
         "lazy or eager module loading: when the first launch pays for it",
         {"async.launch.*", "async.queue.*", "framework.*"},
         k_cuda_env},
        {"CUDA_MODULE_DATA_LOADING",
         "nvidia",
         "env_var",
         false,
         "lazy or eager loading of module data",
         {"async.launch.*", "framework.*"},
         k_cuda_env},
        {"CUDA_CACHE_*",
         "nvidia",
         "env_var",
         false,
         "the JIT compute cache: disabled, moved or resized",
         {"runtime.*", "framework.*"},
         k_cuda_env},
        {"CUDA_FORCE_PTX_JIT",
         "nvidia",
         "env_var",
         true,
         "ignores embedded binaries and JIT-compiles PTX",
         {GC_ALL_DEVICE},
         k_cuda_env},
        {"CUDA_FORCE_JIT",
         "nvidia",
         "env_var",
         true,
         "ignores embedded binaries and JIT-compiles PTX",
         {GC_ALL_DEVICE},
         k_cuda_env},
        {"CUDA_DISABLE_PTX_JIT",
         "nvidia",
         "env_var",
         true,
         "refuses to JIT PTX: kernels without a matching binary fail to load",
         {GC_ALL_DEVICE},
         k_cuda_env},
        {"CUDA_DISABLE_JIT",
         "nvidia",
         "env_var",
         true,
         "refuses to JIT PTX: kernels without a matching binary fail to load",
         {GC_ALL_DEVICE},
         k_cuda_env},
        {"CUDA_DISABLE_PERF_BOOST",
         "nvidia",
         "env_var",
         false,
         "keeps the GPU out of its boost performance state",
         {GC_TIMING},
         k_cuda_env},
        {"CUDA_DEVICE_ORDER",
         "nvidia",
         "env_var",
         false,
         "device numbering (FASTEST_FIRST or PCI_BUS_ID)",
         {"runtime.*"},
         k_cuda_env},
        {"CUDA_MPS_PIPE_DIRECTORY",
         "nvidia",
         "env_var",
         false,
         "work goes through an MPS server shared with other clients",
         {GC_TIMING},
         "https://docs.nvidia.com/deploy/mps/index.html"},
        // Visibility.
        {"CUDA_VISIBLE_DEVICES",
         "nvidia",
         "hidden_gpus",
         false,
         "which GPUs the runtime sees (CUDA and HIP); empty hides all",
         {GC_ALL_DEVICE},
         k_cuda_env},
        {"NVIDIA_VISIBLE_DEVICES",
         "nvidia",
         "hidden_gpus",
         false,
         "which GPUs the NVIDIA container runtime mounts",
         {GC_ALL_DEVICE},
         k_nvidia_container},
        {"HIP_VISIBLE_DEVICES", "amd", "hidden_gpus", false, "which GPUs HIP sees", {GC_ALL_DEVICE}, k_hip_env},
        {"ROCR_VISIBLE_DEVICES",
         "amd",
         "hidden_gpus",
         false,
         "which GPUs the ROCm runtime sees",
         {GC_ALL_DEVICE},
         k_hip_env},
        {"GPU_DEVICE_ORDINAL",
         "amd",
         "hidden_gpus",
         false,
         "which GPUs OpenCL and HIP see",
         {GC_ALL_DEVICE},
         k_hip_env},
        // PyTorch's allocator.
        {"PYTORCH_CUDA_ALLOC_CONF",
         "pytorch",
         "env_var",
         false,
         "the caching allocator's behaviour (expandable segments, splits)",
         {"framework.*"},
         k_torch_cuda},
        {"PYTORCH_HIP_ALLOC_CONF",
         "pytorch",
         "env_var",
         false,
         "the caching allocator's behaviour on ROCm",
         {"framework.*"},
         k_torch_cuda},
        {"PYTORCH_NO_CUDA_MEMORY_CACHING",
         "pytorch",
         "env_var",
         true,
         "every allocation goes to cudaMalloc (a debugging setting)",
         {"framework.*"},
         k_torch_cuda},
        // NCCL: transports and algorithms of collectives (the framework layer's peer paths).
        // NVIDIA's container images set NCCL_VERSION to say what they were built with; NCCL
        // reads no such variable, so it is recorded and explains no result.
        {"NCCL_VERSION",
         "nccl",
         "env_var",
         false,
         "the NCCL version a container image was built with (NVIDIA's images set it); NCCL does not read it",
         {},
         k_nccl},
        {"NCCL_*",
         "nccl",
         "env_var",
         false,
         "NCCL transports, algorithms and logging (P2P, SHM, IB off; NCCL_DEBUG)",
         {"framework.*", "async.peer.*"},
         k_nccl},
        // ROCm / HIP.
        {"HSA_ENABLE_SDMA",
         "amd",
         "env_var",
         false,
         "copies by the DMA engines (1) or by blit kernels (0)",
         {"async.copy.*", "async.overlap.copy_compute"},
         k_rocr_env},
        {"HSA_*",
         "amd",
         "env_var",
         false,
         "ROCr runtime settings (DMA engines, CU masks, scratch, queues)",
         {GC_ALL_DEVICE},
         k_rocr_env},
        {"AMD_LOG_LEVEL",
         "amd",
         "env_var",
         false,
         "HIP runtime logging: every call is logged, which slows launches",
         {GC_TIMING},
         k_hip_env},
        {"HIP_LAUNCH_BLOCKING",
         "amd",
         "env_var",
         true,
         "every launch waits for the kernel to finish",
         {GC_SERIALIZED},
         k_hip_env},
        {"AMD_SERIALIZE_KERNEL",
         "amd",
         "env_var",
         true,
         "kernels wait for the previous (1), themselves (2) or both (3)",
         {GC_SERIALIZED},
         k_hip_env},
        {"AMD_SERIALIZE_COPY",
         "amd",
         "env_var",
         true,
         "copies wait for the previous (1), themselves (2) or both (3)",
         {GC_SERIALIZED},
         k_hip_env},
        {"HIP_FORCE_QUEUE_PROFILING",
         "amd",
         "debugger",
         false,
         "runs as if under rocprof: every queue profiles",
         {GC_TIMING},
         k_hip_env},
        {"ROC_GLOBAL_CU_MASK",
         "amd",
         "env_var",
         false,
         "limits the compute units HIP queues use",
         {GC_TIMING},
         k_hip_env},
        {"GPU_MAX_HW_QUEUES",
         "amd",
         "env_var",
         false,
         "how many hardware queues streams share",
         {"async.stream.*", "async.overlap.*"},
         k_hip_env},
        {"GPU_STAGING_BUFFER_SIZE",
         "amd",
         "env_var",
         false,
         "the pageable copy staging size",
         {"async.copy.pageable_behaviour"},
         k_hip_env},
        {"AMD_DIRECT_DISPATCH",
         "amd",
         "env_var",
         false,
         "launches dispatched from the calling thread or a worker thread",
         {"async.launch.*", "async.queue.*"},
         k_hip_env},
    };
    return table;
}

#undef GC_TIMING
#undef GC_SERIALIZED
#undef GC_ERRORS
#undef GC_ALL_DEVICE

const GpuEnvVar* find_gpu_env_var(std::string_view name) {
    const GpuEnvVar* family = nullptr;
    for (const auto& v : gpu_env_vars()) {
        if (v.name == name) {
            return &v;
        }
        if (v.name.ends_with('*') && name.starts_with(v.name.substr(0, v.name.size() - 1)) && family == nullptr) {
            family = &v;
        }
    }
    return family;
}

namespace {

// Where the loader finds a library when LD_LIBRARY_PATH does not name it: the distro's multiarch
// and plain folders, and the folders /etc/ld.so.conf.d lists (ld.so(8)).
std::vector<std::string> system_library_dirs(const std::string& root) {
    std::vector<std::string> dirs{"/lib/x86_64-linux-gnu",
                                  "/usr/lib/x86_64-linux-gnu",
                                  "/lib/aarch64-linux-gnu",
                                  "/usr/lib/aarch64-linux-gnu",
                                  "/lib64",
                                  "/usr/lib64",
                                  "/lib",
                                  "/usr/lib"};
    std::error_code ec;
    const std::filesystem::path conf_d = std::filesystem::path(root) / "etc/ld.so.conf.d";
    for (const auto& entry : std::filesystem::directory_iterator(conf_d, ec)) {
        if (entry.path().extension() != ".conf") {
            continue;
        }
        std::ifstream in(entry.path());
        for (std::string line; std::getline(in, line) && dirs.size() < 256;) {
            if (!line.empty() && line[0] == '/') {
                dirs.push_back(line.substr(0, line.find_first_of(" \t#")));
            }
        }
    }
    return dirs;
}

// The file a library name resolves to, by its final name (libcuda.so.1 -> libcuda.so.580.159.04),
// or empty when absent.
std::string resolved_name(const std::string& path) {
    std::error_code ec;
    const auto real = std::filesystem::canonical(path, ec);
    return ec ? "" : real.filename().string();
}

}  // namespace

std::vector<std::string> shadowing_library_dirs(const std::string& ld_library_path, const std::string& root) {
    static constexpr std::array<const char*, 5> k_libs{"libcuda.so.1", "libnvidia-ml.so.1", "libamdhip64.so",
                                                       "libamdhip64.so.6", "libhsa-runtime64.so.1"};
    const std::string prefix = root == "/" ? "" : root;
    const auto system_dirs = system_library_dirs(root);
    std::vector<std::string> out;
    std::stringstream ss(ld_library_path);
    for (std::string dir; std::getline(ss, dir, ':');) {
        if (dir.empty() || std::find(system_dirs.begin(), system_dirs.end(), dir) != system_dirs.end()) {
            continue;
        }
        for (const char* lib : k_libs) {
            const std::string mine = resolved_name(prefix + dir + "/" + lib);
            if (mine.empty()) {
                continue;
            }
            // It changes what loads only when the system holds the same library as another file
            // (another version). The only copy there is (the container toolkit's driver folder)
            // is the driver, not a shadow of it.
            for (const auto& sys : system_dirs) {
                const std::string theirs = resolved_name(prefix + sys + "/" + lib);
                if (!theirs.empty() && theirs != mine) {
                    out.push_back(dir + "/" + lib);
                    break;
                }
            }
        }
    }
    return out;
}

}  // namespace gpuconform
