#include <gtest/gtest.h>

#include "checks/declarations.hpp"
#include "core/profile.hpp"

namespace gpuconform {
namespace {

const ProfileCatalogue& k_known = profile_catalogue();

TEST(Profile, LaterLayersWinAndVendorBeatsDefaultsWithinALayer) {
    Profile p = Profile::parse(R"(
schema_version: 1
defaults:
  async.copy.bandwidth: {pcie_efficiency_min_ratio: 0.7}
vendors:
  nvidia:
    async.copy.bandwidth: {pcie_efficiency_min_ratio: 0.8}
archs:
  sm_90:
    async.copy.bandwidth: {pcie_efficiency_min_ratio: 0.85}
)",
                               "builtin", k_known);
    EXPECT_EQ(p.lookup("async.copy.bandwidth", "pcie_efficiency_min_ratio", "amd", "gfx90a"), 0.7);
    EXPECT_EQ(p.lookup("async.copy.bandwidth", "pcie_efficiency_min_ratio", "nvidia", "sm_80"), 0.8);
    EXPECT_EQ(p.lookup("async.copy.bandwidth", "pcie_efficiency_min_ratio", "nvidia", "sm_90"), 0.85);
    // A user's plain default overrides the built-in vendor value: the user's file is a later layer.
    p.merge(
        Profile::parse("defaults:\n  async.copy.bandwidth: {pcie_efficiency_min_ratio: 0.5}\n", "user.yaml", k_known));
    EXPECT_EQ(p.lookup("async.copy.bandwidth", "pcie_efficiency_min_ratio", "nvidia", "sm_90"), 0.5);
    EXPECT_FALSE(p.lookup("async.copy.bandwidth", "missing_key", "nvidia", "sm_90").has_value());
}

TEST(Profile, TheQuickSectionCountsOnlyWithQuickAndAfterTheFilesOwnArchValue) {
    Profile p = Profile::parse(R"(
defaults:
  async.copy.bandwidth: {train_copies: 8}
archs:
  sm_90:
    async.copy.bandwidth: {train_copies: 10}
quick:
  async.copy.bandwidth: {train_copies: 4}
)",
                               "builtin", k_known);
    EXPECT_EQ(p.lookup("async.copy.bandwidth", "train_copies", "nvidia", "sm_90"), 10);
    EXPECT_EQ(p.lookup("async.copy.bandwidth", "train_copies", "nvidia", "sm_90", /*quick=*/true), 4);
    // A user's file is a later layer: its plain value holds under --quick too.
    p.merge(Profile::parse("defaults:\n  async.copy.bandwidth: {train_copies: 16}\n", "user.yaml", k_known));
    EXPECT_EQ(p.lookup("async.copy.bandwidth", "train_copies", "nvidia", "sm_90", true), 16);
    EXPECT_NO_THROW(Profile::parse("quick:\n  framework.torch.event_timing: {trials: 2}\n", "u.yaml", k_known));
    EXPECT_THROW(Profile::parse("quick:\n  async.copy.bandwidth: {train_copies: 0}\n", "u.yaml", k_known),
                 ProfileError);  // outside the declared range
}

struct BadProfile {
    const char* text;
    const char* must_mention;
};

class ProfileErrors : public ::testing::TestWithParam<BadProfile> {};

