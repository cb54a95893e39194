// One list of profile keys and one source of values: every declared framework key has its default
// in the built-in profile (pytest has no other; python_tests/unit checks that every key a torch
// check reads is one of them), and the export pytest reads holds only framework checks.
#include <gtest/gtest.h>

#include "checks/declarations.hpp"
#include "core/profile.hpp"

namespace gpuconform {
namespace {

TEST(FrameworkKeys, EveryDeclaredFrameworkKeyHasABuiltInDefault) {
    const Profile builtin = Profile::builtin(profile_catalogue());
    int framework_keys = 0;
    for (const auto& k : declared_profile_keys()) {
        if (k.check.compare(0, 10, "framework.") == 0) {
            ++framework_keys;
            EXPECT_TRUE(builtin.lookup(k.check, k.key, "", "").has_value())
                << k.check << "." << k.key << " has no default in probes/profiles/default.yaml";
        }
    }
    EXPECT_GT(framework_keys, 20);
}

TEST(FrameworkKeys, TheExportHoldsOnlyTheFrameworkChecks) {
    const auto doc = Profile::builtin(profile_catalogue()).layers_json("framework.");
    ASSERT_EQ(doc.at("layers").size(), 1u);
    const auto& layer = doc["layers"][0];
    EXPECT_EQ(layer.at("source"), "built-in profile");
    EXPECT_TRUE(layer.at("defaults").contains("framework.torch.overlap_copy_compute"));
    EXPECT_TRUE(layer.at("quick").contains("framework.torch.overlap_copy_compute"));
    for (const auto& section : {"defaults", "quick"}) {
        for (const auto& [check, keys] : layer.at(section).items()) {
            EXPECT_EQ(check.compare(0, 10, "framework."), 0) << section << "." << check;
        }
    }
}

}  // namespace
}  // namespace gpuconform
