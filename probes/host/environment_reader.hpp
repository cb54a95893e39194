// Reading the environment fingerprint and writing it as JSON: what host/ defines. The data
// itself (core/environment.hpp) is part of the core's vocabulary; reading it is the host
// layer's job, so the dependency runs one way: host/ and runner/ include core/, never back.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/environment.hpp"

namespace gpuconform {

// Reads everything below `root` ("/" on a real host; a folder of samples in tests).
Environment collect_environment(const std::string& root = "/");

void to_json(nlohmann::json& j, const Environment& e);
void to_json(nlohmann::json& j, const PciGpu& g);

// Theoretical per-direction bytes/s of a PCIe link: GT/s × lanes × encoding efficiency / 8.
std::optional<double> pcie_link_bytes_per_s(double speed_gts, int width);
// PCIe generation from the per-lane rate (2.5→1, 5→2, 8→3, 16→4, 32→5, 64→6).
int pcie_generation(double speed_gts);

}  // namespace gpuconform
