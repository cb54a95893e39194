// Every fault knob of the simulated backend trips exactly the checks the selftest table names,
// and a conforming simulated device trips none: the proof that each device check catches its fault.
#include <gtest/gtest.h>

#include <algorithm>

#include "runner/selftest.hpp"

namespace gpuconform {

// Names the scenario in test output instead of dumping its bytes.
void PrintTo(const FaultScenario& s, std::ostream* os) { *os << scenario_name(s); }

namespace {

class FaultCaught : public ::testing::TestWithParam<FaultScenario> {};

std::string join(const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) {
        out += x + " ";
    }
    return out;
}

TEST_P(FaultCaught, TripsExactlyItsChecks) {
    const auto out = run_scenario(GetParam());
    ASSERT_FALSE(out.results.empty()) << "no async check ran on the simulated backend";
    EXPECT_TRUE(out.missed.empty()) << "not caught by: " << join(out.missed);
    EXPECT_TRUE(out.unexpected.empty()) << "tripped without cause: " << join(out.unexpected);
}

TEST(FaultCaught, ConformingSimPassesTheDocumentedRequirements) {
    const auto out = run_scenario(fault_scenarios().front());
    int passes = 0;
    for (const auto& r : out.results) {
        passes += r.status == Status::Pass ? 1 : 0;
    }
    EXPECT_GE(passes, 10) << "a conforming device must pass the documented-required checks, not just avoid failing";
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
