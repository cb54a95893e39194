#include "core/nearest_name.hpp"

#include <algorithm>

namespace gpuconform {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates) {
    constexpr std::size_t k_longest = 256;  // a name longer than any we know is no typo of one
    if (name.size() > k_longest) {
        return "";
    }
    const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
    std::string best;
    std::size_t best_distance = limit + 1;
    for (const auto& c : candidates) {
        const std::size_t d = edit_distance(name, c);
        if (d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    return best;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
    const std::string near = nearest_name(name, candidates);
    return near.empty() ? "" : " (did you mean '" + near + "'?)";
}

}  // namespace gpuconform
