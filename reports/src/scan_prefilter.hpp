// A speed-up for scan_report, not a parser: one tight pass that drops whitespace and the
// members the roll-up never reads (summaries, facts, ...), so the JSON library's SAX pass
// sees a fifth of the bytes. The output is still parsed by nlohmann::json;
// malformed text inside a dropped value is not noticed, truncation is (reports/bench/README.md).
#pragma once

#include <string>
#include <string_view>

namespace gpuconform {

// Writes the reduced text to `out`. Returns false when the text ends inside a string or a
// dropped value (a truncated file); `out` then holds what was read so far.
bool prefilter_report(std::string_view in, bool keep_measurements, std::string& out);

}  // namespace gpuconform
