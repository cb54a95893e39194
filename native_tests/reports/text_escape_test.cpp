#include <gtest/gtest.h>

#include "text_escape.hpp"

namespace gpuconform {
namespace {

struct EscapeCase {
    std::string in;
    std::string xml;
    std::string csv;
    std::string prometheus;
};

TEST(TextEscape, EachFormatEscapesWhatItsGrammarReserves) {
    const std::vector<EscapeCase> cases = {
        {"plain", "plain", "plain", "plain"},
        {"<script>", "&lt;script&gt;", "<script>", "<script>"},
        {"a&b \"q\" 'x'", "a&amp;b &quot;q&quot; &#39;x&#39;", "\"a&b \"\"q\"\" 'x'\"", "a&b \\\"q\\\" 'x'"},
        {"a,b", "a,b", "\"a,b\"", "a,b"},
        {"line1\nline2", "line1&#10;line2", "\"line1\nline2\"", "line1\\nline2"},
        {"back\\slash", "back\\slash", "back\\slash", "back\\\\slash"},
        {std::string("esc\x1b[31m"), "esc\xEF\xBF\xBD[31m", std::string("esc\x1b[31m"), std::string("esc\x1b[31m")},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(xml_escape(c.in), c.xml) << c.in;
        EXPECT_EQ(csv_field(c.in), c.csv) << c.in;
        EXPECT_EQ(prometheus_label(c.in), c.prometheus) << c.in;
    }
}

TEST(TextEscape, TerminalTextCannotCarryEscapeSequences) {
    EXPECT_EQ(terminal_safe("host\x1b[2J\n"), "host\\x1b[2J\\x0a");
}

TEST(TextEscape, MarkdownCellsCannotBreakTheTable) {
    EXPECT_EQ(markdown_cell("a|b\n<i>"), "a\\|b &lt;i&gt;");
}

}  // namespace
}  // namespace gpuconform
