#include "toolchain/toolchain_facts.hpp"

#include <regex>
#include <sstream>

#include <fmt/format.h>

namespace gpuconform {

HostCompilerLimits parse_host_config(const std::string& text) {
    HostCompilerLimits out;
    std::smatch m;
    // The first GNU limit is the x86/ARM one; host_config.h has no lower bound for GCC.
    if (std::regex_search(text, m, std::regex(R"(#if\s+__GNUC__\s*>\s*(\d+))"))) {
        out.gcc_max = std::stoi(m[1]);
    }
    if (std::regex_search(text, m, std::regex(R"(__clang_major__\s*>=\s*(\d+))"))) {
        out.clang_max = std::stoi(m[1]) - 1;
    } else if (std::regex_search(text, m, std::regex(R"(__clang_major__\s*>\s*(\d+))"))) {
        out.clang_max = std::stoi(m[1]);
    }
    return out;
}

std::optional<int> parse_cudart_version(const std::string& text) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex(R"(#define\s+CUDART_VERSION\s+(\d+))"))) {
        return std::stoi(m[1]);
    }
    return std::nullopt;
}

std::optional<int> parse_major(const std::string& text) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex(R"((\d+)(\.\d+)*)"))) {
        return std::stoi(m[1]);
    }
    return std::nullopt;
}

namespace {

// The first line of the output that mentions `needle`, trimmed, for the summary.
std::string line_with(const std::string& output, const std::string& needle) {
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find(needle) != std::string::npos) {
            const auto b = line.find_first_not_of(" \t");
            return b == std::string::npos ? line : line.substr(b, 200);
        }
    }
    return "";
}

std::string first_error(const std::string& output) {
    for (const char* needle : {"error", "Error", "fatal"}) {
        if (auto l = line_with(output, needle); !l.empty()) {
            return l;
        }
    }
    return output.substr(0, 200);
}

}  // namespace

CompileDiagnosis diagnose_compile(const std::string& output, const HostCompilerLimits& limits,
                                  const std::string& host_compiler) {
    const std::string gcc_ok = limits.gcc_max ? fmt::format("g++-{}", *limits.gcc_max) : "a supported g++";
    if (output.find("unsupported GNU version") != std::string::npos ||
        output.find("unsupported clang version") != std::string::npos) {
        return {CompileCause::UnsupportedHostCompiler,
                fmt::format("host compiler {} is newer than this toolkit accepts: {}", host_compiler,
                            line_with(output, "unsupported")),
                fmt::format("install {} and pass -ccbin {} (CMake: -DCMAKE_CUDA_HOST_COMPILER={}), or install a CUDA "
                            "toolkit that supports {}",
                            gcc_ok, gcc_ok, gcc_ok, host_compiler)};
    }
    if (output.find("exception specification is incompatible") != std::string::npos &&
        (output.find("cospi") != std::string::npos || output.find("sinpi") != std::string::npos ||
         output.find("rsqrt") != std::string::npos)) {
        return {CompileCause::GlibcMathClash,
                fmt::format("glibc's <math.h> (2.41+) declares sinpi/cospi noexcept and this toolkit's "
                            "crt/math_functions.h does not: {}",
                            line_with(output, "exception specification")),
                "use a CUDA toolkit whose crt/math_functions.h matches glibc 2.41 (CUDA 13.0's does), or keep the "
                "node on glibc < 2.41 (Debian 12) until the toolkit is upgraded"};
    }
    const bool missing = (output.find("No such file") != std::string::npos &&
                          (output.find("gcc") != std::string::npos || output.find("g++") != std::string::npos ||
                           output.find(host_compiler) != std::string::npos)) ||
                         output.find("preprocess host compiler properties") != std::string::npos ||
                         output.find("not found") != std::string::npos;
    if (missing) {
        return {CompileCause::MissingHostCompiler, fmt::format("the host compiler is missing: {}", first_error(output)),
                fmt::format("install {} (Debian: apt install {}), or point -ccbin at an installed one", gcc_ok,
                            limits.gcc_max ? gcc_ok : "g++")};
    }
    return {CompileCause::Other, fmt::format("compile failed: {}", first_error(output)),
            "read the compiler output in the check's facts; a libstdc++ newer than the toolkit supports fails like "
            "this even with -allow-unsupported-compiler"};
}

std::string to_string(CompileCause c) {
    switch (c) {
        case CompileCause::None:
            return "none";
        case CompileCause::UnsupportedHostCompiler:
            return "unsupported_host_compiler";
        case CompileCause::GlibcMathClash:
            return "glibc_math_clash";
        case CompileCause::MissingHostCompiler:
            return "missing_host_compiler";
        case CompileCause::Other:
            return "other";
    }
    return "other";
}

}  // namespace gpuconform
