// When the framework layer's pytest starts: --framework-start, and auto by the usable CPUs.
#include <gtest/gtest.h>

#include <sched.h>

#include "runner/runner.hpp"

namespace gpuconform {
namespace {

TEST(FrameworkStart, AutoStartsEarlyOnlyWithSpareCpus) {
    EXPECT_FALSE(framework_starts_early(FrameworkStart::Auto, 1));
    EXPECT_FALSE(framework_starts_early(FrameworkStart::Auto, k_early_start_min_cpus - 1));
    EXPECT_TRUE(framework_starts_early(FrameworkStart::Auto, k_early_start_min_cpus));
    EXPECT_TRUE(framework_starts_early(FrameworkStart::Auto, 128));
}

TEST(FrameworkStart, ExplicitChoiceWinsOverTheCpuCount) {
    EXPECT_TRUE(framework_starts_early(FrameworkStart::Early, 1));
    EXPECT_FALSE(framework_starts_early(FrameworkStart::Late, 128));
}

TEST(FrameworkStart, OnlyThatCannotReachTheLayerLeavesItOut) {
    EXPECT_TRUE(only_reaches_layer({}, "framework"));
    EXPECT_FALSE(only_reaches_layer({"async.copy.bandwidth", "async.copy.bidirectional"}, "framework"));
    EXPECT_FALSE(only_reaches_layer({"async.*"}, "framework"));
    EXPECT_FALSE(only_reaches_layer({"frameworks.x"}, "framework"));
    EXPECT_TRUE(only_reaches_layer({"async.*", "framework.torch.devices"}, "framework"));
    EXPECT_TRUE(only_reaches_layer({"*bandwidth"}, "framework"));  // could be framework.torch.bandwidth
    EXPECT_TRUE(only_reaches_layer({"frame*"}, "framework"));
    EXPECT_TRUE(only_reaches_layer({"framework.*"}, "framework"));
    EXPECT_TRUE(only_reaches_layer({"f?amework.x"}, "framework"));
}

TEST(FrameworkStart, UsableCpusCountsTheAffinityMask) {
    const int cpus = usable_cpus();
    EXPECT_GE(cpus, 1);
    cpu_set_t saved;
    ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
    int first = 0;
    while (!CPU_ISSET(first, &saved)) {
        ++first;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        GTEST_SKIP() << "cannot narrow this process's affinity here";
    }
    EXPECT_EQ(usable_cpus(), 1);
    sched_setaffinity(0, sizeof saved, &saved);
    EXPECT_EQ(usable_cpus(), cpus);
}

}  // namespace
}  // namespace gpuconform
