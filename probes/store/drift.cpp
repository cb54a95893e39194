#include "store/drift.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "store/robust_stats.hpp"
#include "store/store_time.hpp"

namespace gpuconform::store {

namespace {

struct NightValues {
    std::string started;
    std::string group;
    std::vector<double> values;  // one per GPU
};

struct Series {
    std::string host, check, name, unit, direction;
    std::map<std::string, NightValues> runs;  // by run id
};

// Kendall's tau of n untied points has mean 0 and this variance when there is no trend.
double tau_sd(std::size_t n) {
    const double m = static_cast<double>(n);
    return std::sqrt(2.0 * (2.0 * m + 5.0) / (9.0 * m * (m - 1.0)));
}

// z such that a standard normal falls below -z with probability p (bisection on erfc).
double normal_quantile_below(double p) {
    double lo = 0.0, hi = 40.0;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

struct Candidate {
    const Series* series;
    std::vector<double> y;
    std::vector<std::string> started;  // each night's start, for y
    Trend trend;
    double median = 0, fall = 0;
};

}  // namespace

nlohmann::json find_drift(Database& db, const DriftSettings& s) {
    const Value newest = db.query("SELECT max(started) FROM figures").rows.at(0).at(0);
    nlohmann::json out = nlohmann::json::array();
    if (!newest) {
        return out;
    }
    const std::string since = shifted(*newest, -86400LL * s.nights).value_or("");
    std::string sql =
        "SELECT host, run_id, started, check_id, name, unit, direction, gpu, driver_branch, link, profile, value "
        "FROM figures WHERE started >= ?";
    std::vector<Value> params{since};
    if (!s.host.empty()) {
        sql += " AND host = ?";
        params.emplace_back(s.host);
    }
    std::map<std::string, Series> series;
    for (const Row& row : db.query(sql, params).rows) {
        Series& sr = series[*row[0] + '\x1f' + *row[3] + '\x1f' + *row[4] + '\x1f' + *row[5]];
        sr.host = *row[0];
        sr.check = *row[3];
        sr.name = *row[4];
        sr.unit = *row[5];
        sr.direction = *row[6];
        NightValues& night = sr.runs[*row[1]];
        night.started = row[2].value_or("");
        night.group = *row[7] + '\x1f' + *row[8] + '\x1f' + *row[9] + '\x1f' + *row[10];
        night.values.push_back(std::stod(*row[11]));
    }
    std::vector<Candidate> candidates;
    std::size_t judged = 0;  // series with enough nights: the set the false-alarm rate is over
    for (const auto& [key, sr] : series) {
        std::vector<const NightValues*> nights;
        for (const auto& [run, night] : sr.runs) {
            nights.push_back(&night);
        }
        std::sort(nights.begin(), nights.end(),
                  [](const NightValues* a, const NightValues* b) { return a->started < b->started; });
        // Only the nights under the newest run's software: a step at a driver change is the
        // baselines' business (driver shifts), not a drift.
        const std::string group = nights.back()->group;
        std::vector<double> x, y;
        std::vector<std::string> started;
        for (const NightValues* n : nights) {
            if (n->group == group) {
                x.push_back(static_cast<double>(x.size()));
                y.push_back(median(n->values));
                started.push_back(n->started);
            }
        }
        if (static_cast<int>(y.size()) < s.min_nights) {
            continue;
        }
        ++judged;
        const double m = median(y);
        const Trend t = theil_sen(x, y);
        const double sign = sr.direction == "lower" ? -1.0 : 1.0;  // a decline is a fall of higher-is-better
        const double fall = -sign * t.slope * (x.back() - x.front());
        if (m == 0.0 || fall / std::fabs(m) < s.min_decline || fall < s.noise_factor * t.noise ||
            -sign * t.tau < s.min_tau) {
            continue;
        }
        candidates.push_back({&sr, std::move(y), std::move(started), t, m, fall});
    }
    const double z_needed =
        normal_quantile_below(s.false_alarm / static_cast<double>(std::max<std::size_t>(judged, 1)));
    for (const Candidate& c : candidates) {
        const Series& sr = *c.series;
        const double sign = sr.direction == "lower" ? -1.0 : 1.0;
        const double z = -sign * c.trend.tau / tau_sd(c.y.size());
        if (z < z_needed) {
            continue;  // as steady as chance makes one of the `judged` series now and then
        }
        const std::vector<double>& y = c.y;
        const Trend& t = c.trend;
        const double m = c.median;
        const double fall = c.fall;
        nlohmann::json series_json = nlohmann::json::array();
        for (std::size_t k = 0; k < y.size(); ++k) {
            series_json.push_back({{"started", c.started[k]}, {"value", y[k]}});
        }
        out.push_back({{"host", sr.host},
                       {"check", sr.check},
                       {"name", sr.name},
                       {"unit", sr.unit},
                       {"nights", y.size()},
                       {"slope_per_night", t.slope},
                       {"relative_per_night", t.slope / std::fabs(m)},
                       {"decline", fall / std::fabs(m)},
                       {"tau", t.tau},
                       {"noise", t.noise},
                       {"first", y.front()},
                       {"last", y.back()},
                       // The nightly values (median over the GPUs) and the trend line's ends, for a chart.
                       {"series", std::move(series_json)},
                       {"trend_first", t.intercept},
                       {"trend_last", t.intercept + t.slope * static_cast<double>(y.size() - 1)},
                       {"steadiness_z", z},
                       {"steadiness_z_needed", z_needed},
                       {"series_judged", judged}});
    }
    return out;
}

}  // namespace gpuconform::store
