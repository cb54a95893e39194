#include <gtest/gtest.h>

#include "reports/junit.hpp"
#include "report_builder.hpp"

namespace gpuconform {
namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
    std::size_t n = 0;
    for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) {
        ++n;
    }
    return n;
}

TEST(JUnit, OneSuitePerLayerAndOneCasePerResult) {
    const auto report = test::make_report("r1", "node1", "Debian 12", "NVIDIA H200",
                                          {{"host.memlock", "pass"},
                                           {"host.kernel", "info"},
                                           {"async.copy.pinned", "fail", 0},
                                           {"async.copy.pinned", "error", 1},
                                           {"runtime.load", "skip"}});
    const std::string xml = render_junit(report);
    EXPECT_EQ(count(xml, "<testsuite "), 3u);
    EXPECT_EQ(count(xml, "<testcase "), 5u);
    EXPECT_EQ(count(xml, "<failure "), 1u);
    EXPECT_EQ(count(xml, "<error "), 1u);
    EXPECT_EQ(count(xml, "<skipped "), 1u);
    EXPECT_EQ(count(xml, "<system-out>"), 2u);
    EXPECT_NE(xml.find("name=\"async.copy.pinned [cuda:1]\""), std::string::npos);
    EXPECT_NE(xml.find("<testsuites name=\"gpuconform\" tests=\"5\" failures=\"1\" errors=\"1\" time="),
              std::string::npos);
}

TEST(JUnit, CaseNamesCarryTheHostSoMergedFleetFilesStayApart) {
    const auto a =
        render_junit(test::make_report("r1", "node1", "Debian 12", "NVIDIA H200", {{"host.memlock", "pass"}}));
    const auto b =
        render_junit(test::make_report("r2", "node2", "Debian 12", "NVIDIA H200", {{"host.memlock", "pass"}}));
    EXPECT_NE(a.find("<testcase classname=\"gpuconform.node1.host\" name=\"host.memlock\""), std::string::npos) << a;
    EXPECT_NE(b.find("<testcase classname=\"gpuconform.node2.host\" name=\"host.memlock\""), std::string::npos) << b;
    EXPECT_NE(a.find("<testsuite name=\"gpuconform.node1.host\""), std::string::npos);
}

TEST(JUnit, CharactersXmlForbidsAreDropped) {
    auto report = test::make_report("r1", "node1", "Debian 12", "NVIDIA H200", {{"host.memlock", "fail"}});
    // U+FFFE, U+FFFF, an encoded surrogate (U+D800), a lone continuation byte and a control character.
    report["results"][0]["summary"] =
        "a"
        "\xEF\xBF\xBE"
        "b"
        "\xEF\xBF\xBF"
        "c"
        "\xED\xA0\x80"
        "d"
        "\x80"
        "e"
        "\x01"
        "f \xC3\xA9";
    const std::string xml = render_junit(report);
    EXPECT_EQ(xml.find("\xEF\xBF\xBE"), std::string::npos);
    EXPECT_EQ(xml.find("\xEF\xBF\xBF"), std::string::npos);
    EXPECT_EQ(xml.find("\xED\xA0\x80"), std::string::npos);
    EXPECT_NE(xml.find("message=\"abcd\xEF\xBF\xBD"
                       "e\xEF\xBF\xBD"
                       "f \xC3\xA9\""),
              std::string::npos)
        << xml;
}

TEST(JUnit, HostileTextFromTheReportIsEscaped) {
    const auto report = test::load_json(test::data_file("hostile_host.json"));
    const std::string xml = render_junit(report);
    EXPECT_EQ(xml.find("<script>"), std::string::npos);
    EXPECT_EQ(xml.find("</failure><x>"), std::string::npos);
    EXPECT_EQ(xml.find('\x1b'), std::string::npos);
    EXPECT_NE(xml.find("&lt;/failure&gt;&lt;x&gt;"), std::string::npos);
}

}  // namespace
}  // namespace gpuconform
