// Tolerant field access into a report document: renderers show what is there and an empty
// string for what is not, rather than refusing a whole report over one missing fingerprint field.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace gpuconform {

// The string at a JSON pointer ("/environment/hostname"); numbers are formatted; "" otherwise.
std::string string_at(const nlohmann::json& doc, const std::string& pointer);

// A result read without throwing on optional fields; an unknown status reads as error.
// Throws only when the entry is not an object or lacks an id.
CheckResult result_from_json_lenient(const nlohmann::json& j);

// "gpu" model of a report: the first device's name, else the PCI vendor of the first GPU
// on the bus, else "no GPU".
std::string gpu_model(const nlohmann::json& report);

}  // namespace gpuconform
