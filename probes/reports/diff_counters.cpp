// The health counters `diff` judges by growth: errors a GPU records and never forgets until a
// reset or a reboot (docs/gpu-health.md). One that grew between two runs of the same node is a
// regression named with its GPU, even when both runs passed (a correctable count under the limit,
// a replay count DCGM judges only as a rate).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "reports/diff.hpp"

namespace gpuconform {

namespace {

struct Counter {
    const char* check;
    const char* measurement;
    const char* words;
};

// Correctable ECC errors are left out: corrected by design and counted by the thousand on healthy
// HBM; the rows they remapped are in.
constexpr std::array<Counter, 11> k_counters{{
    {"health.ecc", "aggregate_uncorrected", "ECC uncorrectable"},
    {"health.ecc", "volatile_uncorrected", "ECC uncorrectable since the driver loaded"},
    {"health.memory_remap", "remapped_rows_uncorrectable", "rows remapped (uncorrectable)"},
    {"health.memory_remap", "remapped_rows_correctable", "rows remapped (correctable)"},
    {"health.memory_remap", "banks_without_spare_rows", "banks without spare rows"},
    {"health.memory_remap", "retired_pages_double_bit", "pages retired (double-bit)"},
    {"health.memory_remap", "retired_pages_single_bit", "pages retired (single-bit)"},
    {"health.pcie_errors", "pcie_replays", "PCIe replays"},
    {"health.pcie_errors", "aer_nonfatal", "PCIe AER non-fatal errors"},
    {"health.pcie_errors", "aer_fatal", "PCIe AER fatal errors"},
    {"health.xid", "events", "Xid events since boot"},
}};

const Counter* find_counter(const std::string& id, const std::string& name) {
    for (const auto& c : k_counters) {
        if (id == c.check && name == c.measurement) {
            return &c;
        }
    }
    return nullptr;
}

}  // namespace

std::string CounterGrowth::text() const { return fmt::format("{} +{:g} on {}", counter, now - base, gpu); }

bool is_health_counter(const std::string& id, const std::string& name) { return find_counter(id, name) != nullptr; }

std::vector<CounterGrowth> grown_counters(const DiffSide& base, const DiffSide& now) {
    std::vector<CounterGrowth> out;
    for (const auto& [key, b] : base.figures) {
        const auto& [label, name] = key;
        const auto open = label.find(" [");
        const Counter* counter = find_counter(label.substr(0, open), name);
        const auto it = now.figures.find(key);
        if (counter == nullptr || open == std::string::npos || !label.ends_with(']') || it == now.figures.end() ||
            b.medians.empty() || it->second.medians.empty()) {
            continue;
        }
        // The highest value each side saw: a counter only grows between resets.
        const double was = *std::max_element(b.medians.begin(), b.medians.end());
        const double is = *std::max_element(it->second.medians.begin(), it->second.medians.end());
        if (is > was) {
            out.push_back({"", label.substr(open + 2, label.size() - open - 3), counter->words, was, is});
        }
    }
    return out;
}

}  // namespace gpuconform
