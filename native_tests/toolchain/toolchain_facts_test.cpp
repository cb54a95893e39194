// The toolchain readers and verdicts, on text captured from real installs (native_tests/data/toolchain/).
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "toolchain/amd_code_objects.hpp"
#include "toolchain/cuda_runtimes.hpp"
#include "toolchain/next_boot.hpp"
#include "toolchain/toolchain_facts.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

std::string data(const std::string& name) {
    std::ifstream in(std::string(test_paths::data_dir) + "/toolchain/" + name);
    EXPECT_TRUE(in.good()) << name;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(ToolchainFacts, HostConfigLimitsAreReadFromTheToolkitsHeader) {
    const auto limits = parse_host_config(data("host_config-cuda13.0-excerpt.h"));
    ASSERT_TRUE(limits.gcc_max);
    EXPECT_EQ(*limits.gcc_max, 15);
    ASSERT_TRUE(limits.clang_max);
    EXPECT_EQ(*limits.clang_max, 20);
    EXPECT_FALSE(parse_host_config("/* no limits */").gcc_max);
}

TEST(ToolchainFacts, CudartVersionAndCompilerMajor) {
    EXPECT_EQ(parse_cudart_version("#define CUDART_VERSION  13000\n"), 13000);
    EXPECT_FALSE(parse_cudart_version("#define CUDA_VERSION 13000\n"));
    EXPECT_EQ(parse_major("14.2.0\n"), 14);
    EXPECT_EQ(parse_major("12\n"), 12);
    EXPECT_FALSE(parse_major(""));
}

struct DiagnosisCase {
    const char* file;
    CompileCause cause;
};

class CompileDiagnosisTest : public ::testing::TestWithParam<DiagnosisCase> {};

TEST_P(CompileDiagnosisTest, NamesTheCause) {
    HostCompilerLimits limits;
    limits.gcc_max = 13;
    const auto d = diagnose_compile(data(GetParam().file), limits, "/usr/bin/c++");
    EXPECT_EQ(d.cause, GetParam().cause) << d.summary;
    EXPECT_FALSE(d.fix.empty());
}

INSTANTIATE_TEST_SUITE_P(CapturedOutputs, CompileDiagnosisTest,
                         ::testing::Values(DiagnosisCase{"nvcc13-ccbin-missing.txt", CompileCause::MissingHostCompiler},
                                           DiagnosisCase{"nvcc11.8-debian12-ccbin-gxx12.txt",
                                                         CompileCause::UnsupportedHostCompiler}));

TEST(ToolchainFacts, DebianTwelvesToolkitAcceptsGccUpToEleven) {
    EXPECT_EQ(parse_host_config(data("host_config-cuda11.8-debian12-excerpt.h")).gcc_max, 11);
}

TEST(CudaRuntimes, DriverCapabilityFollowsNvidiasTable) {
    EXPECT_EQ(cuda_capability_of_driver("580.95.05"), 13000);
    EXPECT_EQ(cuda_capability_of_driver("550.163.01"), 12040);  // Debian 13's driver
    EXPECT_EQ(cuda_capability_of_driver("535.247.01"), 12020);  // Debian 12's driver
    EXPECT_EQ(cuda_capability_of_driver("470.256.02"), 0);
    EXPECT_EQ(cuda_capability_of_driver(""), 0);
}

TEST(CudaRuntimes, LdconfigLinesAndLibraryNames) {
    const auto libs = parse_ldconfig_cudart(data("ldconfig-cudart-h200-dev.txt"));
    ASSERT_EQ(libs.size(), 1u);  // the unversioned libcudart.so is the development link, not a runtime
    EXPECT_EQ(libs[0], "/usr/local/cuda-13.0/lib/libcudart.so.13");
    EXPECT_EQ(cudart_version_from_name("libcudart.so.12.4.127"), 12040);
    EXPECT_EQ(cudart_version_from_name("libcudart.so.13"), 13000);
    EXPECT_FALSE(cudart_version_from_name("libcuda.so.1"));
}

TEST(CudaRuntimes, TorchVersionFileWithoutImportingTorch) {
    EXPECT_FALSE(parse_torch_cuda(data("torch-version-debian12-cpu.py")));  // cuda = None
    EXPECT_EQ(parse_torch_cuda("__version__ = '2.11.0'\ncuda: Optional[str] = '13.0'\n"), 13000);
    EXPECT_EQ(parse_torch_cuda("cuda = '12.4'\n"), 12040);
}

TEST(CudaRuntimes, FailsNamingTheRuntimeThatNeedsANewerDriver) {
    const std::vector<CudaRuntimeSeen> rts{{"toolkit of /usr/bin/nvcc", 12040}, {"torch", 13000}};
    const auto v = judge_cuda_runtimes(rts, "550.163.01", 1);
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_NE(v.summary.find("torch"), std::string::npos);
    EXPECT_EQ(v.summary.find("toolkit of /usr/bin/nvcc:"), std::string::npos);
    EXPECT_EQ(judge_cuda_runtimes(rts, "580.95.05", 1).status, Status::Pass);
    EXPECT_EQ(judge_cuda_runtimes(rts, "", 0).status, Status::Info);
    EXPECT_EQ(judge_cuda_runtimes(rts, "", 8).status, Status::Fail);
    EXPECT_EQ(judge_cuda_runtimes({}, "580.95.05", 1).status, Status::Skip);
}

TEST(NextBoot, KernelReleasesSortByTheirNumbers) {
    EXPECT_LT(compare_kernel_release("6.1.0-28-amd64", "6.12.48+deb13-amd64"), 0);
    EXPECT_LT(compare_kernel_release("6.1.0-9-amd64", "6.1.0-28-amd64"), 0);
    EXPECT_EQ(compare_kernel_release("6.1.0-28-amd64", "6.1.0-28-amd64"), 0);
}

TEST(NextBoot, GrubsFirstEntryIsTheDefault) {
    const auto cfg = data("grub-debian13-excerpt.cfg");
    EXPECT_EQ(grub_first_kernel(cfg), "6.12.48+deb13-amd64");
    const std::vector<InstalledKernel> ks{{"6.1.0-28-amd64", true, true, false},
                                          {"6.12.48+deb13-amd64", true, false, false}};
    EXPECT_EQ(next_boot_kernel(ks, cfg, "0").release, "6.12.48+deb13-amd64");
    EXPECT_EQ(next_boot_kernel(ks, "", "").release, "6.12.48+deb13-amd64");  // newest image
    EXPECT_EQ(next_boot_kernel({}, "", "").release, "");
}

struct BootCase {
    const char* name;
    std::vector<InstalledKernel> kernels;
    int nvidia;
    Status expected;
};

class NextBootVerdict : public ::testing::TestWithParam<BootCase> {};

TEST_P(NextBootVerdict, JudgesTheKernelThatBootsNext) {
    const auto& c = GetParam();
    const auto next = next_boot_kernel(c.kernels, "", "");
    EXPECT_EQ(judge_next_boot(c.kernels, next, c.nvidia, 0, "6.1.0-28-amd64").status, c.expected) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, NextBootVerdict,
    ::testing::Values(BootCase{"new kernel without the module",
                               {{"6.1.0-28-amd64", true, true, false}, {"6.12.48+deb13-amd64", true, false, false}},
                               8,
                               Status::Fail},
                      BootCase{"every kernel has it",
                               {{"6.1.0-28-amd64", true, true, false}, {"6.12.48+deb13-amd64", true, true, false}},
                               8,
                               Status::Pass},
                      BootCase{"an old kernel lacks it",
                               {{"6.1.0-9-amd64", true, false, false}, {"6.1.0-28-amd64", true, true, false}},
                               8,
                               Status::Warn},
                      BootCase{"no GPU on the bus", {{"6.12.48+deb13-amd64", true, false, false}}, 0, Status::Info},
                      BootCase{"no kernel image (container)", {}, 8, Status::Skip}));

}  // namespace
}  // namespace gpuconform

