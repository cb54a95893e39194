#include <gtest/gtest.h>

#include "host/parsers.hpp"
#include "host_test_data.hpp"

namespace gpuconform {
namespace {

using test::read_sample;

struct OsReleaseCase {
    const char* file;
    const char* id;
    const char* version_id;
    const char* pretty_name;
};

TEST(OsRelease, ReadsIdVersionAndPrettyNameOfEachDistro) {
    const OsReleaseCase cases[] = {
        {"os-release/debian-12", "debian", "12", "Debian GNU/Linux 12 (bookworm)"},
        {"os-release/debian-13", "debian", "13", "Debian GNU/Linux 13 (trixie)"},
        {"os-release/ubuntu-24.04", "ubuntu", "24.04", "Ubuntu 24.04.3 LTS"},
        {"os-release/rhel-9", "rhel", "9.4", "Red Hat Enterprise Linux 9.4 (Plow)"},
    };
    for (const auto& c : cases) {
        const auto d = parse_os_release(read_sample(c.file));
        EXPECT_EQ(d.id, c.id) << c.file;
        EXPECT_EQ(d.version_id, c.version_id) << c.file;
        EXPECT_EQ(d.pretty_name, c.pretty_name) << c.file;
    }
}

TEST(OsRelease, UnquotesSingleQuotesAndEscapesAndIgnoresComments) {
    const auto d = parse_os_release("# ID=wrong\nID='arch'\nPRETTY_NAME=\"Say \\\"hi\\\"\"\n");
    EXPECT_EQ(d.id, "arch");
    EXPECT_EQ(d.pretty_name, "Say \"hi\"");
    EXPECT_EQ(d.version_id, "");  // rolling releases have none
}

TEST(CpuInfo, CountsProcessorsAndTakesTheX86ModelName) {
    const auto info = parse_cpuinfo(read_sample("proc/cpuinfo-x86"));
    EXPECT_EQ(info.logical_cpus, 4);
    EXPECT_EQ(info.model, "Intel(R) Xeon(R) Platinum 8480+");
}

TEST(CpuInfo, FallsBackToModelLineOnArm) {
    const auto info = parse_cpuinfo(read_sample("proc/cpuinfo-arm64"));
    EXPECT_EQ(info.logical_cpus, 2);
    EXPECT_EQ(info.model, "NVIDIA Grace CPU");
}

TEST(MemInfo, ConvertsMemTotalFromKibToBytes) {
    EXPECT_EQ(parse_meminfo_total(read_sample("proc/meminfo")), 2113437696ull * 1024);
    EXPECT_EQ(parse_meminfo_total("MemFree: 12 kB\n"), std::nullopt);
}

TEST(LinkSpeed, ParsesOldAndNewKernelForms) {
    const std::pair<const char*, std::optional<double>> cases[] = {
        {"32.0 GT/s PCIe\n", 32.0}, {"16.0 GT/s PCIe", 16.0}, {"8 GT/s\n", 8.0},         {"2.5 GT/s", 2.5},
        {"5.0 GT/s PCIe", 5.0},     {"64.0 GT/s PCIe", 64.0}, {"Unknown", std::nullopt}, {"", std::nullopt},
    };
    for (const auto& [text, want] : cases) {
        EXPECT_EQ(parse_link_speed(text), want) << text;
    }
}

TEST(LinkWidth, ParsesLanesAndRejectsLinkDown) {
    EXPECT_EQ(parse_link_width("16\n"), 16);
    EXPECT_EQ(parse_link_width("8"), 8);
    EXPECT_EQ(parse_link_width("0"), std::nullopt);  // link down / device in D3cold
    EXPECT_EQ(parse_link_width("x"), std::nullopt);
}

TEST(PciAttributes, ParsesHexIdsAndNumaNode) {
    EXPECT_EQ(parse_hex("0x10de\n"), 0x10deu);
    EXPECT_EQ(parse_hex("0x030200"), 0x030200u);
    EXPECT_EQ(parse_hex("0xzz"), std::nullopt);
    EXPECT_EQ(parse_numa_node("1\n"), 1);
    EXPECT_EQ(parse_numa_node("-1"), std::nullopt);
}

TEST(PciAttributes, RecognisesGpuVendorsAndDisplayClasses) {
    EXPECT_EQ(gpu_vendor_name(0x10de), "nvidia");
    EXPECT_EQ(gpu_vendor_name(0x1002), "amd");
    EXPECT_EQ(gpu_vendor_name(0x1a03), "");    // ASPEED BMC VGA
    EXPECT_TRUE(is_display_class(0x030000));   // VGA
    EXPECT_TRUE(is_display_class(0x030200));   // 3D controller (datacenter NVIDIA)
    EXPECT_TRUE(is_display_class(0x038000));   // display controller (AMD Instinct)
    EXPECT_FALSE(is_display_class(0x120000));  // processing accelerator
    EXPECT_FALSE(is_display_class(0x020700));  // InfiniBand
}

TEST(NvidiaVersion, ReadsOpenAndProprietaryModuleLines) {
    EXPECT_EQ(parse_nvidia_proc_version(read_sample("proc/nvidia-version-580-open")), "580.95.05");
    EXPECT_EQ(parse_nvidia_proc_version(read_sample("proc/nvidia-version-535-proprietary")), "535.183.01");
    EXPECT_EQ(parse_nvidia_proc_version("garbage\n"), "");
}

TEST(Capabilities, FindsCapIpcLockInCapEff) {
    const auto has_ipc_lock = [](const std::string& file) {
        const auto caps = parse_cap_eff(read_sample(file));
        return caps && ((*caps >> k_cap_ipc_lock_bit) & 1u) != 0;
    };
    EXPECT_FALSE(has_ipc_lock("proc/status-user"));
    EXPECT_TRUE(has_ipc_lock("proc/status-root"));
    EXPECT_FALSE(has_ipc_lock("proc/status-docker-default"));  // docker drops IPC_LOCK even for root
}

TEST(Cgroup, ReturnsV2PathOrV1MemoryLine) {
    EXPECT_EQ(parse_cgroup(read_sample("cgroup/v2-session")), "/user.slice/user-1000.slice/session-3.scope");
    EXPECT_EQ(parse_cgroup(read_sample("cgroup/v2-namespaced")), "/");
    EXPECT_EQ(parse_cgroup(read_sample("cgroup/v1-docker")), "10:memory:/docker/3f6c1a2b9d");
    EXPECT_EQ(parse_cgroup(""), "");
}

TEST(Container, DetectsRuntimeFromMarkersAndCgroup) {
    struct Case {
        ContainerHints hints;
        const char* want;
    };
    const Case cases[] = {
        {{false, false, false, read_sample("cgroup/v2-session")}, ""},
        {{false, false, false, read_sample("cgroup/v2-namespaced")}, ""},
        {{true, false, false, read_sample("cgroup/v2-namespaced")}, "docker"},
        {{false, false, false, read_sample("cgroup/v1-docker")}, "docker"},
        {{false, true, false, "0::/"}, "podman"},
        {{false, false, true, "0::/"}, "kubernetes"},
        {{false, false, false, read_sample("cgroup/v2-kubepods")}, "kubernetes"},
        {{false, false, false, "0::/lxc.payload.c1"}, "lxc"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(detect_container(c.hints), c.want) << c.hints.cgroup_text;
    }
}

TEST(SysctlChoice, TakesTheBracketedValue) {
    EXPECT_EQ(parse_bracketed_choice("always [madvise] never\n"), "madvise");
    EXPECT_EQ(parse_bracketed_choice("[always] madvise never"), "always");
    EXPECT_EQ(parse_bracketed_choice("0\n"), "0");
}

}  // namespace
}  // namespace gpuconform
