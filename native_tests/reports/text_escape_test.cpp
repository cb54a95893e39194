#include <gtest/gtest.h>

#include "reports/text_escape.hpp"

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

TEST(TextEscape, MarkdownCellsCannotBreakTheTable) { EXPECT_EQ(markdown_cell("a|b\n<i>"), "a\\|b &lt;i&gt;"); }

TEST(TextEscape, CsvCellsAreNeverRunAsFormulas) {
    EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
    for (const char* lead : {"+1", "-1", "@SUM(A1)", "\tx", "\rx"}) {
        EXPECT_EQ(csv_field(lead).find('\''), csv_field(lead)[0] == '"' ? 1u : 0u) << lead;
    }
    EXPECT_EQ(csv_field("1+1"), "1+1");  // only a leading sign is a formula
}

TEST(TextEscape, BidiOverridesAndC1ControlsAreShownNotObeyed) {
    // U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+009B (C1 CSI)
    EXPECT_EQ(terminal_safe("a\u202Eb\u2066c\u009Bd"), "a\\u202eb\\u2066c\\u009bd");
    EXPECT_EQ(markdown_cell("x\u202Ey\x1b[2J"), "x\\u202ey\\x1b[2J");
    EXPECT_EQ(terminal_safe("caf\u00e9 \u2192"), "caf\u00e9 \u2192");  // ordinary UTF-8 passes
}

// The one escape of every HTML page and JUnit file: nothing XML 1.0 forbids, no bidi control
// obeyed, no byte that is not UTF-8.
TEST(TextEscape, XmlCarriesOnlyWhatXmlAllowsAndShowsBidiControls) {
    EXPECT_EQ(xml_escape("a\uFFFEb\uFFFFc"), "abc");
    EXPECT_EQ(xml_escape("host\u202Eevil\u2066x"), "host\\u202eevil\\u2066x");
    EXPECT_EQ(xml_escape("c1\u009Bx\x7f"), "c1\\u009bx\\x7f");
    EXPECT_EQ(xml_escape(std::string("bad\xff\xfe") + "\xed\xa0\x80"), "bad\uFFFD\uFFFD");
    EXPECT_EQ(xml_escape("caf\u00e9 \u2192 \U0001F600"), "caf\u00e9 \u2192 \U0001F600");  // ordinary UTF-8 passes
}

TEST(TextEscape, EveryViewBoundsTheLengthOfAString) {
    const std::string huge(10u << 20, 'h');
    for (const std::string& out :
         {terminal_safe(huge), markdown_cell(huge), csv_field(huge), xml_escape(huge), prometheus_label(huge)}) {
        EXPECT_LT(out.size(), k_max_view_bytes + 64);
        EXPECT_NE(out.find("bytes more"), std::string::npos);
    }
    const std::string accents(5000, 'x');
    EXPECT_EQ(bounded(accents + "\u00e9", 5001), accents + "… (2 bytes more)");  // not split mid-character
}

}  // namespace
}  // namespace gpuconform
