// Every view, fed every hostile string and a size far past the 4 KiB bound, through the one
// escaping layer (text_escape.hpp): terminal, Markdown, CSV, JSON, JUnit, Prometheus and HTML of
// one report, and the same of a folder (the matrix views). What each view must never write:
// a terminal escape or a bidi override as such (terminal, Markdown, HTML, JUnit), a character XML
// 1.0 forbids (JUnit, HTML, checked by xmllint, the parser CI tools use), a string longer than
// the bound (a 256 KiB summary once became megabytes of JUnit per case). A control character in
// a distro name must not move the report to another group.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "reports/junit.hpp"
#include "reports/matrix.hpp"
#include "reports/render_html.hpp"
#include "reports/render_matrix.hpp"
#include "reports/render_prometheus.hpp"
#include "reports/render_report.hpp"
#include "report_builder.hpp"
#include "reports/report_set.hpp"

namespace gpuconform {
namespace {

const std::string k_esc = "\x1b";
const std::string k_rlo = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE
const std::string k_lri = "\xe2\x81\xa6";  // U+2066 LEFT-TO-RIGHT ISOLATE
const std::string k_fffe = "\xef\xbf\xbe";
const std::string k_ffff = "\xef\xbf\xbf";

const std::vector<std::string>& hostile_strings() {
    static const std::vector<std::string> strings = {
        "term" + k_esc + "[31mred" + k_esc + "]0;title\x07",
        "unit\x1f"
        "sep\x01\x7f",
        "bidi" + k_rlo + "evil" + k_lri + "x",
        "nonchar" + k_fffe + k_ffff,
        "c1\xc2\x9b"
        "31m",
        "<script>alert(1)</script>&\"'|`*_",
        "line\nbreak\r\nand\ttab",
        std::string(256 * 1024, 'x'),  // far past the 4 KiB bound
    };
    return strings;
}

// One report whose every string field holds `s`, with 20 results.
nlohmann::json hostile_report(const std::string& s, const std::string& run) {
    std::vector<test::ResultSpec> results;
    for (int i = 0; i < 20; ++i) {
        results.push_back({"async.copy.bw" + std::to_string(i), i % 2 ? "fail" : "warn", i % 4, {{s, 1.5}}});
    }
    auto doc = test::make_report(run, "host-" + s, "Distro " + s, "GPU " + s, results);
    for (auto& r : doc["results"]) {
        r["summary"] = "summary " + s;
        r["remediation"] = "fix " + s;
    }
    doc["environment"]["kernel"] = "6.1.0";
    return doc;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

// xmllint, the parser behind most CI tools' XML readers, accepts `text` as well-formed XML (or,
// with `html`, as HTML without errors about characters).
std::string xmllint_problem(const std::string& text, bool html) {
    if (std::system("command -v xmllint >/dev/null 2>&1") != 0) {
        return "";
    }
    test::ScratchDir dir{"xmllint"};
    const std::string path = dir.write(html ? "v.html" : "v.xml", text);
    const std::string cmd =
        std::string("xmllint --noout ") + (html ? "--html " : "") + "'" + path + "' 2>&1 | head -c 2000";
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, p) != nullptr) {
            out += buf;
        }
        pclose(p);
    }
    // HTML parsing warns about tags HTML 4 does not know (svg); a character problem is an error.
    if (html) {
        return contains(out, "Char 0x") || contains(out, "invalid char") || contains(out, "not UTF-8") ? out : "";
    }
    return out;
}

struct View {
    const char* name;
    std::string text;
    bool markup;    // HTML or XML: escapes and bidi controls must not pass, nor XML's forbidden characters
    bool terminal;  // read by a person in a terminal or Markdown viewer
    bool bounded;   // JSON carries the data itself; every other view bounds each string
};

