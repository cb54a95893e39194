// libFuzzer harness over the report reader and the single-report views: any bytes either are
// rejected with a reason or are rendered; nothing may crash, hang or throw out of here, and
// nlohmann::json (render's document) accepts every text the scan (simdjson) accepted.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "render_report.hpp"
#include "report_scan.hpp"

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
    for (const char* format : {"terminal", "markdown", "csv", "json"}) {
        (void)gpuconform::render_report(doc, format, false, "");
    }
    return 0;
}
