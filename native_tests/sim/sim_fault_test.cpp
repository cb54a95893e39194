// Each fault knob changes exactly its own behaviour: every probe runs against every knob, and
// only the knob's own probe (plus the ones it implies) sees a fault. The crash knob is a death test.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sim_fault_probes.hpp"

namespace gpuconform::sim_test {
namespace {

struct Probe {
    std::string fault;  // the knob this probe detects
    bool (*run)(Backend&);
};

const std::vector<Probe> k_probes = {
    {"pinned_copy_blocks", probe_pinned_copy_blocks},
    {"launch_blocks", probe_launch_blocks},
    {"pageable_d2h_early", probe_pageable_d2h_early},
    {"default_stream_no_sync", probe_default_stream_no_sync},
    {"events_ignored", probe_events_ignored},
    {"one_copy_engine", probe_one_copy_engine},
    {"no_overlap", probe_no_overlap},
    {"slow_link", probe_slow_link},
    {"hang", probe_hang},
    {"sticky_error", probe_sticky_error},
    {"releases_lost", probe_releases_lost},
    {"link_shared", probe_link_shared},
};

// The probes a knob should trip: its own, plus what it implies (one engine for everything
// also means one copy engine). hang and sticky_error poison the backend, so only their own runs.
std::set<std::string> expected_hits(const std::string& fault) {
    if (fault == "no_overlap") {
        return {"no_overlap", "one_copy_engine"};
    }
    if (fault == "link_shared") {
        return {"link_shared", "slow_link"};  // a copy timed alone starts on an idle link
    }
    return fault.empty() ? std::set<std::string>{} : std::set<std::string>{fault};
}

bool poisons(const std::string& fault) { return fault == "hang" || fault == "sticky_error"; }

class SimFaultKnob : public testing::TestWithParam<std::string> {};

TEST_P(SimFaultKnob, TripsItsOwnProbeAndNoOther) {
    const std::string fault = GetParam();
    const auto hits = expected_hits(fault);
    for (const Probe& p : k_probes) {
        if (poisons(fault) && p.fault != fault) {
            continue;
        }
        // The probes time the host, and a loaded CI host (tests two at a time on two cores) can
        // stall a thread for tens of milliseconds. A knob that changes the wrong behaviour, or
        // none, gives the wrong answer every time; so up to three fresh tries, one right answer.
        const bool expected = hits.contains(p.fault);
        bool seen = !expected;
        for (int attempt = 0; attempt < 3 && seen != expected; ++attempt) {
            auto b = make_sim("pinned_gbps=0.25" + (fault.empty() ? std::string() : ";fault=" + fault));
            ASSERT_NE(b, nullptr);
            seen = p.run(*b);
        }  // destroying the backend joins its workers, even with a hung kernel
        EXPECT_EQ(seen, expected) << "probe " << p.fault << " with fault '" << fault << "', three tries";
    }
}

INSTANTIATE_TEST_SUITE_P(Knobs, SimFaultKnob,
                         testing::Values("", "pinned_copy_blocks", "launch_blocks", "pageable_d2h_early",
                                         "default_stream_no_sync", "events_ignored", "one_copy_engine", "no_overlap",
                                         "slow_link", "hang", "sticky_error", "releases_lost", "link_shared"),
                         [](const testing::TestParamInfo<std::string>& info) {
                             return info.param.empty() ? std::string("none") : info.param;
                         });

TEST(SimFaultKnobDeathTest, CrashRaisesSigsegvAtTheFirstLaunch) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            auto b = make_sim("fault=crash");
            b->launch_spin(0, 1000);
        },
        testing::KilledBySignal(SIGSEGV), "");
}

TEST(SimFaultKnob, FaultOnOneDeviceLeavesTheOtherConforming) {
    auto b = make_sim("devices=2;fault.1=launch_blocks");
    ASSERT_NE(b, nullptr);
    EXPECT_FALSE(probe_launch_blocks(*b));
    ASSERT_TRUE(b->set_device(1).ok());
    EXPECT_TRUE(probe_launch_blocks(*b));
}

TEST(SimFaultKnob, StickyErrorIsALaunchFailure) {
    auto b = make_sim("fault=sticky_error");
    ASSERT_NE(b, nullptr);
    int count = 0;
    ASSERT_TRUE(b->device_count(&count).ok());
    EXPECT_EQ(b->launch_spin(0, 1).name, "simErrorLaunchFailure");
    EXPECT_EQ(b->device_count(&count).name, "simErrorLaunchFailure");
    EXPECT_EQ(b->last_error().name, "simErrorLaunchFailure");
}

}  // namespace
}  // namespace gpuconform::sim_test
