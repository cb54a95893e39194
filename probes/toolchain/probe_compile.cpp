#include "toolchain/probe_compile.hpp"
#include "core/temp_dir.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <set>
#include <sstream>

#include "core/check.hpp"
#include "core/interrupt.hpp"
#include "core/child_process.hpp"
#include "host/host_fs.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

namespace {

// The probe includes <cmath> on purpose: that is where glibc's and CUDA's math declarations meet.
constexpr const char* k_probe_source = R"(#include <cmath>
#include <cstdio>
#ifdef __HIP__
#include <hip/hip_runtime.h>
#define gpuMalloc hipMalloc
#define gpuMemcpy hipMemcpy
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSuccess hipSuccess
#else
#define gpuMalloc cudaMalloc
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSuccess cudaSuccess
#endif
__global__ void probe_kernel(float* out) { out[threadIdx.x] = sqrtf(static_cast<float>(threadIdx.x)); }
// Exit 0: ran and the result is right; 3: no device visible; 4: a runtime call failed; 5: wrong result.
int main() {
    int n = 0;
    if (gpuGetDeviceCount(&n) != gpuSuccess || n == 0) { std::printf("no device\n"); return 3; }
    float* d = nullptr;
    float h[32] = {};
    if (gpuMalloc(reinterpret_cast<void**>(&d), sizeof h) != gpuSuccess) { std::printf("malloc failed\n"); return 4; }
    probe_kernel<<<1, 32>>>(d);
    if (gpuMemcpy(h, d, sizeof h, gpuMemcpyDeviceToHost) != gpuSuccess) { std::printf("kernel or copy failed\n"); return 4; }
    for (int i = 0; i < 32; ++i) {
        if (std::fabs(h[i] - std::sqrt(static_cast<float>(i))) > 1e-5f) { std::printf("wrong result at %d\n", i); return 5; }
    }
    std::printf("ok on %d device(s)\n", n);
    return 0;
}
)";

std::vector<std::string> split_path(const std::string& path_env) {
    std::vector<std::string> out;
    std::stringstream ss(path_env);
    std::string item;
    while (std::getline(ss, item, ':')) {
        if (!item.empty()) {
            out.push_back(item);
        }
    }
    return out;
}

bool executable(const std::string& p) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    return !ec && fs::is_regular_file(st) && (st.permissions() & fs::perms::owner_exec) != fs::perms::none;
}

// Adds `candidate` (a path below `root`) when it is executable and the program it is (after
// symlinks and one-line `exec` wrappers) is new.
void add_unique(const std::string& root, const std::string& candidate, std::set<std::string>& seen,
                std::vector<std::string>& out) {
    if (!executable(under_root(root, candidate))) {
        return;
    }
    if (seen.insert(resolve_program(root, candidate)).second) {
        out.push_back(candidate);
    }
}

std::vector<std::string> find_tool(const std::string& root, const std::string& name, const std::string& path_env,
                                   const std::vector<std::string>& prefixes) {
    std::set<std::string> seen;
    std::vector<std::string> out;
    add_unique(root, "/usr/bin/" + name, seen, out);
    for (const auto& prefix : prefixes) {  // e.g. "/usr/local/cuda" matches cuda, cuda-12.4, ...
        const fs::path p(prefix);
        for (const auto& entry : list_dir(root, p.parent_path().string())) {
            if (entry.rfind(p.filename().string(), 0) == 0) {
                add_unique(root, (p.parent_path() / entry / "bin" / name).string(), seen, out);
            }
        }
    }
    for (const auto& dir : split_path(path_env)) {
        add_unique(root, dir + "/" + name, seen, out);
    }
    return out;
}

std::string read_small(const std::string& path, std::size_t limit) {
    std::ifstream in(path);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return s.size() > limit ? s.substr(0, limit) + "\n[... trimmed]" : s;
}

}  // namespace

