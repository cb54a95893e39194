// What is normal, learned from the store: per key figure and group (GPU model x driver branch x
// link x profile) the median, a robust spread and quantiles of every stored value; then the
// figures of a night that leave their group's baseline or their node's sibling GPUs, and the
// groups whose driver change moved a figure.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/figure_baseline.hpp"
#include "store/database.hpp"
#include "store/store_read.hpp"

namespace gpuconform::store {

using Baseline = FigureBaseline;

// Baselines from the figures of runs started in [since, until) ("" no bound).
std::vector<Baseline> learn_baselines(Database& db, const std::string& since, const std::string& until);

struct JudgeSettings {
    long long min_runs = 20;            // a baseline of fewer runs judges nothing (said so in the output)
    double threshold = 4.0;             // how many spreads below (or above, for lower-is-better) is an outlier
    double min_relative_spread = 0.01;  // the spread is never taken below this share of the median
};

// The night's outliers against the baselines learned from the runs before it, against the
// node's sibling GPUs, and the groups whose driver change moved a figure, as one JSON object:
// {"night": {...}, "group_outliers": [...], "sibling_outliers": [...], "driver_shifts": [...],
//  "not_judged": [...]}.
// With `frozen` (a profile's `baselines` section), the night is judged against those instead of
// what the store learned, and the driver shifts are those among them.
nlohmann::json find_outliers(Database& db, const Window& night, const JudgeSettings& settings,
                             const FrozenBaselines* frozen = nullptr);

nlohmann::json baselines_json(const std::vector<Baseline>& baselines);

}  // namespace gpuconform::store
