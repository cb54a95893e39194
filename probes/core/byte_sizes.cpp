#include "core/byte_sizes.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace gpuconform {

namespace {

constexpr std::array<std::pair<const char*, std::uint64_t>, 5> k_units_descending{
    {{"PiB", 1ULL << 50}, {"TiB", 1ULL << 40}, {"GiB", 1ULL << 30}, {"MiB", 1ULL << 20}, {"KiB", 1ULL << 10}}};

}  // namespace

std::string size_label(std::uint64_t bytes) {
    for (const auto& [name, factor] : k_units_descending) {
        if (bytes >= factor && bytes % factor == 0) {
            return fmt::format("{}{}", bytes / factor, name);
        }
    }
    return fmt::format("{}B", bytes);
}

std::string size_words(std::uint64_t bytes) {
    for (const auto& [name, factor] : k_units_descending) {
        if (bytes >= factor) {
            const double v = static_cast<double>(bytes) / static_cast<double>(factor);
            return v < 1000.0 ? fmt::format("{:.3g} {}", v, name) : fmt::format("{:.0f} {}", v, name);
        }
    }
    return fmt::format("{} B", bytes);
}

}  // namespace gpuconform