TEST_P(ProfileErrors, NameFileLineAndField) {
    try {
        Profile::parse(GetParam().text, "fleet.yaml", k_known);
        FAIL() << "accepted a bad profile";
    } catch (const ProfileError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("fleet.yaml:"), std::string::npos) << message;
        EXPECT_NE(message.find(GetParam().must_mention), std::string::npos) << message;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ProfileErrors,
    ::testing::Values(
        BadProfile{"defaults:\n  async.copy.bandwidth: {a: [1\n", "syntax"},
        BadProfile{"defaults:\n  async.nope: {a: 1}\n", "async.nope"},
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    pcie_efficiency_min_ratio: -0.5\n",
                   "defaults.async.copy.bandwidth.pcie_efficiency_min_ratio"},
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    pcie_efficiency_min_ratio: 70%\n", "plain number"},
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    pcie_efficiency_min_ratio: 12 GB/s\n", "unit"},
        BadProfile{"schema_version: 2\n", "schema_version"}, BadProfile{"thresholds: {}\n", "unknown section"},
        // hostile input: values and names a lax reader would take silently or crash on
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    pcie_efficiency_min_ratio: .nan\n", ".nan"},
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    pcie_efficiency_min_ratio: .inf\n", ".inf"},
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    pcie_efficiency_min_ratio: 1e300\n", "1e300"},
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    pinned_min_gbps: 1\n    pinned_min_gbps: 2\n",
                   "given twice"},
        // keys: only those a check reads, with the nearest one named
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    pinned_min_gpbs: 4\n", "did you mean 'pinned_min_gbps'"},
        BadProfile{"defaults:\n  async.copy.bandwidth:\n    overlap_min_ratio: 0.8\n", "unknown key"},
        BadProfile{"vendors:\n  sim:\n    async.peer.copy_bandwidth:\n      peer_min_gpbs: 4\n",
                   "vendors.sim.async.peer.copy_bandwidth.peer_min_gpbs: unknown key (did you mean 'peer_min_gbps'"},
        BadProfile{"defaults:\n  async.copy.bandwdth: {pinned_min_gbps: 4}\n", "did you mean 'async.copy.bandwidth'"},
        // each key's sensible range, and whole numbers where a count is meant
        BadProfile{"defaults:\n  async.launch.returns_early: {gate_ms: 0}\n", "outside the sensible range"},
        BadProfile{"defaults:\n  async.copy.bandwidth: {pcie_efficiency_min_ratio: 1.5}\n", "outside"},
        BadProfile{"defaults:\n  async.queue.launch_depth: {max_launches: 1e11}\n", "outside"},
        BadProfile{"defaults:\n  async.queue.launch_depth: {max_launches: 99999999999999999999}\n", "max_launches"},
        BadProfile{"defaults:\n  async.queue.launch_depth: {max_launches: 2.5}\n", "whole number"},
        BadProfile{"defaults: {}\ndefaults: {}\n", "given twice"},
        BadProfile{"vendors:\n  nvidai: {}\n", "did you mean 'nvidia'"},
        BadProfile{"archs:\n  sm90: {}\n", "unknown arch"}, BadProfile{"schema_version: [1]\n", "schema_version"},
        BadProfile{"? [a, b]\n: 1\n", "fleet.yaml"},
        // a fleet's frozen baselines (store baselines --export-profile)
        BadProfile{"baselines: [1]\n", "baselines: expected a mapping"},
        BadProfile{"baselines: {min_runs: 0}\n", "baselines.min_runs: must be 1 or more"},
        BadProfile{"baselines: {min_runs: 2.5}\n", "whole number"},
        BadProfile{"baselines: {limit: 3}\n", "baselines.limit: unknown key"},
        BadProfile{"baselines:\n  figures:\n    - {check: a, name: b, direction: higher, runs: 3, median: 1}\n",
                   "baselines.figures[0]: spread is missing"},
        BadProfile{"baselines:\n  figures:\n    - {check: a, name: b, direction: up, runs: 3, median: 1, spread: 0}\n",
                   "'up' is neither higher nor lower"},
        BadProfile{
            "baselines:\n  figures:\n    - {check: a, name: b, direction: lower, runs: 0, median: 1, spread: 0}\n",
            "baselines.figures[0].runs"},
        BadProfile{
            "baselines:\n  figures:\n    - {check: a, name: b, direction: lower, runs: 2, median: .nan, spread: 0}\n",
            "not a finite number"},
        BadProfile{
            "baselines:\n  figures:\n    - {check: a, name: b, direction: lower, runs: 2, median: 1, spread: -1}\n",
            "never negative"},
        BadProfile{"baselines:\n  figures:\n    - {check: a, name: b, direction: lower, runs: 2, median: 1, spread: 0, "
                   "colour: red}\n",
                   "figures[0].colour: unknown field"},
        BadProfile{
            "baselines:\n  figures:\n    - {check: a, name: b, direction: lower, runs: 2, median: 1, spread: 0}\n"
            "    - {check: a, name: b, direction: lower, runs: 5, median: 2, spread: 0}\n",
            "given twice for one group"}));

// What `store baselines --export-profile` writes reads back to the same values, and a later
// file's figure replaces an earlier one of the same group.
TEST(Profile, FrozenBaselinesReadBackAndLaterFilesWin) {
    FigureBaseline b;
    b.check = "async.copy.bandwidth";
    b.name = "bw_pinned_H2D_256MiB";
    b.unit = "GB/s";
    b.direction = "higher";
    b.gpu = "NVIDIA H200: \"quoted\"";
    b.driver_branch = "580";
    b.link = "32 GT/s x16";
    b.profile = "built-in profile";
    b.runs = 90;
    b.values = 720;
    b.median = 55.123456789012345;
    b.spread = 0.3;
    b.p05 = 54.1;
    b.p95 = 55.9;
    b.first_started = "2026-09-01T02:00:00Z";
    const std::string text = baselines_profile_yaml({25, {b}}, "frozen");
    Profile p = Profile::parse(text, "frozen.yaml", k_known);
    ASSERT_EQ(p.baselines().figures.size(), 1u) << text;
    const FigureBaseline& back = p.baselines().figures[0];
    EXPECT_EQ(p.baselines().min_runs, 25);
    EXPECT_EQ(back.gpu, b.gpu);
    EXPECT_EQ(back.median, b.median) << "a value must read back exactly";
    EXPECT_EQ(back.runs, 90);
    EXPECT_EQ(back.values, 720);
    EXPECT_EQ(back.first_started, b.first_started);
    b.median = 50;
    p.merge(Profile::parse(baselines_profile_yaml({std::nullopt, {b}}, "newer"), "newer.yaml", k_known));
    ASSERT_EQ(p.baselines().figures.size(), 1u);
    EXPECT_EQ(p.baselines().figures[0].median, 50);
    EXPECT_EQ(p.baselines().min_runs, 25) << "a file without min_runs keeps the earlier one's";
}

