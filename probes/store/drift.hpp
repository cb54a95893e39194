// Slow declines per node: over a node's last N nights under unchanged software (its newest run's
// group), each key figure's nightly value (the median over its GPUs) gets a Theil-Sen trend;
// a decline is named when it is large, beyond the residual noise, and steady (Kendall's tau, more
// so than chance makes any of the series judged together).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "store/database.hpp"

namespace gpuconform::store {

struct DriftSettings {
    int nights = 30;            // the window: runs started in the N days before the newest run
    int min_nights = 7;         // fewer runs under the same group: not judged
    double min_decline = 0.05;  // total decline over the window, as a share of the median
    double noise_factor = 3.0;  // the decline must exceed this many residual spreads
    double min_tau = 0.4;       // and be this steady (|Kendall's tau|)
    // Across a fleet thousands of series are judged at once, and a steady-looking fall turns up
    // in noise by chance: the fall must also be steadier than chance would make any of them,
    // at this probability for the whole set judged (Kendall's test, Bonferroni-corrected).
    double false_alarm = 0.01;
    std::string host;  // one node only; "" every node
};

// A JSON array, one object per node and figure that declines.
nlohmann::json find_drift(Database& db, const DriftSettings& settings);

}  // namespace gpuconform::store
