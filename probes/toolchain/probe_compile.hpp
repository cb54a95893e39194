// Finding the node's GPU compilers and compiling (and, with a GPU, running) a tiny probe with them.
#pragma once

#include <string>
#include <vector>

#include "toolchain/toolchain_facts.hpp"

namespace gpuconform {

// One CUDA toolkit: its nvcc as found and the headers that tell what it accepts.
struct CudaToolkit {
    std::string nvcc;                   // "/usr/local/cuda-12.4/bin/nvcc", "/usr/bin/nvcc"
    std::string include_dir;            // where crt/host_config.h was found, "" when not
    std::optional<int> cudart_version;  // 12040
    HostCompilerLimits limits;
};

// Every nvcc under `root`: /usr/bin, /usr/local/cuda*/bin, then PATH; one per real file.
// Nothing is run: only the file system is read.
std::vector<CudaToolkit> find_cuda_toolkits(const std::string& root, const std::string& path_env);

// The program `path` really is: symlinks followed, one-line `exec` wrapper scripts looked through.
std::string resolve_program(const std::string& root, const std::string& path);

// hipcc on PATH, /usr/bin, /opt/rocm*/bin; one per real file.
std::vector<std::string> find_hipcc(const std::string& root, const std::string& path_env);

// The C++ compiler CMake would pick: $CXX, else c++ then g++ on PATH; "" when none.
std::string distro_cxx(const std::string& path_env, const char* cxx_env);

struct CompileRun {
    std::string label;  // "default host compiler", "-ccbin /usr/bin/c++"
    std::vector<std::string> argv;
    bool ok = false;
    double wall_s = 0;
    std::string output;  // the compiler's output, trimmed to a few KiB
    CompileDiagnosis diagnosis;
    std::string binary;    // the probe executable when ok
    bool stopped = false;  // the run was stopped (g_interrupted) while it compiled: not judged
};
CompileRun make_compile(std::string label, std::vector<std::string> argv, std::string binary);

// Runs every compile in `runs` at once (each with `timeout_s`) in `dir`; fills ok/output/wall_s.
// A stop (g_interrupted) ends every compiler's process group within a second, marking it stopped.
void run_compiles(std::vector<CompileRun>& runs, const std::string& dir, double timeout_s);

// Throws SkipCheck when a compile of `runs` was stopped: a compile cut short is no verdict.
void throw_if_stopped(const std::vector<CompileRun>& runs);

// Writes the probe sources into `dir`: probe.cu (CUDA) and probe.hip (HIP).
void write_probe_sources(const std::string& dir);

// A fresh private folder under $TMPDIR or /tmp; removed by the destructor.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

}  // namespace gpuconform