std::vector<View> views_of(const std::string& s) {
    test::ScratchDir dir{"allviews"};
    const nlohmann::json doc = hostile_report(s, "run-1");
    const std::string path = dir.write("r1.json", doc.dump());
    dir.write("r2.json", hostile_report(s, "run-2").dump());
    ReadOptions o;
    o.measurements = true;
    o.problems = true;
    o.detail_runs = 10;
    const ReportSet set = read_reports({dir.path()}, o);
    const Matrix m = build_matrix(set, {GroupKey::Distro, GroupKey::Kernel});
    return {
        {"render terminal", render_report(doc, "terminal", false, path), false, true, true},
        {"render markdown", render_report(doc, "markdown", false, path), false, true, true},
        {"render csv", render_report(doc, "csv", false, path), false, false, true},
        {"render json", render_report(doc, "json", false, path), false, false, false},
        {"render junit", render_report(doc, "junit", false, path), true, false, true},
        // Metric names are made from measurement names (prometheus_names.cpp), not bounded yet.
        {"render prometheus", render_report(doc, "prometheus", false, path), false, false, false},
        {"render html", render_report(doc, "html", false, path), true, false, true},
        {"matrix terminal", render_matrix_terminal(m, false), false, true, true},
        {"matrix markdown", render_matrix_markdown(m), false, true, true},
        {"matrix csv", render_matrix_csv(m), false, false, true},
        {"matrix json", matrix_to_json(m).dump(2, ' ', false, nlohmann::json::error_handler_t::replace), false, false,
         false},
        {"matrix junit", render_matrix_junit(m), true, false, true},
        {"matrix prometheus", render_matrix_prometheus(m), false, false, false},
        {"matrix html", render_html(m, set), true, false, true},
    };
}

TEST(HostileStringsAllViews, EveryViewEscapesAndBoundsEveryHostileString) {
    for (const std::string& s : hostile_strings()) {
        const std::string label = s.size() > 64 ? std::to_string(s.size()) + " bytes" : nlohmann::json(s).dump();
        for (const View& v : views_of(s)) {
            SCOPED_TRACE(std::string(v.name) + " of " + label);
            if (v.markup || v.terminal) {
                EXPECT_FALSE(contains(v.text, k_esc)) << "a terminal escape passed";
                EXPECT_FALSE(contains(v.text, k_rlo) || contains(v.text, k_lri)) << "a bidi control passed";
                EXPECT_FALSE(contains(v.text, "\xc2\x9b")) << "a C1 control passed";
            }
            if (v.markup) {
                EXPECT_FALSE(contains(v.text, k_fffe) || contains(v.text, k_ffff)) << "U+FFFE/U+FFFF in XML";
                EXPECT_FALSE(contains(v.text, "<script>alert")) << "markup passed as markup";
                const bool html = std::string(v.name).ends_with("html");
                EXPECT_EQ(xmllint_problem(v.text, html), "");
            }
            if (v.bounded) {
                // 20 results, each string at most 4 KiB (escaping may grow it a few times): far under
                // the input's 20 × 256 KiB several times over.
                EXPECT_LT(v.text.size(), 3u << 20) << "a string was not bounded";
            }
        }
    }
}

TEST(HostileStringsAllViews, AControlCharacterInADistroNameNeverMovesTheReportToAnotherGroup) {
    test::ScratchDir dir{"groupsep"};
    auto doc = test::make_report("run-1", "node1",
                                 "Debian 12\x1f"
                                 "6.99.9",
                                 "NVIDIA H200", {{"host.memlock", "pass"}});
    doc["environment"]["kernel"] = "6.1.0";
    dir.write("r.json", doc.dump());
    ReadOptions o;
    const ReportSet set = read_reports({dir.path()}, o);
    ASSERT_EQ(set.runs.size(), 1u);
    const GroupValues& g = set.groups_of(set.runs[0]);
    EXPECT_EQ(g[static_cast<int>(GroupKey::Kernel)], "6.1.0");
    EXPECT_EQ(g[static_cast<int>(GroupKey::Distro)],
              "Debian 12\x1f"
              "6.99.9");
    EXPECT_EQ(g[static_cast<int>(GroupKey::Host)], "node1");
    EXPECT_EQ(split_pair(join_pair("a\x1f"
                                   "b",
                                   "c")),
              (std::pair<std::string, std::string>{"a\x1f"
                                                   "b",
                                                   "c"}));
    EXPECT_EQ(split_fields(join_fields({"", "1:x", "\x1f"})), (std::vector<std::string>{"", "1:x", "\x1f"}));
}

}  // namespace
}  // namespace gpuconform
