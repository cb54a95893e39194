// Hostile report files: each case crashed, hung or was misread by the roll-up before the one
// reader (read_report_file) checked what it reads. Each must now be rejected by name with a reason.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "render_report.hpp"
#include "report_builder.hpp"
#include "report_scan.hpp"
#include "report_set.hpp"

namespace gpuconform {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("gpuconform-hostile-" + name + "-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

nlohmann::json good_report() {
    return test::make_report("run-1", "node1", "Debian", "NVIDIA H200",
                             {{"host.memlock", "pass"}, {"async.copy.bw", "info", 0, {{"bw", 1.5}}}});
}

struct TypeCase {
    const char* what;
    std::function<void(nlohmann::json&)> spoil;
    const char* reason;
};

TEST(HostileReports, WrongTypesInFieldsTheReaderUsesAreRejectedNamingTheField) {
    const std::vector<TypeCase> cases = {
        {"result without id", [](auto& d) { d["results"][0].erase("id"); }, "no id"},
        {"id a number", [](auto& d) { d["results"][0]["id"] = 7; }, "id"},
        {"status an object", [](auto& d) { d["results"][0]["status"] = nlohmann::json::object(); }, "status"},
        {"measurement value a string", [](auto& d) { d["results"][1]["measurements"][0]["value"] = "fast"; }, "value"},
        {"measurement name a list", [](auto& d) { d["results"][1]["measurements"][0]["name"] = {1}; }, "name"},
        {"device negative", [](auto& d) { d["results"][1]["device"] = -1; }, "device"},
        {"device fractional", [](auto& d) { d["results"][1]["device"] = 1.5; }, "device"},
        {"device huge", [](auto& d) { d["results"][1]["device"] = 1e300; }, "device"},
        {"schema_version a list",
         [](auto& d) {
             d["schema_version"] = {1, 0};
         },
         "schema_version"},
        {"run id a number", [](auto& d) { d["run"]["id"] = 3; }, "id"},
    };
    for (const auto& c : cases) {
        auto doc = good_report();
        c.spoil(doc);
        std::string error;
        EXPECT_FALSE(scan_report(doc.dump(), true, error)) << c.what;
        EXPECT_NE(error.find(c.reason), std::string::npos) << c.what << ": " << error;
    }
}

TEST(HostileReports, DeepNestingIsRejectedBeforeAnyParserRecurses) {
    auto doc = good_report();
    doc["results"][0]["facts"] = nlohmann::json::object();  // a member the scan itself skips
    std::string text = doc.dump();
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    text.replace(text.find("\"facts\":{}") + 8, 2, deep);
    std::string error;
    EXPECT_FALSE(scan_report(text, false, error));
    EXPECT_NE(error.find("nested deeper"), std::string::npos) << error;
}

TEST(HostileReports, MatrixDiffAndRenderAcceptAndRejectTheSameFiles) {
    const fs::path dir = fresh_dir("same");
    std::ofstream(dir / "good.json") << good_report().dump();
    auto bad = good_report();
    bad["results"][1]["measurements"][0]["value"] = "fast";
    std::ofstream(dir / "bad.json") << bad.dump();
    ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0644), 0);
    fs::create_directory_symlink(dir, dir / "loop");  // a loop, never followed
    fs::create_symlink(dir / "missing.json", dir / "dangling.json");

    ReadOptions o;
    o.measurements = true;
    const ReportSet set = read_reports({dir.string()}, o);
    ASSERT_EQ(set.runs.size(), 1u);
    EXPECT_EQ(set.runs[0].path, (dir / "good.json").string());
    std::set<std::string> rejected;
    for (const auto& r : set.rejected) {
        rejected.insert(fs::path(r.path).filename().string());
        EXPECT_FALSE(r.reason.empty()) << r.path;
    }
    EXPECT_EQ(rejected, (std::set<std::string>{"bad.json", "fifo.json", "dangling.json"}));

    for (const char* name : {"good.json", "bad.json", "fifo.json", "dangling.json"}) {
        std::string error;
        const bool rendered = load_report((dir / name).string(), error).has_value();
        EXPECT_EQ(rendered, std::string(name) == "good.json") << name << ": " << error;
    }
    std::string error;
    EXPECT_FALSE(load_report(dir.string(), error));
    EXPECT_NE(error.find("folder"), std::string::npos) << error;
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuconform
