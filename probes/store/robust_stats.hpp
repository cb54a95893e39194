// Statistics that one bad night or one broken GPU cannot drag: median, MAD, quantiles, and the
// Theil-Sen slope with Kendall's tau for trends (https://en.wikipedia.org/wiki/Theil%E2%80%93Sen_estimator).
#pragma once

#include <vector>

namespace gpuconform::store {

// Quantile q in [0, 1], linear between order statistics (numpy's default); 0 for no values.
double quantile(std::vector<double> values, double q);
inline double median(std::vector<double> values) { return quantile(std::move(values), 0.5); }
// Median absolute deviation, scaled by 1.4826 so that it estimates a normal spread's sigma.
double scaled_mad(const std::vector<double>& values);

struct Trend {
    double slope = 0.0;      // Theil-Sen: the median of every pair's slope, per unit of x
    double intercept = 0.0;  // median of y - slope * x
    double tau = 0.0;        // Kendall's tau of (x, y): +1 always rising, -1 always falling
    double noise = 0.0;      // scaled MAD of the residuals around the trend line
};
Trend theil_sen(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace gpuconform::store