namespace gpuconform {
namespace {

TEST(AmdCodeObjects, KfdTargetVersionsNameTheGfxTarget) {
    EXPECT_EQ(gfx_name_from_target_version(90402), "gfx942");
    EXPECT_EQ(gfx_name_from_target_version(90010), "gfx90a");
    EXPECT_EQ(gfx_name_from_target_version(110000), "gfx1100");
    EXPECT_EQ(gfx_name_from_target_version(100300), "gfx1030");
    EXPECT_EQ(gfx_name_from_target_version(0), "");
    const auto gpus = scan_kfd_targets(std::string(test_paths::data_dir) + "/host/roots/mi300-kfd");
    ASSERT_EQ(gpus.size(), 1u);  // node 0 is the CPU
    EXPECT_EQ(gpus[0], "gfx942");
}

TEST(AmdCodeObjects, AnMi300OnARocblasWithoutGfx942Fails) {
    const auto names = [] {
        std::vector<std::string> out;
        std::istringstream in(data("rocblas-library-files.txt"));
        for (std::string l; std::getline(in, l);) {
            out.push_back(l);
        }
        return out;
    }();
    const auto targets = targets_in_file_names(names);
    EXPECT_EQ(targets.count("gfx942"), 0u);
    EXPECT_EQ(targets.count("gfx90a"), 1u);
    const std::vector<RocmLibrary> libs{{"/usr/lib/x86_64-linux-gnu/rocblas/library", targets}};
    EXPECT_EQ(judge_amd_code_objects({"gfx942"}, libs).status, Status::Fail);
    EXPECT_EQ(judge_amd_code_objects({"gfx90a"}, libs).status, Status::Pass);
    EXPECT_EQ(judge_amd_code_objects({}, libs).status, Status::Skip);
    EXPECT_EQ(judge_amd_code_objects({"gfx942"}, {}).status, Status::Skip);
}

}  // namespace
}  // namespace gpuconform
