// One report's views (render: html, terminal, markdown) put the verdict and causes first, then
// failures, errors and warnings, then the rest; the headline is the root failure; counts count
// what they say; --only-problems leaves out what asks nothing of anyone.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "reports/render_report.hpp"
#include "report_builder.hpp"
#include "reports/rollup_cli.hpp"
#include "reports/run_problems.hpp"

namespace gpuconform {
namespace {

// Info results before the failure, as a run writes them (host checks first).
nlohmann::json faulted() {
    return test::make_report("r1", "node-a", "Debian 12", "H200",
                             {{"host.distro", "info"},
                              {"host.kernel", "info"},
                              {"host.pcie.link", "skip"},
                              {"async.copy.bandwidth", "pass", 0},
                              {"async.overlap.copy_compute", "error", 0},
                              {"async.copy.pinned_returns_early", "fail", 0},
                              {"async.copy.numa_locality", "warn", 0},
                              {"framework.torch.build", "skip"}});
}

std::string page_of(const nlohmann::json& doc, bool only_problems = false) {
    return render_report_page(doc, ReportSet{}, only_problems);
}

std::size_t at(const std::string& text, const std::string& needle) {
    const std::size_t pos = text.find(needle);
    EXPECT_NE(pos, std::string::npos) << "no " << needle;
    return pos;
}

TEST(ReportPage, FailCardBeforeTheFirstInfoCardAndTheRestFolded) {
    const std::string out = page_of(faulted());
    const std::size_t fail = at(out, "data-status=\"fail\"");
    EXPECT_LT(fail, at(out, "data-status=\"error\""));
    EXPECT_LT(at(out, "data-status=\"error\""), at(out, "data-status=\"warn\""));
    EXPECT_LT(at(out, "data-status=\"warn\""), at(out, "<details id=\"other-results\">"));
    EXPECT_LT(at(out, "<details id=\"other-results\">"), at(out, "data-status=\"info\""));
    EXPECT_NE(out.find("<summary>5 other results: 1 pass · 2 info · 2 skip</summary>"), std::string::npos) << out;
}

TEST(ReportPage, OpensWithTheVerdictLineInTheDecidedWords) {
    const std::string out = page_of(faulted());
    const std::size_t line = at(out, "id=\"verdict-line\" class=\"verdict-line v-fail\"");
    EXPECT_NE(out.find("<span id=\"verdict\">fail</span>"), std::string::npos);
    EXPECT_NE(out.find("<span id=\"reason\">1 check failed; 1 check could not run (error)</span>"), std::string::npos);
    EXPECT_LT(line, at(out, "<section class=\"result"));
    const std::string body = out.substr(at(out, "<body>"), at(out, "<script>") - at(out, "<body>"));
    for (const char* old : {"rejected", "accepted", "need action"}) {
        EXPECT_EQ(body.find(old), std::string::npos) << old;
    }
    nlohmann::json errored = test::make_report("r2", "n", "D", "G", {{"host.env", "pass"}, {"async.x", "error", 0}});
    EXPECT_NE(page_of(errored).find("<span id=\"verdict\">inconclusive</span>"), std::string::npos);
    nlohmann::json clean = test::make_report("r3", "n", "D", "G", {{"host.env", "pass"}});
    EXPECT_NE(page_of(clean).find("<span id=\"verdict\">pass</span>"), std::string::npos);
    clean["summary"]["verdict"] = "interrupted";  // a stopped run of schema 1.2 could not be judged
    EXPECT_NE(page_of(clean).find("<span id=\"verdict\">inconclusive</span>"), std::string::npos);
}

TEST(ReportPage, StatusFilterOffersEachStatusPresentWorstFirst) {
    const std::string out = page_of(faulted());
    const std::size_t filter = at(out, "<fieldset id=\"result-filter\">");
    std::size_t last = filter;
    for (const char* box :
         {"value=\"fail\" checked> fail (1)", "value=\"error\" checked> error (1)", "value=\"warn\" checked> warn (1)",
          "value=\"skip\" checked> skip (2)", "value=\"info\" checked> info (2)", "value=\"pass\" checked> pass (1)"}) {
        const std::size_t pos = at(out, box);
        EXPECT_GT(pos, last) << box;
        last = pos;
    }
    EXPECT_LT(last, at(out, "<section class=\"result"));
}

TEST(ReportPage, HeadlineIsTheRootFailureAndCountsOnlyFailAndError) {
    // The error comes first in the file, but a fail outranks it; skips and warns are not counted.
    ReportProblems p = read_report_problems(faulted());
    EXPECT_EQ(p.headline,
              "async.copy.pinned_returns_early [cuda:0] fail: async.copy.pinned_returns_early was fail "
              "(+1 more: 1 error)");
    nlohmann::json doc = test::make_report(
        "r", "n", "D", "G",
        {{"async.b", "error", 0}, {"async.a", "error", 0}, {"host.x", "skip"}, {"host.y", "skip"}, {"host.z", "warn"}});
    doc["results"][0]["summary"] = "could not judge: see async.a.";  // a consequence of async.a
    p = read_report_problems(doc);
    EXPECT_EQ(p.headline, "async.a [cuda:0] error: async.a was error (+1 more: 1 error)");
    // A cause that names the root failure is the headline, and what it explains is not "more".
    doc["causes"] = {{{"id", "env:CUDA_LAUNCH_BLOCKING"},
                      {"kind", "env_var"},
                      {"title", "CUDA_LAUNCH_BLOCKING=1 is set"},
                      {"fix", "unset CUDA_LAUNCH_BLOCKING"},
                      {"results", {"async.a[cuda:0]", "async.b[cuda:0]"}}}};
    p = read_report_problems(doc);
    EXPECT_EQ(p.headline, "CUDA_LAUNCH_BLOCKING=1 is set");
    const std::string out = page_of(doc);
    EXPECT_LT(at(out, "<strong>Root failure:</strong> <span id=\"headline-text\">CUDA_LAUNCH_BLOCKING=1 is set"),
              at(out, "<ol id=\"causes\""));
    EXPECT_NE(out.find("<strong>Fix:</strong> unset CUDA_LAUNCH_BLOCKING"), std::string::npos);
    EXPECT_NE(out.find("<a href=\"#result-1\" class=\"st-error\">async.a [cuda:0]</a>"), std::string::npos);
    EXPECT_LT(at(out, "<ol id=\"causes\""), at(out, "<section class=\"result"));
}

TEST(ReportPage, CausesOfFailuresComeBeforeCausesOfSkips) {
    nlohmann::json doc =
        test::make_report("r", "n", "D", "G", {{"host.pcie.link", "skip"}, {"async.copy.bandwidth", "fail", 0}});
    doc["causes"] = {
        {{"id", "no_driver"}, {"kind", "no_driver"}, {"title", "no driver"}, {"results", {"host.pcie.link"}}},
        {{"id", "busy"}, {"kind", "busy_gpu"}, {"title", "GPU busy"}, {"results", {"async.copy.bandwidth"}}}};
    const ReportProblems p = read_report_problems(doc);
    ASSERT_EQ(p.causes.size(), 2u);
    EXPECT_EQ(p.causes[0].title, "GPU busy");
    EXPECT_EQ(p.headline, "GPU busy");
}

TEST(ReportTerminal, VerdictCausesProblemsThenTheRest) {
    nlohmann::json doc = faulted();
    doc["causes"] = {{{"kind", "check"},
                      {"title", "pinned copies block"},
                      {"fix", "check CUDA_LAUNCH_BLOCKING"},
                      {"results", {"async.copy.pinned_returns_early[cuda:0]"}}}};
    const std::string out = render_report_terminal(doc, false);
    const std::size_t verdict = at(out, "\nverdict: FAIL — 1 check failed; 1 check could not run (error)\n");
    EXPECT_LT(verdict, at(out, "root failure: pinned copies block (+1 more: 1 error)\n"));
    EXPECT_LT(verdict, at(out, "  * pinned copies block [check]\n"));
    EXPECT_LT(at(out, "    fix: check CUDA_LAUNCH_BLOCKING\n"), at(out, "Failures, errors and warnings (3):"));
    EXPECT_LT(at(out, "fail  async.copy.pinned_returns_early"), at(out, "error async.overlap.copy_compute"));
    EXPECT_LT(at(out, "warn  async.copy.numa_locality"), at(out, "Other results (1 pass · 2 info · 2 skip):"));
    EXPECT_LT(at(out, "Other results"), at(out, "info  host.distro"));
}

TEST(ReportMarkdown, VerdictBeforeTheTablesFailuresFirst) {
    const std::string out = render_report_markdown(faulted());
    const std::size_t verdict = at(out, "**Verdict: fail** — 1 check failed; 1 check could not run (error)");
    EXPECT_LT(verdict, at(out, "## Failures, errors and warnings (3)"));
    EXPECT_LT(at(out, "`async.copy.pinned_returns_early`"), at(out, "## Other results (1 pass · 2 info · 2 skip)"));
    EXPECT_LT(at(out, "## Other results"), at(out, "`host.distro`"));
}

TEST(OnlyProblems, HumanViewsCountWhatTheyLeaveOut) {
    const nlohmann::json doc = faulted();
    for (const std::string& out :
         {render_report_terminal(doc, false, true), render_report_markdown(doc, true), page_of(doc, true)}) {
        EXPECT_NE(out.find("async.copy.pinned_returns_early"), std::string::npos);
        EXPECT_NE(out.find("async.copy.numa_locality"), std::string::npos);
        EXPECT_NE(out.find("5 other results: 1 pass · 2 info · 2 skip (not shown"), std::string::npos) << out;
        EXPECT_EQ(out.find("host.distro"), std::string::npos);
        EXPECT_EQ(out.find("async.copy.bandwidth"), std::string::npos);
        EXPECT_NE(out.find("fail"), std::string::npos);
    }
    const std::string page = page_of(doc, true);
    EXPECT_EQ(page.find("id=\"other-results\""), std::string::npos);
    EXPECT_EQ(page.find("value=\"info\""), std::string::npos);
}

class OnlyProblemsCli : public ::testing::Test {
protected:
    test::ScratchDir dir{"only-problems"};
    // Runs the roll-up commands as the executable does; returns the exit status.
    int run(std::vector<std::string> args) {
        CLI::App app("gpuconform");
        int code = -1;
        add_rollup_commands(app, code);
        args.insert(args.begin(), "gpuconform");
        std::vector<const char*> argv;
        for (const auto& a : args) {
            argv.push_back(a.c_str());
        }
        app.parse(static_cast<int>(argv.size()), argv.data());
        return code;
    }
    std::string read(const std::string& path) {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
};

TEST_F(OnlyProblemsCli, RenderLeavesPassInfoAndSkipOutOfEveryResultList) {
    const std::string report = dir.write("r.json", faulted().dump());
    const std::string out = dir.path() + "/out";
    ASSERT_EQ(run({"render", report, "-f", "csv", "--only-problems", "-o", out}), 0);
    const std::string csv = read(out);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4) << csv;  // the header and 3 problems
    EXPECT_EQ(csv.find("host.distro"), std::string::npos);
    ASSERT_EQ(run({"render", report, "-f", "junit", "--only-problems", "-o", out}), 0);
    const std::string junit = read(out);
    EXPECT_NE(junit.find("<failure"), std::string::npos);
    EXPECT_EQ(junit.find("host.distro"), std::string::npos);
    EXPECT_EQ(junit.find("<skipped"), std::string::npos);
    ASSERT_EQ(run({"render", report, "-f", "json", "--only-problems", "-o", out}), 0);
    const auto json = nlohmann::json::parse(read(out));
    EXPECT_EQ(json["results"].size(), 3u);
    EXPECT_EQ(json["summary"], faulted()["summary"]);  // the run's summary, not the shown part's
    ASSERT_EQ(run({"render", report, "-f", "terminal", "-o", out}), 0);
    EXPECT_NE(read(out).find("info  host.distro"), std::string::npos);  // without the flag all is there
}

TEST_F(OnlyProblemsCli, MatrixKeepsChecksAndGroupsWithAProblem) {
    dir.write(
        "a.json",
        test::make_report("r1", "a", "Debian 12", "H200", {{"host.env", "pass"}, {"async.copy", "fail", 0}}).dump());
    dir.write("b.json", test::make_report("r2", "b", "Debian 13", "H200", {{"host.env", "pass"}}).dump());
    const std::string out = dir.path() + "/matrix.csv";
    ASSERT_EQ(
        run({"matrix", dir.path() + "/a.json", dir.path() + "/b.json", "-f", "csv", "--only-problems", "-o", out}), 1);
    const std::string csv = read(out);
    EXPECT_NE(csv.find("async.copy,Debian 12,H200,fail"), std::string::npos) << csv;
    EXPECT_EQ(csv.find("host.env"), std::string::npos) << csv;
    EXPECT_EQ(csv.find("Debian 13"), std::string::npos) << csv;
    // The acceptance record lists every node; the flag is refused there rather than ignored.
    EXPECT_EQ(run({"matrix", dir.path() + "/a.json", "--by", "host", "--only-problems", "-o", out}), 2);
}

}  // namespace
}  // namespace gpuconform
