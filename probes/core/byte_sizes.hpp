// Sizes in bytes as every view writes them: one spelling per size in names and labels, one in
// sentences.
#pragma once

#include <cstdint>
#include <string>

namespace gpuconform {

// "64KiB", "16MiB", "1GiB": the largest binary unit that divides `bytes` exactly, else "1000B".
// Measurement names, metric labels and chart axes use it, so 65536 and 64KiB are one size.
std::string size_label(std::uint64_t bytes);

// "8 GiB", "1.5 GiB", "64 KiB", "512 B": three significant digits, for sentences.
std::string size_words(std::uint64_t bytes);

}  // namespace gpuconform
