// One list of profile keys: every number of the framework layer's thresholds file is a declared
// profile key (so `--profile` can set it and a typo is refused), and every declared framework key
// has its default there.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/profile_keys.hpp"

namespace gpuconform {
namespace {

TEST(FrameworkKeys, TheThresholdsFileAndTheDeclaredKeysAgree) {
    std::ifstream in(GPUCONFORM_SOURCE_DIR "/python_tests/gpuconform_torch/thresholds.json");
    ASSERT_TRUE(in) << "thresholds.json not found";
    const auto doc = nlohmann::json::parse(in);
    std::set<std::pair<std::string, std::string>> in_file;
    for (const auto& section : {"defaults", "quick"}) {
        for (const auto& [check, keys] : doc.at(section).items()) {
            if (check == "gating") {
                continue;  // the gate calibration of every torch check, not one check's value
            }
            for (const auto& [key, value] : keys.items()) {
                EXPECT_NE(find_profile_key(check, key), nullptr)
                    << section << "." << check << "." << key << " is not a declared profile key";
                if (std::string(section) == "defaults") {
                    in_file.insert({check, key});
                }
            }
        }
    }
    for (const auto& k : declared_profile_keys()) {
        if (k.check.compare(0, 10, "framework.") == 0) {
            EXPECT_EQ(in_file.count({k.check, k.key}), 1u)
                << k.check << "." << k.key << " has no default in thresholds.json";
        }
    }
}

}  // namespace
}  // namespace gpuconform
