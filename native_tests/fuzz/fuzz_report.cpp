// libFuzzer harness over the report reader, the single-report views and the verdict path: any
// bytes either are rejected with a reason or are rendered and judged; nothing may crash, hang or
// throw out of here, nlohmann::json (render's document) accepts every text the scan (simdjson)
// accepted, and no view passes what the escaping layer (text_escape.hpp) must stop: a terminal
// escape or a bidi override in the terminal, Markdown or JUnit view, U+FFFE/U+FFFF in JUnit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "reports/render_report.hpp"
#include "reports/report_scan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string error;
    if (!gpuconform::scan_report(text, true, error)) {
        if (error.empty()) {
            __builtin_trap();  // a rejection must say why
        }
        return 0;
    }
    // Accepted by the scan: render's path parses the whole document and shows it. Both readers
    // validate the whole text, so one accepting what the other refuses is a bug.
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded()) {
        __builtin_trap();
    }
    if (!gpuconform::report_header_error(doc).empty()) {
        return 0;
    }
    for (const char* format : {"terminal", "markdown", "csv", "json", "junit", "prometheus", "timings"}) {
        const std::string out = gpuconform::render_report(doc, format, false, "");
        const std::string_view f = format;
        const bool read_by_people = f == "terminal" || f == "markdown" || f == "junit";
        if (read_by_people &&
            (out.find('\x1b') != std::string::npos || out.find("\xe2\x80\xae") != std::string::npos)) {
            __builtin_trap();  // an escape sequence or U+202E passed the escaping layer
        }
        if (f == "junit" &&
            (out.find("\xef\xbf\xbe") != std::string::npos || out.find("\xef\xbf\xbf") != std::string::npos)) {
            __builtin_trap();  // XML 1.0 cannot carry U+FFFE/U+FFFF
        }
    }
    // The verdict path: the one rule (core/run_verdict) every fleet script reads through.
    const nlohmann::json verdict = gpuconform::report_verdict_json(doc);
    const std::string v = verdict.value("verdict", "");
    if (v != "pass" && v != "fail" && v != "inconclusive") {
        __builtin_trap();
    }
    return 0;
}
