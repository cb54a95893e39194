#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "core/environment.hpp"
#include "host/collect.hpp"
#include "host_test_data.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

using test::host_data;

const PciGpu* find_gpu(const Environment& env, const std::string& bdf) {
    for (const auto& g : env.pci_gpus) {
        if (g.bdf == bdf) {
            return &g;
        }
    }
    return nullptr;
}

TEST(CollectEnvironment, ReadsTheSystemFactsBelowRoot) {
    const auto env = collect_environment(host_data("roots/degraded-nvidia"));
    EXPECT_EQ(env.distro.id, "ubuntu");
    EXPECT_EQ(env.distro.version_id, "24.04");
    EXPECT_EQ(env.kernel, "6.8.0-85-generic");
    EXPECT_EQ(env.cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
    EXPECT_EQ(env.logical_cpus, 4);
    EXPECT_EQ(env.numa_nodes, 2);
    EXPECT_EQ(env.memory_bytes, 2113437696ull * 1024);
    EXPECT_EQ(env.cgroup, "/user.slice/user-1000.slice/session-3.scope");
    EXPECT_EQ(env.kernel_drivers.at("nvidia"), "580.95.05");
    EXPECT_EQ(env.kernel_drivers.count("amdgpu"), 0u);
}

TEST(CollectEnvironment, KeepsOnlyNvidiaAndAmdDisplayDevices) {
    const auto env = collect_environment(host_data("roots/degraded-nvidia"));
    ASSERT_EQ(env.pci_gpus.size(), 2u);  // not the ASPEED VGA, the InfiniBand card or the host bridge
    const auto* degraded = find_gpu(env, "0000:18:00.0");
    ASSERT_NE(degraded, nullptr);
    EXPECT_EQ(degraded->vendor, "nvidia");
    EXPECT_EQ(degraded->device_id, 0x2335u);
    EXPECT_EQ(degraded->class_code, 0x030200u);
    EXPECT_EQ(degraded->current_speed_gts, 32.0);
    EXPECT_EQ(degraded->current_width, 8);
    EXPECT_EQ(degraded->max_width, 16);
    EXPECT_EQ(degraded->numa_node, 0);
    EXPECT_EQ(find_gpu(env, "0000:9a:00.0")->numa_node, 1);
}

TEST(CollectEnvironment, ReadsOldKernelFormsFallbacksAndContainers) {
    // KUBERNETES_SERVICE_HOST (live, when this test runs in a pod) outranks the tree's docker markers.
    const char* k8s = std::getenv("KUBERNETES_SERVICE_HOST");
    const std::string saved = k8s != nullptr ? k8s : "";
    ::unsetenv("KUBERNETES_SERVICE_HOST");
    const auto env = collect_environment(host_data("roots/old-kernel-amd"));
    if (k8s != nullptr) {
        ::setenv("KUBERNETES_SERVICE_HOST", saved.c_str(), 1);
    }
    EXPECT_EQ(env.distro.id, "debian");  // from /usr/lib/os-release: /etc/os-release is absent
    EXPECT_EQ(env.distro.version_id, "12");
    EXPECT_EQ(env.cpu_model, "NVIDIA Grace CPU");
    EXPECT_EQ(env.numa_nodes, 1);     // no node folders: one memory node
    EXPECT_EQ(env.memory_bytes, 0u);  // no /proc/meminfo in this tree
    EXPECT_EQ(env.kernel_drivers.at("amdgpu"), "in-tree");
    EXPECT_EQ(env.container, "docker");
    ASSERT_EQ(env.pci_gpus.size(), 2u);
    const auto& g = env.pci_gpus.front();
    EXPECT_EQ(g.vendor, "amd");
    EXPECT_EQ(g.current_speed_gts, 16.0);   // "16 GT/s" without a decimal or suffix
    EXPECT_FALSE(g.numa_node.has_value());  // sysfs -1
}

TEST(CollectEnvironment, FindsNoGpuWhereOnlyABmcDisplayIs) {
    const auto env = collect_environment(host_data("roots/no-gpu"));
    EXPECT_TRUE(env.pci_gpus.empty());
    EXPECT_TRUE(env.kernel_drivers.empty());
    EXPECT_EQ(env.distro.id, "rhel");
}

TEST(CollectEnvironment, RecordsTheLiveProcess) {
    const auto env = collect_environment(host_data("roots/no-gpu"));
    EXPECT_FALSE(env.glibc.empty());
    EXPECT_FALSE(env.user.empty());
    EXPECT_FALSE(env.groups.empty());
    if (env.memlock_soft && env.memlock_hard) {
        EXPECT_LE(*env.memlock_soft, *env.memlock_hard);
    }
}

TEST(CollectEnvironment, RecordsGpuEnvironmentVariablesThatAreSet) {
    ::setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
    ::setenv("HIP_VISIBLE_DEVICES", "", 1);
    ::unsetenv("AMD_SERIALIZE_KERNEL");
    const auto env = collect_environment(host_data("roots/no-gpu"));
    ::unsetenv("CUDA_LAUNCH_BLOCKING");
    ::unsetenv("HIP_VISIBLE_DEVICES");
    EXPECT_EQ(env.gpu_env.at("CUDA_LAUNCH_BLOCKING"), "1");
    EXPECT_EQ(env.gpu_env.at("HIP_VISIBLE_DEVICES"), "");  // set but empty is recorded: it hides GPUs
    EXPECT_EQ(env.gpu_env.count("AMD_SERIALIZE_KERNEL"), 0u);
}

TEST(PcieMath, TheoreticalBytesPerDirectionMatchTheSpecTable) {
    struct Case {
        double gts;
        int width;
        double want_gbs;
    };
    const Case cases[] = {
        {2.5, 16, 4.0}, {5.0, 16, 8.0}, {8.0, 16, 15.75}, {16.0, 16, 31.5}, {32.0, 16, 63.0}, {32.0, 8, 31.5},
    };
    for (const auto& c : cases) {
        const auto bytes = pcie_link_bytes_per_s(c.gts, c.width);
        ASSERT_TRUE(bytes.has_value());
        EXPECT_NEAR(*bytes / 1e9, c.want_gbs, 0.05) << c.gts << " GT/s x" << c.width;
    }
    EXPECT_FALSE(pcie_link_bytes_per_s(32.0, 0).has_value());
    EXPECT_FALSE(pcie_link_bytes_per_s(0.0, 16).has_value());
}

TEST(PcieMath, GenerationFromLaneRate) {
    const std::pair<double, int> cases[] = {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}, {100.0, 0}};
    for (const auto& [gts, gen] : cases) {
        EXPECT_EQ(pcie_generation(gts), gen) << gts;
    }
}