TEST(Profile, KeysReadOnlyOptionallyAreAccepted) {
    // Keys no built-in section sets are still keys a check reads: a fleet profile may set them.
    const Profile p = Profile::parse(
        "defaults:\n  async.copy.bandwidth: {pinned_min_gbps: 40}\n"
        "  async.peer.copy_bandwidth: {peer_min_gbps: 100}\n",
        "fleet.yaml", k_known);
    EXPECT_EQ(p.lookup("async.peer.copy_bandwidth", "peer_min_gbps", "nvidia", "sm_90"), 100);
}

TEST(Profile, TheBuiltInProfileSetsOnlyDeclaredKeysWithinTheirRanges) { EXPECT_NO_THROW(Profile::builtin(k_known)); }

TEST(Profile, ErrorLineNumbersPointAtTheBadValue) {
    try {
        Profile::parse("defaults:\n  async.copy.bandwidth:\n    pcie_efficiency_min_ratio: -1\n", "f.yaml", k_known);
        FAIL();
    } catch (const ProfileError& e) {
        EXPECT_NE(std::string(e.what()).find("f.yaml:3"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace gpuconform

namespace gpuconform {
namespace {

// The layers as read, in order, filtered by prefix: what pytest resolves in lookup()'s order.
TEST(Profile, LayersComeOutInOrderFilteredByPrefix) {
    const ProfileCatalogue& known = profile_catalogue();
    Profile p = Profile::parse(R"(
defaults:
  async.copy.bandwidth: {pcie_efficiency_min_ratio: 0.7}
  framework.torch.overlap_copy_compute: {overlap_min_ratio: 0.4, trials: 3}
quick:
  framework.torch.overlap_copy_compute: {trials: 2}
)",
                               "builtin", known);
    p.merge(Profile::parse(R"(
defaults:
  framework.torch.overlap_copy_compute: {overlap_min_ratio: 0.7}
vendors:
  amd:
    framework.torch.event_timing: {max_relative_error: 0.1}
  nvidia:
    async.copy.bandwidth: {pcie_efficiency_min_ratio: 0.8}
)",
                           "user.yaml", known));
    const auto doc = p.layers_json("framework.");
    EXPECT_EQ(doc["schema_version"], 1);
    ASSERT_EQ(doc["layers"].size(), 2u);
    const auto& first = doc["layers"][0];
    const auto& second = doc["layers"][1];
    EXPECT_EQ(first["source"], "builtin");
    EXPECT_EQ(first["defaults"]["framework.torch.overlap_copy_compute"]["overlap_min_ratio"], 0.4);
    EXPECT_EQ(first["quick"]["framework.torch.overlap_copy_compute"]["trials"], 2);
    EXPECT_FALSE(first["defaults"].contains("async.copy.bandwidth"));
    EXPECT_EQ(second["source"], "user.yaml");
    EXPECT_EQ(second["defaults"]["framework.torch.overlap_copy_compute"]["overlap_min_ratio"], 0.7);
    EXPECT_EQ(second["vendors"]["amd"]["framework.torch.event_timing"]["max_relative_error"], 0.1);
    EXPECT_FALSE(second["vendors"].contains("nvidia"));  // it set only a native value
    EXPECT_EQ(p.layers_json("")["layers"][0]["defaults"]["async.copy.bandwidth"]["pcie_efficiency_min_ratio"], 0.7);
}

TEST(Profile, FrameworkKeysAreValidatedAndTakeNoArchs) {
    const ProfileCatalogue& known = profile_catalogue();
    EXPECT_THROW(Profile::parse("defaults:\n  framework.torch.overlap_copy_compute: {min_overlap_ratio: 0.5}\n",
                                "u.yaml", known),
                 ProfileError);  // the old Python name: refused, with the key list
    EXPECT_THROW(Profile::parse("defaults:\n  framework.torch.overlap_copy_compute: {overlap_min_ratio: 1.5}\n",
                                "u.yaml", known),
                 ProfileError);  // out of range
    EXPECT_THROW(
        Profile::parse("archs:\n  sm_90:\n    framework.torch.overlap_copy_compute: {overlap_min_ratio: 0.5}\n",
                       "u.yaml", known),
        ProfileError);
}

}  // namespace
}  // namespace gpuconform
