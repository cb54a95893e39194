// `render -f verdict`: the one reader and the one rule give scripts a report's verdict, built
// from the real H200 report of 2026-12-02 (schema 1.3) changed the ways a node's report lies.
#include <gtest/gtest.h>

#include "reports/render_report.hpp"
#include "report_builder.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

nlohmann::json h200_report() {
    return test::load_json(std::string(test_paths::source_dir) +
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

// The GPUs behind the failures, each once, by PCI address and UUID, so a scheduler can name the
// bad GPU of eight: the device layer's result finds its UUID through the health layer's
// inventory (NVML writes an 8-digit PCI domain, the runtime a 4-digit one).
TEST(VerdictView, FailingGpusAreNamedByAddressAndUuid) {
    nlohmann::json doc = test::load_json(std::string(test_paths::source_dir) +
                                         "/reports/samples/ubuntu24.04-h200-2026-12-04-nvml-fork/full.json");
    EXPECT_TRUE(verdict_of(doc).at("failing_gpus").empty());
    result(doc, "async.copy.bandwidth")["status"] = "fail";
    result(doc, "health.ecc")["status"] = "fail";
    const nlohmann::json v = verdict_of(doc);
    ASSERT_EQ(v.at("failing_gpus").size(), 1u) << v.dump(1);
    const auto& gpu = v.at("failing_gpus").at(0);
    EXPECT_EQ(gpu.at("uuid"), "GPU-f019a044-451a-99a1-45ac-33c45eb89f02");
    EXPECT_EQ(gpu.at("index"), 0);
    EXPECT_EQ(gpu.at("checks"), nlohmann::json::array({"health.ecc", "async.copy.bandwidth"}));
    // A disturbed failure names no GPU: it decides nothing.
    result(doc, "health.ecc")["status"] = "pass";
    result(doc, "async.copy.bandwidth")["disturbance"] = {{"summary", "pid 7 used 97% of GPU 0"}};
    EXPECT_TRUE(verdict_of(doc).at("failing_gpus").empty());
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
