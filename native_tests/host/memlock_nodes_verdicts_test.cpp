// The memlock and device-node verdicts as tables of cases: inputs in, status out.
#include <gtest/gtest.h>

#include "host/device_nodes.hpp"
#include "host/memlock.hpp"

namespace gpuconform {
namespace {

constexpr std::uint64_t k_mib = 1ull << 20;
constexpr double k_min = 64.0 * k_mib;
constexpr double k_amd_min = 1024.0 * k_mib;

TEST(MemlockVerdict, WarnsOnlyWhereTheLimitBindsSomeone) {
    struct Case {
        const char* what;
        MemlockInput in;
        Status want;
    };
    const std::optional<std::uint64_t> unlimited;
    const Case cases[] = {
        {"distro default, NVIDIA", {8 * k_mib, 8 * k_mib, false, false, true, k_min, k_amd_min}, Status::Warn},
        {"distro default, AMD", {8 * k_mib, 8 * k_mib, false, true, false, k_min, k_amd_min}, Status::Warn},
        {"raised, NVIDIA", {256 * k_mib, 256 * k_mib, false, false, true, k_min, k_amd_min}, Status::Info},
        {"raised but below AMD's", {256 * k_mib, 256 * k_mib, false, true, false, k_min, k_amd_min}, Status::Warn},
        {"unlimited, AMD", {unlimited, unlimited, false, true, false, k_min, k_amd_min}, Status::Info},
        {"CAP_IPC_LOCK exempt", {64 * 1024, 64 * 1024, true, true, true, k_min, k_amd_min}, Status::Info},
        {"no thresholds in profile",
         {8 * k_mib, 8 * k_mib, false, true, true, std::nullopt, std::nullopt},
         Status::Info},
        {"no GPU, small", {8 * k_mib, unlimited, false, false, false, k_min, k_amd_min}, Status::Warn},
    };
    for (const auto& c : cases) {
        const auto v = judge_memlock(c.in);
        EXPECT_EQ(v.status, c.want) << c.what << ": " << v.summary;
        EXPECT_FALSE(v.summary.empty()) << c.what;
        EXPECT_EQ(v.remediation.empty(), c.want != Status::Warn) << c.what;
    }
}

TEST(MemlockVerdict, SaysNvidiaPinnedMemoryIsNotBoundWhenAnNvidiaGpuIsPresent) {
    const auto v = judge_memlock({8 * k_mib, 8 * k_mib, false, false, true, k_min, k_amd_min});
    EXPECT_NE(v.summary.find("not bound"), std::string::npos) << v.summary;
}

NodeProbe node(const char* path, const char* vendor, bool exists, bool openable, const char* group = "video",
               bool lazy = false) {
    NodeProbe n;
    n.path = path;
    n.vendor = vendor;
    n.lazy = lazy;
    n.exists = exists;
    n.openable = openable;
    n.error = openable ? "" : exists ? "Permission denied" : "No such file or directory";
    n.mode = "crw-rw----";
    n.owner = "root";
    n.group = group;
    return n;
}

TEST(DeviceNodesVerdict, FailsWhenANeededNodeIsMissingOrClosed) {
    struct Case {
        const char* what;
        int nvidia;
        int amd;
        std::vector<NodeProbe> nodes;
        Status want;
    };
    const Case cases[] = {
        {"no GPU", 0, 0, {}, Status::Skip},
        {"nvidia all open",
         1,
         0,
         {node("/dev/nvidiactl", "nvidia", true, true), node("/dev/nvidia0", "nvidia", true, true),
          node("/dev/nvidia-uvm", "nvidia", true, true, "root", true)},
         Status::Pass},
        {"nvidia uvm not created yet",
         1,
         0,
         {node("/dev/nvidiactl", "nvidia", true, true), node("/dev/nvidia0", "nvidia", true, true),
          node("/dev/nvidia-uvm", "nvidia", false, false, "root", true)},
         Status::Warn},
        {"nvidia uvm present but closed",
         1,
         0,
         {node("/dev/nvidiactl", "nvidia", true, true), node("/dev/nvidia0", "nvidia", true, true),
          node("/dev/nvidia-uvm", "nvidia", true, false, "root", true)},
         Status::Fail},
        {"nvidia no nodes at all",
         1,
         0,
         {node("/dev/nvidiactl", "nvidia", false, false), node("/dev/nvidia0", "nvidia", false, false),
          node("/dev/nvidia-uvm", "nvidia", false, false, "root", true)},
         Status::Fail},
        {"amd kfd not in group",
         0,
         1,
         {node("/dev/kfd", "amd", true, false, "render"), node("/dev/dri/renderD128", "amd", true, true, "render")},
         Status::Fail},
        {"amd all open",
         0,
         1,
         {node("/dev/kfd", "amd", true, true, "render"), node("/dev/dri/renderD128", "amd", true, true, "render")},
         Status::Pass},
    };
    for (const auto& c : cases) {
        DeviceNodesInput in{c.nvidia, c.amd, c.nodes, {"alice"}, "alice"};
        const auto v = judge_device_nodes(in);
        EXPECT_EQ(v.status, c.want) << c.what << ": " << v.summary;
    }
}

TEST(DeviceNodesVerdict, NamesTheGroupToJoin) {
    DeviceNodesInput in{0, 1, {node("/dev/kfd", "amd", true, false, "render")}, {"alice", "video"}, "alice"};
    const auto v = judge_device_nodes(in);
    ASSERT_EQ(v.status, Status::Fail);
    EXPECT_NE(v.summary.find("/dev/kfd"), std::string::npos) << v.summary;
    EXPECT_NE(v.remediation.find("usermod -aG render alice"), std::string::npos) << v.remediation;
}

}  // namespace
}  // namespace gpuconform
