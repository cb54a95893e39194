// The sim module's options string and what the module reports about itself.
#include <gtest/gtest.h>

#include "backend/sim/sim_options.hpp"
#include "sim_fixture.hpp"

namespace gpuconform::sim_test {
namespace {

using sim::Fault;

struct OptionCase {
    const char* text;
    bool valid;
    int devices;
    int device;   // which device's faults to look at
    Fault fault;  // expected present on that device when `has` is true
    bool has;
};

TEST(SimOptions, ParsesKnownKeysAndRejectsUnknownOnes) {
    const OptionCase cases[] = {
        {"", true, 1, 0, Fault::Hang, false},
        {" ; ;", true, 1, 0, Fault::Hang, false},
        {"devices=3", true, 3, 2, Fault::Hang, false},
        {"fault=hang", true, 1, 0, Fault::Hang, true},
        {"devices=2;fault=slow_link, no_overlap", true, 2, 1, Fault::NoOverlap, true},
        {"devices=2;fault.1=crash", true, 2, 0, Fault::Crash, false},
        {"fault.1=crash;devices=2", true, 2, 1, Fault::Crash, true},
        {"pinned_gbps=12.5;pageable_gbps=3", true, 1, 0, Fault::Hang, false},
        {"devices=0", true, 0, 0, Fault::Hang, false},
        {"colour=blue", false, 0, 0, Fault::Hang, false},
        {"fault=hang,melt", false, 0, 0, Fault::Hang, false},
        {"fault.1=hang", false, 0, 0, Fault::Hang, false},
        {"fault.x=hang", false, 0, 0, Fault::Hang, false},
        {"devices=two", false, 0, 0, Fault::Hang, false},
        {"pinned_gbps=0", false, 0, 0, Fault::Hang, false},
        {"hang", false, 0, 0, Fault::Hang, false},
    };
    for (const auto& c : cases) {
        std::string error;
        const auto opts = sim::parse_sim_options(c.text, &error);
        ASSERT_EQ(opts.has_value(), c.valid) << "'" << c.text << "': " << error;
        if (!c.valid) {
            EXPECT_FALSE(error.empty()) << c.text;
            continue;
        }
        EXPECT_EQ(opts->devices, c.devices) << c.text;
        ASSERT_EQ(opts->faults.size(), static_cast<std::size_t>(c.devices)) << c.text;
        if (c.devices > 0) {
            EXPECT_EQ(opts->faults[static_cast<std::size_t>(c.device)].has(c.fault), c.has) << c.text;
        }
    }
}

TEST(SimOptions, BandwidthOverridesAreRead) {
    std::string error;
    const auto opts = sim::parse_sim_options("pinned_gbps=12.5;pageable_gbps=3", &error);
    ASSERT_TRUE(opts.has_value()) << error;
    EXPECT_DOUBLE_EQ(opts->pinned_gbps, 12.5);
    EXPECT_DOUBLE_EQ(opts->pageable_gbps, 3.0);
}

TEST(SimModule, ExportsTheCurrentAbiVersion) {
    ASSERT_NE(sim_module().abi_version, nullptr) << sim_module().error;
    EXPECT_EQ(sim_module().abi_version(), k_backend_abi_version);
}

TEST(SimModule, RejectsUnknownOptionKeyOrFault) {
    ASSERT_NE(sim_module().create, nullptr) << sim_module().error;
    EXPECT_EQ(sim_module().create("turbo=1"), nullptr);
    EXPECT_EQ(sim_module().create("fault=melt"), nullptr);
}

TEST(SimModule, ReportsAConformingDevice) {
    auto b = make_sim("devices=2");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->name(), "sim");
    EXPECT_EQ(b->vendor(), "sim");
    int count = 0;
    ASSERT_TRUE(b->device_count(&count).ok());
    EXPECT_EQ(count, 2);
    DeviceProps p;
    ASSERT_TRUE(b->device_props(1, &p).ok());
    EXPECT_EQ(p.name, "gpuconform simulated device");
    EXPECT_EQ(p.arch, "sim");
    EXPECT_EQ(p.pci_bus_id, "");
    EXPECT_EQ(p.total_memory, std::uint64_t{16} << 30);
    EXPECT_EQ(p.async_engine_count, 2);
    EXPECT_TRUE(p.concurrent_kernels);
    EXPECT_TRUE(p.can_map_host_memory);
    EXPECT_EQ(p.multiprocessors, 8);
    const VersionInfo v = b->versions();
    EXPECT_TRUE(v.driver_status.ok());
    EXPECT_TRUE(v.runtime_status.ok());
    EXPECT_EQ(v.driver_version, 1000);
    EXPECT_EQ(v.runtime_version, 1000);
}

TEST(SimModule, RejectsDevicesThatDoNotExist) {
    auto b = make_sim("devices=2");
    ASSERT_NE(b, nullptr);
    DeviceProps p;
    EXPECT_EQ(b->device_props(2, &p).name, "simErrorInvalidDevice");
    EXPECT_EQ(b->set_device(-1).name, "simErrorInvalidDevice");
    EXPECT_TRUE(b->set_device(1).ok());
}

TEST(SimModule, ZeroDevicesReportsNoDevice) {
    auto b = make_sim("devices=0");
    ASSERT_NE(b, nullptr);
    int count = -1;
    EXPECT_EQ(b->device_count(&count).name, "simErrorNoDevice");
    EXPECT_EQ(count, 0);
}

// The fault is a device that claims two copy engines and delivers one: the claim stays.
TEST(SimModule, OneCopyEngineFaultStillClaimsTwoEngines) {
    auto b = make_sim("devices=2;fault.1=one_copy_engine");
    ASSERT_NE(b, nullptr);
    DeviceProps p0;
    DeviceProps p1;
    ASSERT_TRUE(b->device_props(0, &p0).ok());
    ASSERT_TRUE(b->device_props(1, &p1).ok());
    EXPECT_EQ(p0.async_engine_count, 2);
    EXPECT_EQ(p1.async_engine_count, 2);
}

}  // namespace
}  // namespace gpuconform::sim_test
