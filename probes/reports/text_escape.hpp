// Escaping for every text format the roll-up writes. Check ids, host names and summaries come
// from machines we do not control, so every renderer passes them through one of these.
#pragma once

#include <string>
#include <string_view>

namespace gpuconform {

// The most of one string any view prints; longer ones are cut with a note of how much more.
inline constexpr std::size_t k_max_view_bytes = 4096;

// `s` cut to at most `max_bytes` (at a UTF-8 boundary) plus "… (N bytes more)".
std::string bounded(std::string_view s, std::size_t max_bytes);

// Control characters (C0, DEL, C1) and bidirectional overrides/isolates (U+202A-202E,
// U+2066-2069) written as visible \xNN / \uNNNN escapes: shown, never obeyed.
std::string strip_unsafe(std::string_view s);

// XML/HTML text and attribute values, the one escape of every HTML page and JUnit file: bounded
// to k_max_view_bytes; & < > " ' escaped; what XML 1.0 cannot carry at all is dropped
// (surrogates, U+FFFE, U+FFFF) or becomes U+FFFD (C0 controls, bytes not UTF-8); bidi overrides and
// isolates, DEL and C1 controls become visible \uNNNN / \xNN (a U+202E in a host name never
// reorders a cell); tab, newline and CR become character references.
std::string xml_escape(std::string_view s);

// One CSV field per RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled;
// a leading = + - @ tab or CR prefixed with ' so spreadsheets do not run it; bounded length.
std::string csv_field(std::string_view s);

// A Prometheus label value per the text exposition format: backslash, quote and newline escaped;
// bounded.
std::string prometheus_label(std::string_view s);

// A Prometheus HELP text per the exposition format: backslash and newline escaped (a raw newline
// would start a forged line; a raw backslash makes the textfile collector drop the file); bounded.
std::string prometheus_help(std::string_view s);

// Markdown table cell: pipes and HTML-significant characters escaped, newlines flattened,
// control and bidi characters made visible, bounded length.
std::string markdown_cell(std::string_view s);

// Terminal text: control and bidi characters (ANSI escapes from a hostile host name) made
// visible, bounded length.
std::string terminal_safe(std::string_view s);

}  // namespace gpuconform
