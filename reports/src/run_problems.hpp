// How a report's `causes` name the results they explain. The problems and causes themselves are
// read by the report scan (report_scan.hpp) with the rest of the roll-up's fields.
#pragma once

#include <string>

namespace gpuconform {

// Whether a cause's results entry ("id" or "id[cuda:0]") names this result label ("id\x1fcuda:0").
bool cause_names_label(const std::string& cause_result, const std::string& label);

}  // namespace gpuconform
