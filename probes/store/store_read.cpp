#include "store/store_read.hpp"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "store/store_time.hpp"

namespace gpuconform::store {

namespace {

constexpr long long k_night_seconds = 24LL * 60 * 60;

struct Bounds {
    std::string where;
    std::vector<Value> params;
};

Bounds bounds(const std::string& since, const std::string& until) {
    Bounds b;
    std::vector<std::string> terms;
    if (!since.empty()) {
        terms.push_back("started >= ?");
        b.params.emplace_back(since);
    }
    if (!until.empty()) {
        terms.push_back("started < ?");
        b.params.emplace_back(until);
    }
    for (std::size_t i = 0; i < terms.size(); ++i) {
        b.where += (i == 0 ? " WHERE " : " AND ") + terms[i];
    }
    return b;
}

std::vector<StoredRun> select_runs(Database& db, const std::string& since, const std::string& until, bool with_report) {
    const Bounds b = bounds(since, until);
    std::vector<StoredRun> runs;
    const std::string columns = with_report ? "run_id, host, started, source, report" : "run_id, host, started, source";
    for (Row& row : db.query("SELECT " + columns + " FROM runs" + b.where, b.params).rows) {
        runs.push_back({std::move(*row[0]), std::move(*row[1]), row[2].value_or(""), std::move(*row[3]),
                        with_report ? std::move(*row[4]) : std::string()});
    }
    return runs;
}

// Each host's newest run (the larger run id when two started in the same second).
std::vector<StoredRun> newest_per_host(std::vector<StoredRun> runs) {
    std::unordered_map<std::string, std::size_t> newest;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto [it, fresh] = newest.emplace(runs[i].host, i);
        const StoredRun& kept = runs[it->second];
        if (!fresh && std::tie(runs[i].started, runs[i].run_id) > std::tie(kept.started, kept.run_id)) {
            it->second = i;
        }
    }
    std::vector<StoredRun> out;
    for (const auto& [host, i] : newest) {
        out.push_back(std::move(runs[i]));
    }
    return out;
}

}  // namespace

std::vector<StoredRun> selected_runs(Database& db, const Window& window, bool with_report) {
    if (!window.last_night) {
        return select_runs(db, window.since, window.until, with_report);
    }
    const Bounds b = bounds(window.since, window.until);
    const Value newest = db.query("SELECT max(started) FROM runs" + b.where, b.params).rows.at(0).at(0);
    if (!newest) {
        return {};
    }
    const std::string night_start = shifted(*newest, -k_night_seconds).value_or(*newest);
    return newest_per_host(select_runs(db, std::max(window.since, night_start), window.until, with_report));
}

std::vector<NamedReport> stored_reports(Database& db, const Window& window) {
    std::vector<StoredRun> runs = selected_runs(db, window, true);
    std::sort(runs.begin(), runs.end(), [](const StoredRun& a, const StoredRun& b) {
        return std::tie(a.source, a.run_id) < std::tie(b.source, b.run_id);
    });
    std::vector<NamedReport> out;
    out.reserve(runs.size());
    for (StoredRun& r : runs) {
        out.push_back({std::move(r.source), std::move(r.report)});
    }
    return out;
}

}  // namespace gpuconform::store
