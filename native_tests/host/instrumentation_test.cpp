// Tools that instrument the process are found by what they map and set (host/instrumentation.hpp),
// on what compute-sanitizer really put into a process on an H200 (the committed sample).
#include <gtest/gtest.h>

#include <fstream>

#include "host/instrumentation.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) {
            out.push_back(line);
        }
    }
    return out;
}

const std::string k_sample =
    std::string(test_paths::source_dir) + "/reports/samples/ubuntu24.04-h200-2026-12-02-trust/";

TEST(Instrumentation, TheSanitizerIsNamedByWhatItMapsIntoEveryProcess) {
    ProcessView view;
    view.mapped = lines_of(k_sample + "sanitizer-mapped-libraries.txt");
    ASSERT_FALSE(view.mapped.empty());
    const auto seen = detect_instrumentation(view);
    ASSERT_EQ(seen.size(), 1u);  // the shared launcher's libraries are the sanitizer's here
    EXPECT_EQ(seen[0].tool, "compute-sanitizer");
    EXPECT_NE(seen[0].evidence.find("compute-sanitizer/"), std::string::npos) << seen[0].evidence;
}

TEST(Instrumentation, TheLaunchersVariablesAloneAreEnough) {
    ProcessView sanitizer;
    sanitizer.environment = {{"NV_SANITIZER_INJECTION_PORT_BASE", "49152"}};
    EXPECT_EQ(detect_instrumentation(sanitizer).at(0).tool, "compute-sanitizer");
    ProcessView path;
    path.environment = {{"LD_LIBRARY_PATH", "/usr/local/cuda-13.0/compute-sanitizer:/usr/local/nvidia/lib64"}};
    EXPECT_EQ(detect_instrumentation(path).at(0).tool, "compute-sanitizer");
    ProcessView launcher;
    launcher.environment = {{"NVIDIA_PROCESS_INJECTION_CRASH_REPORTING", "0"}};
    const auto seen = detect_instrumentation(launcher);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_NE(seen[0].tool.find("NVIDIA developer tool"), std::string::npos);
}

TEST(Instrumentation, ProfilersAndDebuggers) {
    ProcessView nsys;
    nsys.mapped = {"/opt/nvidia/nsight-systems/2025.5.1/target-linux-x64/libToolsInjection64.so"};
    EXPECT_EQ(detect_instrumentation(nsys).at(0).tool, "Nsight Systems (nsys)");
    ProcessView ncu;
    ncu.mapped = {"/opt/nvidia/nsight-compute/2025.3.1/target/linux-desktop-glibc_2_11_3-x64/libcuda-injection.so"};
    EXPECT_EQ(detect_instrumentation(ncu).at(0).tool, "Nsight Compute (ncu)");
    ProcessView rocprof;
    rocprof.mapped = {"/opt/rocm-6.2.0/lib/librocprofiler-sdk-tool.so"};
    EXPECT_EQ(detect_instrumentation(rocprof).at(0).tool, "rocprof");
    ProcessView gdb;
    gdb.tracer = "cuda-gdb";
    EXPECT_EQ(detect_instrumentation(gdb).at(0).tool, "cuda-gdb");
}

TEST(Instrumentation, APlainProcessHasNone) {
    ProcessView plain;
    plain.mapped = {"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/local/nvidia/lib64/libcuda.so.580.159.04"};
    plain.environment = {{"LD_LIBRARY_PATH", "/usr/local/nvidia/lib64:/usr/local/nvidia/lib"},
                         {"NCCL_VERSION", "2.28"}};
    EXPECT_TRUE(detect_instrumentation(plain).empty());
    EXPECT_TRUE(collect_instrumentation().empty()) << "this test itself runs under a tool?";
}

}  // namespace
}  // namespace gpuconform
