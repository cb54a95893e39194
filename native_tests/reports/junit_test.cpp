#include <gtest/gtest.h>

#include "junit.hpp"
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
                                          {{"host.memlock", "pass"}, {"host.kernel", "info"},
                                           {"async.copy.pinned", "fail", 0}, {"async.copy.pinned", "error", 1},
                                           {"runtime.load", "skip"}});
    const std::string xml = render_junit(report);
    EXPECT_EQ(count(xml, "<testsuite "), 3u);
    EXPECT_EQ(count(xml, "<testcase "), 5u);
    EXPECT_EQ(count(xml, "<failure "), 2u);
    EXPECT_EQ(count(xml, "<skipped "), 1u);
    EXPECT_EQ(count(xml, "<system-out>"), 2u);
    EXPECT_NE(xml.find("name=\"async.copy.pinned [cuda:1]\""), std::string::npos);
    EXPECT_NE(xml.find("<testsuites name=\"gpuconform\" tests=\"5\" failures=\"2\""), std::string::npos);
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
