// A second YAML document in a profile is refused with its line, never dropped: a floor after a
// `---` that yaml-cpp's Load ignored let a run pass that the floor would fail.
#include "checks/declarations.hpp"
#include "core/yaml_document.hpp"

#include <gtest/gtest.h>

#include "core/profile.hpp"

namespace gpuconform {
namespace {

const ProfileCatalogue& k_checks = profile_catalogue();

std::string profile_error(const std::string& text) {
    try {
        (void)Profile::parse(text, "fleet.yaml", k_checks);
    } catch (const ProfileError& e) {
        return e.what();
    }
    return "accepted";
}

TEST(YamlDocuments, AProfileWithASecondDocumentIsRefusedAtItsLine) {
    EXPECT_EQ(profile_error("schema_version: 1\n---\ndefaults:\n  async.copy.bandwidth: {pcie_efficiency_min_ratio: "
                            "0.99}\n")
                  .rfind("fleet.yaml:2: a second YAML document", 0),
              0u)
        << profile_error("schema_version: 1\n---\ndefaults: {}\n");
    EXPECT_EQ(profile_error("---\nschema_version: 1\n---\n").rfind("fleet.yaml:3: a second YAML document", 0), 0u)
        << profile_error("---\nschema_version: 1\n---\n");
}

TEST(YamlDocuments, OneDocumentWithOrWithoutItsMarkerIsRead) {
    EXPECT_EQ(profile_error("---\nschema_version: 1\n"), "accepted");
    EXPECT_EQ(profile_error("# a comment\nschema_version: 1\n...\n"), "accepted");
    EXPECT_TRUE(load_one_yaml_document("", "empty.yaml").IsNull());
}

// On these yaml-cpp 0.7 reports a new document on every call without reading on, and its LoadAll
// never returned (found by the profile and tolerance fuzzers). They are refused, at once.
TEST(YamlDocuments, TextTheParserCannotReadPastIsRefusedNotLoopedOn) {
    for (const std::string text : {std::string(", [:\xbb,\x0e "), std::string(", [a, b]\n: 1\n")}) {
        try {
            (void)load_one_yaml_document(text, "odd.yaml");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const YamlDocumentError& e) {
            EXPECT_NE(std::string(e.what()).find("a second YAML document"), std::string::npos) << e.what();
        }
    }
}

TEST(YamlDocuments, ASyntaxErrorNamesFileAndLine) {
    try {
        (void)load_one_yaml_document("a: 1\nb: [\n", "bad.yaml");
        ADD_FAILURE() << "accepted";
    } catch (const YamlDocumentError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("bad.yaml:", 0), 0u) << e.what();
    }
}

}  // namespace
}  // namespace gpuconform