// The JSON is the contract: every key and type the schema's `environment` object names.
class EnvironmentJson : public ::testing::Test {
protected:
    static nlohmann::json schema() {
        std::ifstream in(std::string(test_paths::source_dir) + "/reports/schema/report-v1.schema.json");
        return nlohmann::json::parse(in);
    }
    static bool has_type(const nlohmann::json& value, const nlohmann::json& type) {
        if (type.is_array()) {
            for (const auto& t : type) {
                if (has_type(value, t)) {
                    return true;
                }
            }
            return false;
        }
        const auto t = type.get<std::string>();
        return (t == "string" && value.is_string()) || (t == "integer" && value.is_number_integer()) ||
               (t == "number" && value.is_number()) || (t == "boolean" && value.is_boolean()) ||
               (t == "null" && value.is_null()) || (t == "object" && value.is_object()) ||
               (t == "array" && value.is_array());
    }
    // Required keys present and every property the schema types has that type, recursively.
    static void expect_matches(const nlohmann::json& value, const nlohmann::json& s, const std::string& where) {
        if (s.contains("type")) {
            EXPECT_TRUE(has_type(value, s["type"])) << where << " is " << value.dump();
        }
        for (const auto& key : s.value("required", nlohmann::json::array())) {
            EXPECT_TRUE(value.contains(key.get<std::string>())) << where << " lacks " << key;
        }
        if (value.is_object() && s.contains("properties")) {
            for (const auto& [key, sub] : s["properties"].items()) {
                if (value.contains(key)) {
                    expect_matches(value[key], sub, where + "." + key);
                }
            }
        }
    }
};

TEST_F(EnvironmentJson, MatchesTheReportSchema) {
    const auto s = schema();
    const auto& env_schema = s["properties"]["environment"];
    const auto& gpu_schema = s["$defs"]["pci_gpu"];
    for (const char* root : {"roots/degraded-nvidia", "roots/old-kernel-amd", "roots/no-gpu"}) {
        const nlohmann::json j = collect_environment(host_data(root));
        expect_matches(j, env_schema, root);
        EXPECT_FALSE(j.contains("torch")) << "torch belongs to the framework layer";
        for (const auto& g : j["pci_gpus"]) {
            expect_matches(g, gpu_schema, std::string(root) + ".pci_gpus[]");
        }
    }
}

TEST_F(EnvironmentJson, WritesNullForUnlimitedMemlockNoContainerAndUnknownNuma) {
    Environment e;
    e.memlock_soft = 8ull << 20;
    PciGpu g;
    g.bdf = "0000:c1:00.0";
    g.vendor = "amd";
    e.pci_gpus.push_back(g);
    const nlohmann::json j = e;
    EXPECT_EQ(j["limits"]["memlock_soft_bytes"], 8ull << 20);
    EXPECT_TRUE(j["limits"]["memlock_hard_bytes"].is_null());
    EXPECT_TRUE(j["container"].is_null());
    EXPECT_TRUE(j["pci_gpus"][0]["numa_node"].is_null());
    EXPECT_TRUE(j["pci_gpus"][0]["current_speed_gts"].is_null());
}

}  // namespace
}  // namespace gpuconform
