// `render -f verdict`: the one reader and the one rule give scripts a report's verdict, built
// from the real H200 report of 2026-12-02 (schema 1.3) changed the ways a node's report lies.
#include <gtest/gtest.h>

#include "render_report.hpp"
#include "report_builder.hpp"

namespace gpuconform {
namespace {

nlohmann::json h200_report() {
    return test::load_json(std::string(GPUCONFORM_SOURCE_DIR) +
                           "/reports/samples/ubuntu24.04-h200-2026-12-02-verdict/readme.json");
}

// Written and read back through load_report (read_report_file), as `render` does.
nlohmann::json verdict_of(const nlohmann::json& doc, std::string* refused = nullptr) {
    test::ScratchDir dir("verdictview");
    const std::string path = dir.write("r.json", doc.dump());
    std::string error;
    const auto loaded = load_report(path, error);
    if (!loaded) {
        if (refused != nullptr) {
            *refused = error;
        }
        return nullptr;
    }
    return nlohmann::json::parse(render_report(*loaded, "verdict", false, path));
}

nlohmann::json& result(nlohmann::json& doc, const std::string& id) {
    for (auto& r : doc["results"]) {
        if (r["id"] == id) {
            return r;
        }
    }
    throw std::runtime_error("no result " + id);
}

TEST(VerdictView, AHealthyH200Passes) {
    const nlohmann::json v = verdict_of(h200_report());
    EXPECT_EQ(v.at("verdict"), "pass");
    EXPECT_EQ(v.at("judged"), 54);
    EXPECT_TRUE(v.at("deciding").is_null());
    EXPECT_TRUE(v.at("failing").empty());
}

TEST(VerdictView, AFailureNamesTheCheckAndDevice) {
    nlohmann::json doc = h200_report();
    result(doc, "async.copy.bandwidth")["status"] = "fail";
    const nlohmann::json v = verdict_of(doc);
    EXPECT_EQ(v.at("verdict"), "fail");
    EXPECT_EQ(v.at("deciding").at("name"), "async.copy.bandwidth cuda:0");
    EXPECT_EQ(v.at("failing"), nlohmann::json::array({"async.copy.bandwidth cuda:0"}));
}

// A run stopped after its host checks: the device results never came, the report says so.
TEST(VerdictView, AnInterruptedRunIsInconclusive) {
    nlohmann::json doc = h200_report();
    doc["run"]["interrupted"] = true;
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& r : doc["results"]) {
        if (r["layer"] == "host") {
            kept.push_back(r);
        }
    }
    doc["results"] = kept;
    const nlohmann::json v = verdict_of(doc);
    EXPECT_EQ(v.at("verdict"), "inconclusive");
    EXPECT_TRUE(v.at("interrupted").get<bool>());
}

// Every result passes, but the run itself said it could not judge (no device check on a node with
// GPUs): never a pass.
TEST(VerdictView, TheReportsOwnInconclusiveIsNeverReadAsAPass) {
    nlohmann::json doc = h200_report();
    doc["summary"]["verdict"] = "inconclusive";
    doc["summary"]["reason"] = "no device check was judged on a node with GPUs";
    const nlohmann::json v = verdict_of(doc);
    EXPECT_EQ(v.at("verdict"), "inconclusive");
    EXPECT_EQ(v.at("reason"), "no device check was judged on a node with GPUs");
}

// A status the schema does not know ("FAIL") is refused, never counted as not failing.
TEST(VerdictView, AnUnknownStatusIsRefused) {
    nlohmann::json doc = h200_report();
    result(doc, "async.copy.bandwidth")["status"] = "FAIL";
    std::string refused;
    EXPECT_TRUE(verdict_of(doc, &refused).is_null());
    EXPECT_NE(refused.find("unknown status 'FAIL'"), std::string::npos) << refused;
    nlohmann::json numeric = h200_report();
    result(numeric, "async.copy.bandwidth")["id"] = 7;
    EXPECT_TRUE(verdict_of(numeric, &refused).is_null());
}

}  // namespace
}  // namespace gpuconform
