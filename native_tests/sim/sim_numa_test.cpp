// The sim's two NUMA nodes (sim_numa.hpp): what a device reports as its own, and copies from
// memory on the other node taking twice as long on the modelled timeline.
#include <gtest/gtest.h>

#include "sim_fixture.hpp"

namespace gpuconform::sim_test {
namespace {

// Event-timed H2D of `bytes` from memory placed on `node`.
double h2d_ms_from(Backend& b, int node, std::size_t bytes) {
    HostNuma& numa = *b.host_numa();
    std::string why;
    void* host = numa.alloc_on_node(bytes, node, &why);
    EXPECT_NE(host, nullptr) << why;
    EXPECT_TRUE(b.host_register(host, bytes).ok());
    SimBuffer dev(b, SimBuffer::Kind::Device, bytes);
    const StreamHandle s = make_stream(b);
    EventHandle start = 0;
    EventHandle stop = 0;
    EXPECT_TRUE(b.event_create(true, &start).ok());
    EXPECT_TRUE(b.event_create(true, &stop).ok());
    EXPECT_TRUE(b.event_record(start, s).ok());
    EXPECT_TRUE(b.memcpy_async(dev.get(), host, bytes, CopyKind::HostToDevice, s).ok());
    EXPECT_TRUE(b.event_record(stop, s).ok());
    EXPECT_TRUE(b.event_synchronize(stop).ok());
    float ms = 0;
    EXPECT_TRUE(b.event_elapsed_ms(start, stop, &ms).ok());
    EXPECT_TRUE(b.event_destroy(start).ok());
    EXPECT_TRUE(b.event_destroy(stop).ok());
    EXPECT_TRUE(b.host_unregister(host).ok());
    numa.free_on_node(host, bytes);
    return ms;
}

TEST(SimNuma, TheOtherNodesMemoryCopiesAtHalfTheRate) {
    auto b = make_sim("devices=2");
    ASSERT_NE(b, nullptr);
    HostNuma* numa = b->host_numa();
    ASSERT_NE(numa, nullptr);
    EXPECT_EQ(numa->node_count(), 2);
    std::string why;
    EXPECT_EQ(numa->device_node(0, &why), 0);
    EXPECT_EQ(numa->device_node(1, &why), 1);
    EXPECT_FALSE(numa->device_node(2, &why).has_value());
    EXPECT_NE(why, "");
    EXPECT_EQ(numa->other_node(0, &why), 1);
    EXPECT_EQ(numa->alloc_on_node(4096, 2, &why), nullptr);
    constexpr std::size_t k_bytes = std::size_t{16} << 20;
    const double own = h2d_ms_from(*b, 0, k_bytes);
    const double other = h2d_ms_from(*b, 1, k_bytes);
    EXPECT_NEAR(other / own, 2.0, 0.2) << own << " ms vs " << other << " ms";
}

TEST(SimNuma, AMisreportedNodeIsTheSlowOne) {
    auto b = make_sim("fault=numa_misreported");
    ASSERT_NE(b, nullptr);
    std::string why;
    const int reported = b->host_numa()->device_node(0, &why).value_or(-1);
    EXPECT_EQ(reported, 1);
    constexpr std::size_t k_bytes = std::size_t{16} << 20;
    EXPECT_GT(h2d_ms_from(*b, reported, k_bytes), 1.5 * h2d_ms_from(*b, 0, k_bytes));
}

}  // namespace
}  // namespace gpuconform::sim_test
