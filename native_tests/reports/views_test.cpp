// Every view escapes what comes from the machines: a host named `<script>` renders as text.
#include <gtest/gtest.h>

#include "reports/fleet.hpp"
#include "reports/render_html.hpp"
#include "reports/render_matrix.hpp"
#include "reports/render_prometheus.hpp"
#include "reports/render_report.hpp"
#include "report_builder.hpp"

namespace gpuconform {
namespace {

const char* const k_raw_script = "<script>alert";

class HostileViews : public ::testing::Test {
protected:
    test::ScratchDir dir{"views"};
    ReportSet set;
    Matrix m;
    nlohmann::json doc = test::load_json(test::data_file("hostile_host.json"));
    void SetUp() override {
        dir.write("hostile.json", doc.dump());
        dir.write("bad\"name<b>.json", "{");
        ReadOptions o;
        o.measurements = true;
        o.detail_runs = 10;
        set = read_reports({dir.path()}, o);
        m = build_matrix(set, {GroupKey::Distro, GroupKey::Host});
        ASSERT_EQ(m.run_hosts.size(), 1u);
    }
};

TEST_F(HostileViews, TerminalCarriesNoEscapeSequencesFromData) {
    const std::string out = render_matrix_terminal(m, false) + render_report_terminal(doc, false);
    EXPECT_EQ(out.find('\x1b'), std::string::npos);
    EXPECT_NE(out.find("bad\"name<b>.json"), std::string::npos);  // the rejected file is named
}

TEST_F(HostileViews, MarkdownShowsTagsAsText) {
    const std::string out = render_matrix_markdown(m) + render_report_markdown(doc);
    EXPECT_EQ(out.find(k_raw_script), std::string::npos);
    EXPECT_NE(out.find("&lt;script&gt;"), std::string::npos);
}

TEST_F(HostileViews, CsvQuotesFieldsWithCommasQuotesAndNewlines) {
    const std::string out = render_matrix_csv(m);
    EXPECT_NE(out.find("\"<script>alert(\"\"x\"\")</script>&node,1\n"), std::string::npos) << out;
    EXPECT_NE(out.find(",rejected,"), std::string::npos);
}

TEST_F(HostileViews, JsonRoundTripsTheHostName) {
    const auto j = nlohmann::json::parse(matrix_to_json(m).dump());
    EXPECT_EQ(j["columns"][0]["group"]["host"], doc["environment"]["hostname"]);
    EXPECT_EQ(j["inputs"]["rejected"].size(), 1u);
}

TEST_F(HostileViews, PrometheusLabelsAreEscaped) {
    const std::string out = render_report_prometheus(doc) + render_matrix_prometheus(m);
    EXPECT_NE(out.find(R"(gpuconform_info{host="<script>alert(\"x\")</script>&node,1\n)"), std::string::npos) << out;
    EXPECT_NE(out.find("gpuconform_check_status{check=\"async.copy.pinned_returns_early\",device=\"cuda:0\""),
              std::string::npos);
    EXPECT_NE(out.find("gpuconform_bandwidth_bytes_per_second{check=\"async.copy.bandwidth\",device=\"cuda:0\","
                       "memory=\"pinned\",direction=\"h2d\",size=\"256MiB\"}"),
              std::string::npos);
    for (std::size_t pos = 0, next; (next = out.find('\n', pos)) != std::string::npos; pos = next + 1) {
        const std::string line = out.substr(pos, next - pos);
        EXPECT_TRUE(line.rfind("# ", 0) == 0 || line.rfind("gpuconform_", 0) == 0) << line;
    }
}

TEST_F(HostileViews, HtmlRendersHostNamesAndMessagesAsText) {
    const std::string out = render_html(m, set);
    EXPECT_EQ(out.find(k_raw_script), std::string::npos);
    EXPECT_EQ(out.find("</failure><x>"), std::string::npos);
    EXPECT_NE(out.find("&lt;script&gt;alert"), std::string::npos);
    EXPECT_EQ(out.find("http://"), std::string::npos);  // nothing fetched from the network
    EXPECT_EQ(out.find("https://"), std::string::npos);
}

TEST_F(HostileViews, HtmlChartsBandwidthAndTimeline) {
    const std::string out = render_html(m, set);
    EXPECT_NE(out.find("class=\"chart bandwidth\""), std::string::npos);
    EXPECT_NE(out.find("h2d_pinned_bw"), std::string::npos);
    EXPECT_NE(out.find("class=\"chart timeline overlap\""), std::string::npos);
    EXPECT_NE(out.find("kernel &lt;k&gt;"), std::string::npos);
}

}  // namespace
}  // namespace gpuconform

namespace gpuconform {
namespace {

TEST(HtmlCharts, SizesInBytesOrBinaryUnitsPlaceTheSamePoint) {
    test::ScratchDir dir("charts");
    dir.write("a.json",
              test::make_report(
                  "r1", "h1", "D", "G",
                  {{"async.copy.bandwidth",
                    "info",
                    0,
                    {{"bw_pinned_H2D_1MiB", 10.0}, {"bw_pinned_H2D_268435456", 50.0}, {"not_a_size_xMiB", 1.0}}}})
                  .dump());
    ReadOptions o;
    o.measurements = true;
    const ReportSet set = read_reports({dir.path()}, o);
    const std::string out = bandwidth_charts_html(build_matrix(set, k_default_group_keys), set);
    EXPECT_NE(out.find("<title>bw_pinned_H2D 1MiB: 10.00 GB/s"), std::string::npos) << out;
    EXPECT_NE(out.find("<title>bw_pinned_H2D 256MiB: 50.00 GB/s"), std::string::npos) << out;
    EXPECT_EQ(out.find("not_a_size"), std::string::npos);
}

}  // namespace
}  // namespace gpuconform

namespace gpuconform {
namespace {

TEST(HtmlCharts, TicksStepByOneTwoOrFive) {
    EXPECT_DOUBLE_EQ(nice_step(66.0, 5), 20.0);
    EXPECT_DOUBLE_EQ(nice_step(7.0, 5), 2.0);
    EXPECT_DOUBLE_EQ(nice_step(0.9, 5), 0.2);
    EXPECT_DOUBLE_EQ(nice_step(240.0, 5), 50.0);
    EXPECT_DOUBLE_EQ(nice_step(0.0, 5), 1.0);
}

}  // namespace
}  // namespace gpuconform
