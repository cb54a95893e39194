// Pure readers of what a toolchain install says about itself: which host compilers a CUDA toolkit
// accepts (crt/host_config.h), its CUDA version (cuda_runtime_api.h), and what a failed compile
// means. Unit-tested with real captured text (native_tests/toolchain/).
#pragma once

#include <optional>
#include <string>

namespace gpuconform {

// The host compilers nvcc accepts, as its crt/host_config.h enforces with #error.
struct HostCompilerLimits {
    std::optional<int> gcc_max;    // "#if __GNUC__ > 13" -> 13
    std::optional<int> clang_max;  // "__clang_major__ >= 18" -> 17
};
HostCompilerLimits parse_host_config(const std::string& host_config_h);

// "#define CUDART_VERSION 12040" -> 12040.
std::optional<int> parse_cudart_version(const std::string& cuda_runtime_api_h);

// The first number of `gcc -dumpfullversion` / `-dumpversion` output ("14.2.0" -> 14).
std::optional<int> parse_major(const std::string& version_text);

// Why a probe compile failed, from the compiler's own output, and what to do about it.
enum class CompileCause { None, UnsupportedHostCompiler, GlibcMathClash, MissingHostCompiler, Other };
struct CompileDiagnosis {
    CompileCause cause = CompileCause::None;
    std::string summary;  // the cause in words, with the compiler's key line
    std::string fix;
};
// `host_major` is the host compiler's major version when known; `limits` are the toolkit's.
CompileDiagnosis diagnose_compile(const std::string& output, const HostCompilerLimits& limits,
                                  const std::string& host_compiler);

std::string to_string(CompileCause c);

}  // namespace gpuconform
