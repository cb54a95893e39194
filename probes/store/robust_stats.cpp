#include "store/robust_stats.hpp"

#include <algorithm>
#include <cmath>

namespace gpuconform::store {

double quantile(std::vector<double> values, double q) {
    if (values.empty()) {
        return 0.0;
    }
    std::sort(values.begin(), values.end());
    const double at = q * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (at - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

double scaled_mad(const std::vector<double>& values) {
    const double m = median(values);
    std::vector<double> deviations;
    deviations.reserve(values.size());
    for (const double v : values) {
        deviations.push_back(std::fabs(v - m));
    }
    return 1.4826 * median(std::move(deviations));
}

Trend theil_sen(const std::vector<double>& x, const std::vector<double>& y) {
    Trend t;
    const std::size_t n = std::min(x.size(), y.size());
    std::vector<double> slopes;
    long long concordant = 0;
    long long discordant = 0;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const double dx = x[j] - x[i];
            const double dy = y[j] - y[i];
            if (dx != 0.0) {
                slopes.push_back(dy / dx);
            }
            const double sign = dx * dy;
            concordant += sign > 0 ? 1 : 0;
            discordant += sign < 0 ? 1 : 0;
        }
    }
    if (slopes.empty()) {
        return t;
    }
    t.slope = median(std::move(slopes));
    std::vector<double> offsets;
    for (std::size_t i = 0; i < n; ++i) {
        offsets.push_back(y[i] - t.slope * x[i]);
    }
    t.intercept = median(offsets);
    std::vector<double> residuals;
    for (std::size_t i = 0; i < n; ++i) {
        residuals.push_back(y[i] - (t.intercept + t.slope * x[i]));
    }
    t.noise = scaled_mad(residuals);
    const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2.0;
    t.tau = static_cast<double>(concordant - discordant) / pairs;
    return t;
}

}  // namespace gpuconform::store
