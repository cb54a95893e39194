// The variable table: DCGM's list and the rest of the variables that change GPU behaviour, each with a source, each in
// the repo's documentation; collection keeps non-UTF-8 values valid and their raw bytes escaped.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/utf8.hpp"
#include "host/collect.hpp"
#include "host/gpu_env.hpp"
#include "host/gpu_env_vars.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

TEST(GpuEnvVars, HoldsDcgmsListAndTheOthers) {
    for (const char* name : {"NSIGHT_CUDA_DEBUGGER",
                             "CUDA_INJECTION32_PATH",
                             "CUDA_INJECTION64_PATH",
                             "CUDA_AUTO_BOOST",
                             "CUDA_ENABLE_COREDUMP_ON_EXCEPTION",
                             "CUDA_COREDUMP_FILE",
                             "CUDA_DEVICE_WAITS_ON_EXCEPTION",
                             "CUDA_PROFILE",
                             "COMPUTE_PROFILE",
                             "OPENCL_PROFILE",
                             "LD_PRELOAD",
                             "LD_LIBRARY_PATH",
                             "CUDA_LAUNCH_BLOCKING",
                             "CUDA_MODULE_LOADING",
                             "CUDA_CACHE_DISABLE",
                             "CUDA_FORCE_PTX_JIT",
                             "CUDA_DISABLE_PTX_JIT",
                             "PYTORCH_CUDA_ALLOC_CONF",
                             "PYTORCH_NO_CUDA_MEMORY_CACHING",
                             "NCCL_P2P_DISABLE",
                             "HSA_ENABLE_SDMA",
                             "HSA_CU_MASK",
                             "AMD_LOG_LEVEL",
                             "HIP_LAUNCH_BLOCKING",
                             "AMD_SERIALIZE_KERNEL",
                             "AMD_SERIALIZE_COPY",
                             "HIP_VISIBLE_DEVICES",
                             "ROCR_VISIBLE_DEVICES"}) {
        const GpuEnvVar* v = find_gpu_env_var(name);
        ASSERT_NE(v, nullptr) << name;
        EXPECT_TRUE(v->source.starts_with("https://")) << name;
        // Only a variable no runtime reads (recorded for the fingerprint) explains no result.
        EXPECT_TRUE(!v->checks.empty() || (!v->warn && v->effect.find("does not read it") != std::string_view::npos))
            << name;
    }
    EXPECT_EQ(find_gpu_env_var("HSA_ENABLE_SDMA")->name, "HSA_ENABLE_SDMA") << "an exact entry wins over its family";
    EXPECT_EQ(find_gpu_env_var("PATH"), nullptr);
}

TEST(GpuEnvVars, EveryEntryIsDocumentedWithItsSource) {
    std::ifstream in(std::string(test_paths::source_dir) + "/docs/environment-variables.md");
    ASSERT_TRUE(in) << "docs/environment-variables.md is missing";
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& v : gpu_env_vars()) {
        EXPECT_NE(text.str().find("`" + std::string(v.name) + "`"), std::string::npos)
            << v.name << " is not in the doc";
        EXPECT_NE(text.str().find(std::string(v.source)), std::string::npos) << v.source << " is not cited";
    }
}

TEST(GpuEnvVars, DcgmsVariablesWarnWhenSet) {
    for (const char* name :
         {"CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "NSIGHT_CUDA_DEBUGGER", "CUDA_INJECTION64_PATH", "LD_PRELOAD"}) {
        const auto v = judge_gpu_env({{{name, "1"}}, 1, 0});
        EXPECT_EQ(v.status, Status::Warn) << name;
        EXPECT_NE(v.summary.find(name), std::string::npos) << v.summary;
    }
    EXPECT_EQ(judge_gpu_env({{{"CUDA_MODULE_LOADING", "LAZY"}}, 1, 0}).status, Status::Info);
}

TEST(GpuEnvVars, CollectsNonUtf8ValuesAsValidUtf8AndKeepsTheBytes) {
    std::string bad = "CUDA_VISIBLE_DEVICES=\xff";
    std::string ok = "CUDA_PROFILE=1";
    std::string other = "HOME=/root";
    std::vector<char*> environ_list{bad.data(), ok.data(), other.data(), nullptr};
    Environment env;
    collect_gpu_env(environ_list.data(), env);
    ASSERT_EQ(env.gpu_env.count("CUDA_VISIBLE_DEVICES"), 1u);
    EXPECT_TRUE(is_valid_utf8(env.gpu_env.at("CUDA_VISIBLE_DEVICES")));
    EXPECT_EQ(env.gpu_env.at("CUDA_VISIBLE_DEVICES"), "\xEF\xBF\xBD");
    EXPECT_EQ(env.gpu_env_raw.at("CUDA_VISIBLE_DEVICES"), "\\xff");
    EXPECT_EQ(env.gpu_env.at("CUDA_PROFILE"), "1");
    EXPECT_EQ(env.gpu_env.count("HOME"), 0u);
}

TEST(GpuEnvVars, LdLibraryPathCountsOnlyWhenItShadowsADriverLibrary) {
    namespace fs = std::filesystem;
    const auto root = fs::temp_directory_path() / ("gpuconform-ldpath-" + std::to_string(::getpid()));
    fs::create_directories(root / "opt/shim");
    fs::create_directories(root / "usr/local/nvidia/lib64");
    fs::create_directories(root / "usr/lib/x86_64-linux-gnu");
    // The container toolkit's folder holding the only driver library: the driver, not a shadow.
    std::ofstream(root / "usr/local/nvidia/lib64/libcuda.so.580.159.04") << "driver";
    fs::create_symlink("libcuda.so.580.159.04", root / "usr/local/nvidia/lib64/libcuda.so.1");
    EXPECT_TRUE(shadowing_library_dirs("/usr/local/nvidia/lib64", root.string()).empty());
    // The system's driver library, the same version in the toolkit's folder: still not a shadow.
    std::ofstream(root / "usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04") << "driver";
    fs::create_symlink("libcuda.so.580.159.04", root / "usr/lib/x86_64-linux-gnu/libcuda.so.1");
    EXPECT_TRUE(shadowing_library_dirs("/usr/local/nvidia/lib64:/usr/lib", root.string()).empty());
    // Another version ahead of the system's: the loader picks it, so it is named.
    std::ofstream(root / "opt/shim/libcuda.so.575.57.08") << "older driver";
    fs::create_symlink("libcuda.so.575.57.08", root / "opt/shim/libcuda.so.1");
    const auto found = shadowing_library_dirs("/usr/lib:/opt/shim:", root.string());
    EXPECT_EQ(found, std::vector<std::string>{"/opt/shim/libcuda.so.1"});
    // A system folder on the path changes nothing.
    EXPECT_TRUE(shadowing_library_dirs("/usr/lib/x86_64-linux-gnu", root.string()).empty());
    fs::remove_all(root);
}

TEST(GpuEnvVars, NcclVersionExplainsNoResult) {
    const GpuEnvVar* v = find_gpu_env_var("NCCL_VERSION");
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->checks.empty());
    EXPECT_FALSE(find_gpu_env_var("NCCL_P2P_DISABLE")->checks.empty());
}

}  // namespace
}  // namespace gpuconform
