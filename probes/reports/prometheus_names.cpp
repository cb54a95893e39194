#include "reports/prometheus_names.hpp"

#include "core/byte_sizes.hpp"  // one spelling per size: 65536 and 64KiB are "64KiB"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <vector>

#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

struct UnitRule {
    std::string_view unit;    // as the report writes it
    std::string_view suffix;  // base unit in the metric name ("" for plain numbers)
    double scale;
    std::array<std::string_view, 3> name_tokens;  // unit spellings dropped from the measurement name
};

// Counts (count, kernels, trials, ...) get no suffix: `_count` and `_total` mean histogram and
// counter to Prometheus, and these are gauges.
constexpr std::array<UnitRule, 14> k_units{{
    {"s", "seconds", 1.0, {"s", "sec", ""}},
    {"ms", "seconds", 1e-3, {"ms", "", ""}},
    {"us", "seconds", 1e-6, {"us", "", ""}},
    {"ns", "seconds", 1e-9, {"ns", "", ""}},
    {"GB/s", "bytes_per_second", 1e9, {"gbps", "gb_s", ""}},
    {"GiB/s", "bytes_per_second", 1073741824.0, {"gibps", "gib_s", ""}},
    {"MB/s", "bytes_per_second", 1e6, {"mbps", "mb_s", ""}},
    {"bytes", "bytes", 1.0, {"bytes", "", ""}},
    {"ratio", "ratio", 1.0, {"ratio", "", ""}},
    {"%", "ratio", 0.01, {"percent", "pct", ""}},
    {"\u00b0C", "celsius", 1.0, {"c", "celsius", ""}},
    {"mW", "watts", 1e-3, {"mw", "", ""}},
    {"W", "watts", 1.0, {"w", "", ""}},
    {"GT/s", "transfers_per_second", 1e9, {"gts", "gt_s", ""}},
}};

// Abbreviations spelled out in metric names.
// The most of a metric name's quantity part (between "gpuconform_" and the unit suffix).
constexpr std::size_t k_max_quantity_bytes = 128;

constexpr std::array<std::pair<std::string_view, std::string_view>, 1> k_spelled_out{{{"bw", "bandwidth"}}};

constexpr std::array<std::string_view, 3> k_memory_kinds{"pageable", "pinned", "registered"};

std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> out;
    std::string word;
    for (const char c : s) {
        if (c == '_') {
            if (!word.empty()) {
                out.push_back(word);
            }
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) {
        out.push_back(word);
    }
    return out;
}

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "64kib" -> 65536, "1048576" (a bare number of at least 1024: a size in bytes) -> 1048576.
std::optional<unsigned long long> size_in_bytes(std::string_view word) {
    std::size_t digits = 0;
    while (digits < word.size() && word[digits] >= '0' && word[digits] <= '9') {
        ++digits;
    }
    if (digits == 0 || digits > 15) {
        return std::nullopt;
    }
    const unsigned long long n = std::stoull(std::string(word.substr(0, digits)));
    const std::string_view suffix = word.substr(digits);
    constexpr std::array<std::pair<std::string_view, unsigned long long>, 4> k_sizes{
        {{"b", 1ULL}, {"kib", 1ULL << 10}, {"mib", 1ULL << 20}, {"gib", 1ULL << 30}}};
    if (suffix.empty()) {
        return n >= 1024 ? std::optional(n) : std::nullopt;
    }
    for (const auto& [name, factor] : k_sizes) {
        if (suffix == name) {
            return n * factor;
        }
    }
    return std::nullopt;
}

// "0000:00:06.0 current_speed": a PCI address before the name (host.pcie.link) is a label.
bool is_pci_address(std::string_view s) {
    // domain:bus:device.function, hex digits: 0000:00:06.0
    if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') {
        return false;
    }
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; });
}

}  // namespace

std::string prometheus_name_part(std::string_view s) {
    std::string out;
    for (const char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (ok) {
            out += c;
        } else if (c >= 'A' && c <= 'Z') {
            out += static_cast<char>(c - 'A' + 'a');
        } else if (!out.empty() && out.back() != '_') {
            out += '_';
        }
    }
    while (!out.empty() && out.back() == '_') {
        out.pop_back();
    }
    return out;
}

