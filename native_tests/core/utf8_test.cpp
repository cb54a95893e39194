// Bytes from the environment, the kernel or a library become valid UTF-8 without losing them.
#include <gtest/gtest.h>

#include "core/utf8.hpp"

namespace gpuconform {
namespace {

TEST(Utf8, ReplacesOnlyWhatIsInvalid) {
    struct Row {
        std::string in, valid, escaped;
        bool was_valid;
    };
    const std::vector<Row> rows{
        {"0,1", "0,1", "0,1", true},
        {"\xff", "\xEF\xBF\xBD", "\\xff", false},
        {"GPU-\xc3\xa9", "GPU-\xc3\xa9", "GPU-\\xc3\\xa9", true},                            // é stays
        {"\xc0\xaf", "\xEF\xBF\xBD\xEF\xBF\xBD", "\\xc0\\xaf", false},                       // overlong '/'
        {"\xed\xa0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", "\\xed\\xa0\\x80", false},  // a surrogate
        {"a\xe2\x82", "a\xEF\xBF\xBD\xEF\xBF\xBD", "a\\xe2\\x82", false},                    // truncated €
        {std::string("a\0b", 3), std::string("a\0b", 3), "a\\x00b", true},
    };
    for (const auto& row : rows) {
        EXPECT_EQ(is_valid_utf8(row.in), row.was_valid) << row.escaped;
        EXPECT_EQ(to_valid_utf8(row.in), row.valid) << row.escaped;
        EXPECT_TRUE(is_valid_utf8(to_valid_utf8(row.in))) << row.escaped;
        EXPECT_EQ(escape_bytes(row.in), row.escaped);
    }
}

}  // namespace
}  // namespace gpuconform
