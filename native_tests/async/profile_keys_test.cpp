// The declared profile keys (each CheckDef::profile_keys) against what the checks read: a key read
// but not declared could never be set (the reader refuses it); a key declared for no check, or
// for a check that does not read it, would let a typo'd file pass.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "checks/declarations.hpp"
#include "core/check.hpp"
#include "checks/declarations.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

namespace fs = std::filesystem;

// Every key string passed to expect(), expect_optional() or Profile::lookup() in the sources.
std::set<std::string> keys_in_sources() {
    const std::regex call(
        R"re((?:expect|expect_optional)\(\s*\w+\s*,\s*"([a-z0-9_]+)"|lookup\([^,]+,\s*"([a-z0-9_]+)")re");
    std::set<std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(test_paths::source_dir) / "probes")) {
        if (entry.path().extension() != ".cpp") {
            continue;
        }
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        const std::string s = text.str();
        for (auto it = std::sregex_iterator(s.begin(), s.end(), call); it != std::sregex_iterator(); ++it) {
            out.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
        }
    }
    return out;
}

TEST(ProfileKeys, EveryKeyTheSourcesReadIsDeclared) {
    const auto read = keys_in_sources();
    ASSERT_GT(read.size(), 10u) << "the source scan found almost nothing: the pattern is stale";
    std::set<std::string> declared;
    for (const auto& k : declared_profile_keys()) {
        if (k.check.rfind("framework.", 0) != 0) {  // read by pytest: FrameworkKeys (test_core) holds those
            declared.insert(k.key);
        }
    }
    for (const auto& key : read) {
        EXPECT_EQ(declared.count(key), 1u)
            << key << " is read by a check but not declared in its CheckDef::profile_keys";
    }
    for (const auto& key : declared) {
        EXPECT_EQ(read.count(key), 1u) << key << " is declared but no check reads it";
    }
}

TEST(ProfileKeys, EveryDeclaredKeyBelongsToARealCheckAndEverySiblingCheckHasItsRatio) {
    for (const auto& k : declared_profile_keys()) {
        if (k.check.rfind("framework.", 0) != 0) {  // pytest's checks: their ids are python_tests' own
            EXPECT_NE(find_check(k.check), nullptr) << k.check << "." << k.key << ": no such check";
        }
        EXPECT_LE(k.min, k.max) << k.check << "." << k.key;
    }
    for (const auto& def : all_checks()) {
        if (!def.sibling_keys.empty()) {
            EXPECT_NE(find_profile_key(def.id, "sibling_max_shortfall_ratio"), nullptr) << def.id;
        }
    }
}

TEST(ProfileKeys, ReadingAnUndeclaredKeyIsAnErrorNotASilentDefault) {
    Environment env;
    const Profile profile = Profile::builtin(profile_catalogue());
    const RunOptions options;
    CheckContext ctx{env, profile, options, nullptr, nullptr, 0, {}};
    CheckResult r;
    r.id = "async.copy.bandwidth";
    EXPECT_THROW(ctx.expect_optional(r, "pinned_min_gpbs"), std::logic_error);
    EXPECT_NO_THROW(ctx.expect_optional(r, "pinned_min_gbps"));
}

}  // namespace
}  // namespace gpuconform
