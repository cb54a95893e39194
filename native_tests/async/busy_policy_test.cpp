// The busy-GPU policy as verdict tables: what counts as disturbing, what each policy does before
// and after a disturbed measurement, and that every device check declares its timing sensitivity.
#include <gtest/gtest.h>

#include "core/check.hpp"
#include "occupancy/occupancy.hpp"
#include "runner/busy_policy.hpp"

namespace gpuconform {
namespace {

GpuOccupancy reading(std::vector<OtherProcess> others, std::optional<double> util, bool list_sees_us = false,
                     bool settled = false) {
    GpuOccupancy o;
    o.settled = settled;
    o.backend = "cuda";
    o.device = 0;
    o.others = std::move(others);
    o.utilization_pct = util;
    o.memory_used_bytes = 883.0 * 1048576;
    o.list_sees_us = list_sees_us;
    return o;
}

const OtherProcess k_python{1186, "python3", 874ull << 20};

TEST(BusyPolicy, WhatDisturbsTiming) {
    struct Row {
        const char* what;
        GpuOccupancy o;
        bool disturbs;
    };
    const std::vector<Row> rows{
        {"idle, nobody", reading({}, 0.0), false},
        {"a computing process", reading({k_python}, 98.0, true), true},
        {"a process that only holds memory", reading({k_python}, 0.0, true), false},
        {"our own last kernel (the list sees us, nobody else)", reading({}, 97.0, true), false},
        {"settled, the list sees only us, 95% busy: a tenant it cannot show", reading({}, 95.0, true, true), true},
        {"settled, the list sees only us, idle", reading({}, 2.0, true, true), false},
        {"settled, the list sees only us, no utilisation", reading({}, std::nullopt, true, true), false},
        {"PID namespace: no process listed, 98% busy", reading({}, 98.0), true},
        {"no utilisation reader, a device-node holder", reading({k_python}, std::nullopt), true},
        {"no utilisation reader, nobody", reading({}, std::nullopt), false},
        {"just under the threshold", reading({}, k_busy_utilization_pct - 1), false},
    };
    for (const auto& row : rows) {
        EXPECT_EQ(disturbs_timing(row.o), row.disturbs) << row.what;
    }
}

// Only an unsettled busy reading that lists only us is ambiguous; a settled one is judged.
TEST(BusyPolicy, WhenOnlyASettledReadingCanTell) {
    EXPECT_TRUE(may_hide_tenant(reading({}, 95.0, true)));
    EXPECT_FALSE(may_hide_tenant(reading({}, 95.0, true, true)));
    EXPECT_FALSE(may_hide_tenant(reading({}, 95.0, false)));
    EXPECT_FALSE(may_hide_tenant(reading({k_python}, 95.0, true)));
    EXPECT_FALSE(may_hide_tenant(reading({}, 3.0, true)));
}

TEST(BusyPolicy, NamesTheOtherUser) {
    EXPECT_EQ(describe_others(reading({k_python}, 98.0, true)), "pid 1186 python3 held 874 MiB and 98% utilisation");
    const auto hidden = describe_others(reading({}, 98.0));
    EXPECT_NE(hidden.find("no process visible"), std::string::npos) << hidden;
    EXPECT_NE(hidden.find("98% utilisation"), std::string::npos) << hidden;
    EXPECT_NE(hidden.find("883 MiB in use"), std::string::npos) << hidden;
}

TEST(BusyPolicy, BeforeACheck) {
    struct Row {
        WhenBusy policy;
        bool busy;
        double wait_left;
        BeforeAction action;
    };
    const std::vector<Row> rows{
        {WhenBusy::Wait, false, 120, BeforeAction::Run},    {WhenBusy::Wait, true, 120, BeforeAction::WaitForQuiet},
        {WhenBusy::Wait, true, 0, BeforeAction::NotRun},    {WhenBusy::Skip, true, 120, BeforeAction::NotRun},
        {WhenBusy::Skip, false, 0, BeforeAction::Run},      {WhenBusy::Measure, true, 0, BeforeAction::Run},
        {WhenBusy::Measure, false, 120, BeforeAction::Run},
    };
    for (const auto& row : rows) {
        EXPECT_EQ(before_check(row.policy, row.busy, row.wait_left), row.action)
            << to_string(row.policy) << " busy=" << row.busy << " wait_left=" << row.wait_left;
    }
}

TEST(BusyPolicy, NotRunIsErrorForWaitAndSkipForSkip) {
    const auto o = reading({k_python}, 98.0, true);
    const auto waited = busy_not_run("async.copy.bandwidth", "async", WhenBusy::Wait, o, 120);
    EXPECT_EQ(waited.status, Status::Error);
    EXPECT_NE(waited.summary.find("pid 1186 python3 held 874 MiB and 98% utilisation"), std::string::npos);
    EXPECT_NE(waited.summary.find("waited 120 s"), std::string::npos) << waited.summary;
    EXPECT_EQ(waited.disturbance.at("others").at(0).at("pid"), 1186);
    EXPECT_EQ(busy_not_run("x.y.z", "async", WhenBusy::Skip, o, 0).status, Status::Skip);
}

TEST(BusyPolicy, ADisturbedVerdictNeverStandsUnlessMeasureWasAsked) {
    const auto o = reading({k_python}, 98.0, true);
    for (const Status measured : {Status::Pass, Status::Fail, Status::Info}) {
        CheckResult r;
        r.status = measured;
        r.summary = "pinned 256 MiB H2D 26.1 GB/s";
        mark_disturbed(r, WhenBusy::Wait, o, 30);
        EXPECT_EQ(r.status, Status::Error) << to_string(measured);
        EXPECT_NE(r.summary.find("during the measurement"), std::string::npos) << r.summary;
        EXPECT_EQ(r.facts.at("withheld").at("status"), to_string(measured));
        EXPECT_FALSE(r.disturbance.is_null());

        CheckResult m;
        m.status = measured;
        m.summary = "pinned 256 MiB H2D 26.1 GB/s";
        mark_disturbed(m, WhenBusy::Measure, o, 0);
        EXPECT_EQ(m.status, measured) << "measure keeps the verdict and says so";
        EXPECT_NE(m.summary.find("measured while pid 1186 python3"), std::string::npos) << m.summary;
    }
}

TEST(BusyPolicy, EveryDeviceCheckDeclaresWhetherItIsTimingSensitive) {
    for (const auto& c : all_checks()) {
        if (c.scope == Scope::Device || c.scope == Scope::Node) {
            EXPECT_TRUE(c.timing_sensitive.has_value()) << c.id << " must set timing_sensitive in its factory";
        }
    }
    // The early-return and ordering checks must still catch a broken install on a busy GPU.
    for (const char* id :
         {"async.copy.pinned_returns_early", "async.stream.legacy_default_sync", "async.error.deferred"}) {
        ASSERT_NE(find_check(id), nullptr) << id;
        EXPECT_EQ(find_check(id)->timing_sensitive, false) << id;
    }
    EXPECT_EQ(find_check("async.copy.bandwidth")->timing_sensitive, true);
}

TEST(BusyPolicy, ParsesThePolicyNames) {
    EXPECT_EQ(when_busy_from_string("wait"), WhenBusy::Wait);
    EXPECT_EQ(when_busy_from_string("skip"), WhenBusy::Skip);
    EXPECT_EQ(when_busy_from_string("measure"), WhenBusy::Measure);
    EXPECT_EQ(when_busy_from_string("ignore"), std::nullopt);
}

}  // namespace
}  // namespace gpuconform
