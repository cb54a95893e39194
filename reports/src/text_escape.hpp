// Escaping for every text format the roll-up writes. Check ids, host names and summaries come
// from machines we do not control, so every renderer passes them through one of these.
#pragma once

#include <string>
#include <string_view>

namespace gpuconform {

// XML/HTML text and attribute values: & < > " ' escaped; control characters that XML 1.0
// cannot carry at all become U+FFFD; tab, newline and CR become character references.
std::string xml_escape(std::string_view s);

// One CSV field per RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled.
std::string csv_field(std::string_view s);

// A Prometheus label value per the text exposition format: backslash, quote and newline escaped.
std::string prometheus_label(std::string_view s);

// Markdown table cell: pipes and HTML-significant characters escaped, newlines flattened.
std::string markdown_cell(std::string_view s);

// Terminal text: control characters (ANSI escapes from a hostile host name) made visible.
std::string terminal_safe(std::string_view s);

}  // namespace gpuconform
