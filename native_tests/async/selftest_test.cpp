// Every fault knob of the simulated backend trips exactly the checks the selftest table names,
// and a conforming simulated device trips none: the proof that each device check catches its fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "core/check.hpp"
#include "runner/selftest.hpp"

namespace gpuconform {

// Names the scenario in test output instead of dumping its bytes.
void PrintTo(const FaultScenario& s, std::ostream* os) { *os << scenario_name(s); }

namespace {

// Three at once from 2 CPUs (97 s against 118 s two at a time and 213 s one at a time); one on a
// single CPU; at most 8.
TEST(SelftestJobs, TheDefaultIsThreeForEveryTwoCpusFromTwoToEight) {
    EXPECT_EQ(default_selftest_jobs(0), 1);
    EXPECT_EQ(default_selftest_jobs(1), 1);
    EXPECT_EQ(default_selftest_jobs(2), 3);
    EXPECT_EQ(default_selftest_jobs(3), 4);
    EXPECT_EQ(default_selftest_jobs(4), 6);
    EXPECT_EQ(default_selftest_jobs(6), 8);
    EXPECT_EQ(default_selftest_jobs(16), 8);
    EXPECT_EQ(default_selftest_jobs(128), 8);
}

class FaultCaught : public ::testing::TestWithParam<FaultScenario> {};

std::string join(const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) {
        out += x + " ";
    }
    return out;
}

// The sim keeps time on the test host's CPU. A host too loaded to keep it (CI runs tests two at a
// time on two cores) makes a timing-sensitive check say it could not judge, which is that check's
// right answer there, not a caught fault; this tells that case apart in the log.
bool only_timing_errors(const ScenarioOutcome& out) {
    if (out.unexpected.empty()) {
        return false;
    }
    for (const auto& r : out.results) {
        const bool unexpected = out.unexpected.count(r.id) != 0 ||
                                (r.device && out.unexpected.count(r.id + "@" + std::to_string(*r.device)) != 0);
        if (unexpected && (r.status != Status::Error || !r.timing_sensitive.value_or(false))) {
            return false;
        }
    }
    return true;
}

// The host's load, for a failure message that says when the machine was too busy to keep the
// simulated device's time.
std::string host_load() {
    std::ifstream in("/proc/loadavg");
    std::string one;
    in >> one;
    return fmt::format("load average {} on {} CPU(s)", one.empty() ? "?" : one, std::thread::hardware_concurrency());
}

TEST_P(FaultCaught, TripsExactlyItsChecks) {
    // A knob that trips the wrong checks trips them on every run; a loaded host's stall does not
    // repeat. So a mismatch gets another run, and the last run is what counts; each earlier one is
    // printed, so a scenario that keeps needing it is seen in the log. A mismatch made only of
    // timing-sensitive checks that could not judge gets up to three runs.
    auto out = run_scenario(GetParam());
    for (int attempt = 1; !out.ok() && attempt < (only_timing_errors(out) ? 3 : 2); ++attempt) {
        std::cout << (only_timing_errors(out) ? "could not judge on a loaded host" : "did not match") << " ("
                  << host_load() << "), run again; run " << attempt << ": unexpected " << join(out.unexpected)
                  << "; missed " << join(out.missed) << "\n";
        for (const auto& r : out.results) {
            if (out.unexpected.count(r.id) != 0 || out.missed.count(r.id) != 0) {
                std::cout << "  " << r.id << " " << to_string(r.status) << ": " << r.summary << "\n";
            }
        }
        out = run_scenario(GetParam());
    }
    const std::string busy = only_timing_errors(out)
                                 ? " (only timing-sensitive checks that could not judge: the host was too busy "
                                   "to keep the simulated device's time, " +
                                       host_load() + ")"
                                 : "";
    ASSERT_FALSE(out.results.empty()) << "no async check ran on the simulated backend";
    EXPECT_TRUE(out.missed.empty()) << "not caught by: " << join(out.missed);
    EXPECT_TRUE(out.unexpected.empty()) << "tripped without cause: " << join(out.unexpected) << busy;
}

TEST(FaultCaught, ConformingSimPassesTheDocumentedRequirements) {
    // What one conforming simulated GPU cannot judge, and why.
    const std::map<std::string, std::string> may_skip{
        {"async.peer.access_matrix", "needs two GPUs"},
        {"async.peer.copy_bandwidth", "needs two GPUs"},
        {"async.peer.event_order", "needs two GPUs"},
        {"health.nvlink", "the simulated GPU, like the H200 PCIe card, has no NVLink"},
    };
    std::map<std::string, const CheckDef*> defs;
    for (const auto& c : all_checks()) {
        defs[c.id] = &c;
    }
    // A requirement passes on a device that meets it; a reading says info. Anything else (a skip
    // without its reason above, a warn, a reading that claims a pass) is a check that does not
    // judge what it says it judges. A loaded host's stall does not repeat, so as in
    // TripsExactlyItsChecks a run that differed gets two more; a check that differs every time fails.
    std::vector<std::string> wrong;
    for (int attempt = 1; attempt <= 3; ++attempt) {
        const auto out = run_scenario(fault_scenarios().front());
        ASSERT_FALSE(out.results.empty());
        wrong.clear();
        for (const auto& r : out.results) {
            const auto def = defs.find(r.id);
            ASSERT_NE(def, defs.end()) << r.id;
            const Status expected = def->second->informational ? Status::Info : Status::Pass;
            if (r.status != expected && !(r.status == Status::Skip && may_skip.count(r.id) != 0)) {
                wrong.push_back(fmt::format("{}: {} where {} was due ({})", r.id, to_string(r.status),
                                            to_string(expected), r.summary));
            }
        }
        if (wrong.empty()) {
            break;
        }
        std::cout << "run " << attempt << " (" << host_load() << "): " << wrong.size() << " result(s) not as due\n";
    }
    for (const auto& w : wrong) {
        ADD_FAILURE() << w;
    }
}

// Every async check is the must-trip of some scenario, except this one, for the reason given.
TEST(FaultCaught, EveryAsyncCheckIsProvenByAScenario) {
    const std::map<std::string, std::string> unproven{
        {"async.device.occupancy",
         "an info reading; the co-tenant scenarios prove it: every disturbed result and the "
         "causes must name the co-tenant it found"},
    };
    std::set<std::string> proven;
    ASSERT_NO_THROW(fault_scenarios()) << "a caught_by entry names no scenario";
    for (const auto& s : fault_scenarios()) {
        for (const auto& id : s.must_trip) {
            proven.insert(id.substr(0, id.find('@')));
        }
    }
    for (const auto& c : all_checks()) {
        if (c.layer == "async" && unproven.count(c.id) == 0) {
            EXPECT_FALSE(c.caught_by.empty()) << c.id << " names no selftest scenario in its caught_by";
            EXPECT_EQ(proven.count(c.id), 1u) << c.id << " is the must-trip of no selftest scenario";
        }
    }
    for (const auto& [id, why] : unproven) {
        EXPECT_EQ(proven.count(id), 0u) << id << " is proven now: take it off the list (" << why << ")";
    }
}

// Every health check that can find something is proven by a fault of the simulated node; the two
// that only record are excepted, with the reason.
TEST(FaultCaught, EveryHealthFindingIsProvenByAScenario) {
    const std::map<std::string, std::string> unproven{
        {"health.pcie_errors", "records the replay counter and AER totals (info); health.error_growth judges growth"},
        {"health.nvlink", "the simulated GPU, like the H200 PCIe card, has no NVLink; the judge is table-tested"},
    };
    std::set<std::string> proven;
    for (const auto& s : fault_scenarios()) {
        for (const auto& id : s.must_trip) {
            proven.insert(id.substr(0, id.find('@')));
        }
    }
    int health = 0;
    for (const auto& c : all_checks()) {
        if (c.layer == "health" && unproven.count(c.id) == 0) {
            ++health;
            EXPECT_EQ(proven.count(c.id), 1u) << c.id << " is the must-trip of no selftest scenario";
        }
    }
    EXPECT_EQ(health, 6) << "the health checks that judge: inventory, ecc, memory_remap, clocks, xid, error_growth";
}

// The one rule for wrong data: every check that saw a corrupted copy after synchronize fails,
// none of them ends in error. (A timing-sensitive check that could not line up its timing on a
// loaded host ends in error before it reads any data back: that one saw nothing.)
TEST(FaultCaught, WrongDataIsAFailInEveryCheckThatSawIt) {
    const auto it = std::find_if(fault_scenarios().begin(), fault_scenarios().end(),
                                 [](const FaultScenario& s) { return s.fault == "copies_corrupt"; });
    ASSERT_NE(it, fault_scenarios().end());
    const auto out = run_scenario(*it);
    EXPECT_TRUE(out.missed.empty()) << "not caught by: " << join(out.missed);
    for (const auto& r : out.results) {
        const bool saw_nothing = r.status == Status::Error && r.timing_sensitive.value_or(false) &&
                                 r.summary.find("wrong") == std::string::npos;
        if (out.tripped.count(r.id) != 0 && !saw_nothing) {
            EXPECT_EQ(r.status, Status::Fail) << r.id << ": " << r.summary;
        }
    }
}

TEST(FaultCaught, PageableD2HReturningEarlyIsReportedNotFailed) {
    FaultScenario s{"pageable_d2h_early", {}, {"async.copy.pageable_behaviour"}, "", 0};
    const auto out = run_scenario(s);
    ASSERT_EQ(out.results.size(), 1u);
    EXPECT_EQ(out.results[0].status, Status::Info);
    bool d2h_early = false;
    for (const auto& c : out.results[0].facts.at("copies")) {
        d2h_early = d2h_early || (c.at("direction") == "D2H" && c.at("class") == "returned early");
    }
    EXPECT_TRUE(d2h_early) << out.results[0].summary;
}

std::string name_of(const ::testing::TestParamInfo<FaultScenario>& info) {
    std::string name = scenario_name(info.param);
    std::replace(name.begin(), name.end(), '+', '_');  // test names are identifiers
    return name;
}

INSTANTIATE_TEST_SUITE_P(Sim, FaultCaught, ::testing::ValuesIn(fault_scenarios()), name_of);

}  // namespace
}  // namespace gpuconform
