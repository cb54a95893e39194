// Hostile report files: each case crashed, hung or was misread by the roll-up before the one
// reader (read_report_file) checked what it reads. Each must now be rejected by name with a reason.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "reports/matrix.hpp"
#include "reports/render_html.hpp"
#include "reports/render_report.hpp"
#include "report_builder.hpp"
#include "reports/report_scan.hpp"
#include "reports/report_set.hpp"
#include "reports/fleet.hpp"

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

// The HTML drill-down reads facts.timeline, environment.pci_gpus and each measurement from the
// documents of its detailed runs; wrong types there aborted `matrix -f html` (uncaught type_error)
// while the other views went on. The one reader now refuses them by name, so every view rejects
// the same file; what it merely skips (a measurement that is no object) never reaches a chart.
TEST(HostileReports, FieldsTheHtmlPageReadsAreCheckedByTheOneReader) {
    const auto overlap = [](nlohmann::json v) {
        return [v](nlohmann::json& d) { d["results"][1]["facts"]["timeline"] = v; };
    };
    const auto pci = [](nlohmann::json v) { return [v](nlohmann::json& d) { d["environment"]["pci_gpus"] = v; }; };
    const std::vector<TypeCase> rejected = {
        {"timeline a string", overlap("x"), "timeline"},
        {"timeline label a number", overlap({{{"label", 5}, {"start_ms", 0}, {"end_ms", 1}}}), "label"},
        {"timeline start a string", overlap({{{"label", "a"}, {"start_ms", "0"}, {"end_ms", 1}}}), "start_ms"},
        {"timeline entry a number", overlap({5}), "timeline"},
        {"pci_gpus an object", pci({{"a", 1}}), "pci_gpus"},
        {"pci_gpus entry a number", pci({5}), "pci_gpus"},
        {"link speed a string", pci({{{"vendor", "nvidia"}, {"current_speed_gts", "fast"}, {"current_width", 16}}}),
         "current_speed_gts"},
        {"link width a string", pci({{{"vendor", "nvidia"}, {"current_speed_gts", 16.0}, {"current_width", "x16"}}}),
         "current_width"},
    };
    const std::vector<TypeCase> skipped = {
        {"measurements an object",
         [](auto& d) {
             d["results"][1]["measurements"] = {{"a", 1}};
         },
         ""},
        {"measurement a number",
         [](auto& d) {
             d["results"][1]["measurements"] = {5, "x"};
         },
         ""},
        {"link speed unknown (null, as the writer writes it)",
         pci({{{"vendor", "nvidia"}, {"current_speed_gts", nullptr}, {"current_width", nullptr}}}), ""},
        {"timeline null", overlap(nullptr), ""},
    };
    const fs::path dir = fresh_dir("html");
    std::size_t n = 0;
    for (const auto* cases : {&rejected, &skipped}) {
        for (const auto& c : *cases) {
            auto doc = good_report();
            doc["run"]["id"] = "run-" + std::to_string(++n);
            doc["results"][1]["device"] = 0;
            c.spoil(doc);
            std::ofstream(dir / (std::to_string(n) + ".json")) << doc.dump();
        }
    }
    ReadOptions o;
    o.measurements = true;
    o.problems = true;
    o.detail_runs = k_html_detail_runs;
    const ReportSet set = read_reports({dir.string()}, o);
    EXPECT_EQ(set.runs.size(), skipped.size());
    ASSERT_EQ(set.rejected.size(), rejected.size());
    for (const auto& r : set.rejected) {
        const std::size_t i = std::stoul(fs::path(r.path).stem().string()) - 1;
        ASSERT_LT(i, rejected.size()) << r.path << ": " << r.reason;
        EXPECT_NE(r.reason.find(rejected[i].reason), std::string::npos) << rejected[i].what << ": " << r.reason;
    }
    const Matrix m = build_matrix(set, {GroupKey::Distro, GroupKey::Gpu});
    EXPECT_NO_THROW((void)render_html(m, set));
    EXPECT_NO_THROW((void)render_acceptance_html(build_fleet(set), m, set));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuconform
