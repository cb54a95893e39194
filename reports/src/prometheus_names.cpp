#include "prometheus_names.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "text_escape.hpp"

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
constexpr std::array<UnitRule, 9> k_units{{
    {"s", "seconds", 1.0, {"s", "sec", ""}},
    {"ms", "seconds", 1e-3, {"ms", "", ""}},
    {"us", "seconds", 1e-6, {"us", "", ""}},
    {"ns", "seconds", 1e-9, {"ns", "", ""}},
    {"GB/s", "bytes_per_second", 1e9, {"gbps", "gb_s", ""}},
    {"GiB/s", "bytes_per_second", 1073741824.0, {"gibps", "gib_s", ""}},
    {"MB/s", "bytes_per_second", 1e6, {"mbps", "mb_s", ""}},
    {"bytes", "bytes", 1.0, {"bytes", "", ""}},
    {"ratio", "ratio", 1.0, {"ratio", "", ""}},
}};

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

PrometheusQuantity prometheus_quantity(std::string_view check_id, std::string_view name, std::string_view unit) {
    PrometheusQuantity q;
    q.unit = std::string(unit);
    const UnitRule* rule = nullptr;
    for (const auto& r : k_units) {
        if (r.unit == unit) {
            rule = &r;
        }
    }
    // Words promtool reads as abbreviated units ("kernel_b_alone") join the word before them,
    // and a trailing count/total (reserved suffixes) is dropped: the metric is a gauge.
    constexpr std::array<std::string_view, 14> k_unit_lookalikes{"s",  "ms", "us", "ns", "sec", "b", "kb",
                                                                 "mb", "gb", "tb", "pb", "m",   "h", "d"};
    std::string quantity;
    auto words = split_words(prometheus_name_part(name));
    if (words.size() > 1 && (words.back() == "count" || words.back() == "total")) {
        words.pop_back();
    }
    for (const auto& word : words) {
        bool is_unit = false;
        for (const auto token : rule ? rule->name_tokens : std::array<std::string_view, 3>{}) {
            is_unit = is_unit || (!token.empty() && word == token);
        }
        const bool lookalike =
            std::find(k_unit_lookalikes.begin(), k_unit_lookalikes.end(), word) != k_unit_lookalikes.end();
        if (is_unit) {
            continue;
        }
        quantity += (quantity.empty() || lookalike ? "" : "_") + word;
    }
    q.metric = "gpuconform_" + prometheus_name_part(check_id);
    if (!quantity.empty()) {
        q.metric += "_" + quantity;
    }
    if (rule != nullptr) {
        q.scale = rule->scale;
        if (!rule->suffix.empty()) {
            q.metric += '_';  // appended piecewise: "_" + string trips GCC 12's false -Wrestrict (PR 105651)
            q.metric += rule->suffix;
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