PrometheusQuantity prometheus_quantity(std::string_view name, std::string_view unit) {
    PrometheusQuantity q;
    q.unit = std::string(unit);
    const UnitRule* rule = nullptr;
    for (const auto& r : k_units) {
        if (r.unit == unit) {
            rule = &r;
        }
    }
    std::string pci;
    if (const auto space = name.find(' '); space != std::string_view::npos && is_pci_address(name.substr(0, space))) {
        pci = std::string(name.substr(0, space));
        name.remove_prefix(space + 1);
    }
    auto words = split_words(prometheus_name_part(name));
    // A trailing count/total (reserved suffixes) is dropped, the metric is a gauge:
    // device_count -> devices, small_copies_total -> small_copies.
    if (words.size() > 1 && (words.back() == "count" || words.back() == "total")) {
        const bool count = words.back() == "count";
        words.pop_back();
        if (count && words.back().back() != 's') {
            words.back() += 's';
        }
    }
    std::string direction;
    std::string size;
    std::string streams;
    std::vector<std::string> quantity;  // words left for the name, memory kinds still among them
    std::vector<std::size_t> memory_at;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        const bool is_unit = rule != nullptr && std::find(rule->name_tokens.begin(), rule->name_tokens.end(), word) !=
                                                    rule->name_tokens.end();
        const auto to = word.find("to");
        const bool peer = to != std::string::npos && all_digits(std::string_view(word).substr(0, to)) &&
                          all_digits(std::string_view(word).substr(to + 2));
        if (is_unit) {
            continue;
        }
        if (direction.empty() && (word == "h2d" || word == "d2h" || word == "bidirectional" || peer)) {
            direction = word;
        } else if (const auto bytes = size_in_bytes(word); bytes && size.empty()) {
            size = size_label(*bytes);
        } else if (streams.empty() && all_digits(word) && i + 1 < words.size() && words[i + 1] == "streams") {
            streams = word;
            ++i;
        } else {
            if (std::find(k_memory_kinds.begin(), k_memory_kinds.end(), word) != k_memory_kinds.end()) {
                memory_at.push_back(quantity.size());
            }
            quantity.push_back(word);
        }
    }
    // One memory kind is a label; two ("pinned_over_pageable") are the quantity itself, and so is
    // one that is all there is ("pinned_bytes").
    std::string memory;
    if (memory_at.size() == 1 && quantity.size() > 1) {
        memory = quantity[memory_at.front()];
        quantity.erase(quantity.begin() + static_cast<std::ptrdiff_t>(memory_at.front()));
    }
    // Words promtool reads as abbreviated units ("kernel_b_alone") join the word before them.
    constexpr std::array<std::string_view, 14> k_unit_lookalikes{"s",  "ms", "us", "ns", "sec", "b", "kb",
                                                                 "mb", "gb", "tb", "pb", "m",   "h", "d"};
    std::string joined;
    for (std::string word : quantity) {
        for (const auto& [abbreviation, spelled] : k_spelled_out) {
            if (word == abbreviation) {
                word = std::string(spelled);
            }
        }
        const bool lookalike =
            std::find(k_unit_lookalikes.begin(), k_unit_lookalikes.end(), word) != k_unit_lookalikes.end();
        joined += (joined.empty() || lookalike ? "" : "_") + word;
    }
    // Bounded like every string a view prints: a measurement name of a megabyte would be a metric
    // name of a megabyte. A long one keeps its start and a hash of the whole, so two long names
    // stay two metrics.
    if (joined.size() > k_max_quantity_bytes) {
        std::uint64_t hash = 1469598103934665603ull;  // FNV-1a, 64 bits
        for (const char c : joined) {
            hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
        }
        joined = fmt::format("{}_{:016x}", std::string_view(joined).substr(0, k_max_quantity_bytes - 17), hash);
    }
    q.metric = "gpuconform_" + (joined.empty() ? std::string("value") : joined);
    if (rule != nullptr) {
        q.scale = rule->scale;
        if (!rule->suffix.empty()) {
            q.metric += '_';  // appended piecewise: "_" + string trips GCC 12's false -Wrestrict (PR 105651)
            q.metric += rule->suffix;
        }
    }
    for (const auto& [label, value] : {std::pair<const char*, const std::string&>{"pci_address", pci},
                                       {"memory", memory},
                                       {"direction", direction},
                                       {"size", size},
                                       {"streams", streams}}) {
        if (!value.empty()) {
            q.labels.emplace_back(label, value);
        }
    }
    return q;
}

std::string bounded_label_value(std::string_view s) {
    if (s.size() <= k_max_label_bytes) {
        return prometheus_label(s);
    }
    std::size_t cut = k_max_label_bytes - 3;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
        --cut;  // never split a UTF-8 sequence
    }
    return prometheus_label(std::string(s.substr(0, cut)) + "...");
}

}  // namespace gpuconform