std::string resolve_program(const std::string& root, const std::string& path) {
    std::string current = path;
    for (int hop = 0; hop < 4; ++hop) {
        std::error_code ec;
        const auto real = fs::canonical(under_root(root, current), ec);
        if (ec) {
            return current;
        }
        std::string p = real.string();
        if (root != "/" && p.rfind(root, 0) == 0) {
            p = p.substr(root.size());
        }
        // A small shell script that only execs another program (/usr/local/bin/nvcc -> cuda-13.0's).
        std::smatch m;
        const auto text = fs::file_size(real, ec) < 4096 ? read_text("/", real.string()).value_or("") : "";
        if (text.rfind("#!", 0) == 0 && std::regex_search(text, m, std::regex(R"(\n\s*exec\s+"?(/[^\s"]+))")) &&
            m[1] != p) {
            current = m[1];
            continue;
        }
        return p;
    }
    return current;
}

std::vector<CudaToolkit> find_cuda_toolkits(const std::string& root, const std::string& path_env) {
    std::vector<CudaToolkit> out;
    for (const auto& nvcc : find_tool(root, "nvcc", path_env, {"/usr/local/cuda"})) {
        CudaToolkit tk;
        tk.nvcc = nvcc;
        const auto prefix = fs::path(resolve_program(root, nvcc)).parent_path().parent_path();
        // NVIDIA's layout has include/ beside bin/; Debian's /usr/bin/nvcc has them in /usr/include.
        for (const auto& inc :
             {prefix / "include", prefix / "targets/x86_64-linux/include", fs::path("/usr/include")}) {
            if (auto text = read_text(root, (inc / "crt/host_config.h").string())) {
                tk.include_dir = inc.string();
                tk.limits = parse_host_config(*text);
                if (auto api = read_text(root, (inc / "cuda_runtime_api.h").string())) {
                    tk.cudart_version = parse_cudart_version(*api);
                }
                break;
            }
        }
        out.push_back(std::move(tk));
    }
    return out;
}

std::vector<std::string> find_hipcc(const std::string& root, const std::string& path_env) {
    return find_tool(root, "hipcc", path_env, {"/opt/rocm"});
}

std::string distro_cxx(const std::string& path_env, const char* cxx_env) {
    if (cxx_env != nullptr && *cxx_env != '\0') {
        return cxx_env;
    }
    for (const char* name : {"c++", "g++"}) {
        for (const auto& dir : split_path(path_env)) {
            if (executable(dir + "/" + name)) {
                return dir + "/" + name;
            }
        }
    }
    return "";
}

CompileRun make_compile(std::string label, std::vector<std::string> argv, std::string binary) {
    CompileRun run;
    run.label = std::move(label);
    run.argv = std::move(argv);
    run.binary = std::move(binary);
    return run;
}

void run_compiles(std::vector<CompileRun>& runs, const std::string& dir, double timeout_s) {
    std::vector<std::future<ChildOutcome>> pending;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string log = dir + "/compile-" + std::to_string(i) + ".log";
        pending.push_back(std::async(std::launch::async, [argv = runs[i].argv, log, timeout_s, dir] {
            // The compilers' own temporaries (clang leaves empty folders) land in our folder, removed after.
            return run_child(argv, {{"TMPDIR", dir}}, log, timeout_s, &g_interrupted);
        }));
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto outcome = pending[i].get();
        auto& run = runs[i];
        run.wall_s = outcome.wall_s;
        run.output = read_small(dir + "/compile-" + std::to_string(i) + ".log", 4096);
        if (!outcome.started) {
            run.output = run.argv[0] + ": " + outcome.exec_error + " (not found)";
        } else if (outcome.timed_out) {
            run.output += "\n[killed after " + std::to_string(static_cast<int>(timeout_s)) + " s]";
        }
        run.stopped = outcome.stopped;
        run.ok = outcome.started && !outcome.timed_out && !outcome.stopped && outcome.exit_code == 0;
    }
}

void throw_if_stopped(const std::vector<CompileRun>& runs) {
    if (std::any_of(runs.begin(), runs.end(), [](const CompileRun& r) { return r.stopped; })) {
        throw SkipCheck("the run was stopped while the probe compiled: not judged");
    }
}

void write_probe_sources(const std::string& dir) {
    for (const char* name : {"/probe.cu", "/probe.hip"}) {
        std::ofstream(dir + name) << k_probe_source;
    }
}

TempDir::TempDir() {
    std::string error;
    m_path = make_temp_dir("gpuconform-toolchain", &error);
    if (m_path.empty()) {
        throw std::runtime_error("cannot make a temporary folder (" + error + ")");
    }
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
}

}  // namespace gpuconform
