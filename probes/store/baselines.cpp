#include "store/baselines.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "store/robust_stats.hpp"

namespace gpuconform::store {

namespace {

struct Where {
    std::string sql;
    std::vector<Value> params;
};

Where started_between(const std::string& since, const std::string& until) {
    Where w;
    if (!since.empty()) {
        w.sql += " AND started >= ?";
        w.params.emplace_back(since);
    }
    if (!until.empty()) {
        w.sql += " AND started < ?";
        w.params.emplace_back(until);
    }
    if (!w.sql.empty()) {
        w.sql = " WHERE" + w.sql.substr(4);
    }
    return w;
}

const char k_sep = '\x1f';

std::string join(std::initializer_list<std::string_view> parts) {
    std::string out;
    for (const std::string_view p : parts) {
        out += p;
        out += k_sep;
    }
    return out;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t end = s.find(k_sep); end != std::string::npos; end = s.find(k_sep, start)) {
        out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

bool worse(const std::string& direction, double z, double threshold) {
    return direction == "lower" ? z > threshold : z < -threshold;
}

nlohmann::json baseline_summary(const Baseline& b) {
    return {{"runs", b.runs}, {"median", b.median}, {"spread", b.spread}, {"p05", b.p05}, {"p95", b.p95}};
}

nlohmann::json group_json(const Baseline& b) {
    return {{"gpu", b.gpu}, {"driver_branch", b.driver_branch}, {"link", b.link}, {"profile", b.profile}};
}

}  // namespace

namespace {

// What one group's rows left: its values, the run each came from (as an index: a run id is
// stored once, whatever its number of figures), and the first and last start.
struct Learning {
    std::vector<double> values;
    std::vector<std::uint32_t> runs;
    std::optional<std::string> first_started;
    std::optional<std::string> last_started;
};

double figure_value(std::string_view text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
        throw StoreError("figures: a value that is not a number: " + std::string(text.substr(0, 40)));
    }
    return v;
}

}  // namespace

// One pass over the figures, streamed: a million reports are ten million rows, which held at once
// took 7.5 GB, and a GROUP BY with count(DISTINCT run_id) beside it took SQLite 34 s.
std::vector<Baseline> learn_baselines(Database& db, const std::string& since, const std::string& until) {
    const Where w = started_between(since, until);
    constexpr std::size_t k_group_columns = 8;
    std::unordered_map<std::string, Learning> groups;
    std::unordered_map<std::string, std::uint32_t> run_index;
    std::string key;
    std::string last_run;
    std::uint32_t last_index = 0;
    bool have_run = false;
    db.for_each_row(
        "SELECT check_id, name, unit, direction, gpu, driver_branch, link, profile, run_id, started, value "
        "FROM figures" +
            w.sql,
        w.params, [&](const RowView& row) {
            key.clear();
            for (std::size_t c = 0; c < k_group_columns; ++c) {
                key += row[c].value_or("");
                key += k_sep;
            }
            Learning& g = groups[key];
            // A run's figures sit together: its id is looked up once, not per figure.
            const std::string_view run = row[8].value_or("");
            if (!have_run || run != last_run) {
                last_run.assign(run);
                last_index = run_index.emplace(last_run, static_cast<std::uint32_t>(run_index.size())).first->second;
                have_run = true;
            }
            g.runs.push_back(last_index);
            g.values.push_back(figure_value(row[10].value_or("")));
            if (const auto started = row[9]) {
                if (!g.first_started || *started < *g.first_started) {
                    g.first_started = std::string(*started);
                }
                if (!g.last_started || *started > *g.last_started) {
                    g.last_started = std::string(*started);
                }
            }
        });
    std::vector<Baseline> out;
    out.reserve(groups.size());
    for (auto& [group_key, g] : groups) {
        const std::vector<std::string> parts = split(group_key);
        std::sort(g.runs.begin(), g.runs.end());
        const std::vector<double>& v = g.values;
        Baseline b;
        b.check = parts.at(0);
        b.name = parts.at(1);
        b.unit = parts.at(2);
        b.direction = parts.at(3);
        b.gpu = parts.at(4);
        b.driver_branch = parts.at(5);
        b.link = parts.at(6);
        b.profile = parts.at(7);
        b.runs = std::unique(g.runs.begin(), g.runs.end()) - g.runs.begin();
        b.first_started = g.first_started.value_or("");
        b.last_started = g.last_started.value_or("");
        b.values = static_cast<long long>(v.size());
        b.median = median(v);
        b.spread = scaled_mad(v);
        b.p05 = quantile(v, 0.05);
        b.p25 = quantile(v, 0.25);
        b.p75 = quantile(v, 0.75);
        b.p95 = quantile(v, 0.95);
        out.push_back(std::move(b));
    }
    std::sort(out.begin(), out.end(), [](const Baseline& a, const Baseline& b) {
        return std::tie(a.check, a.name, a.gpu, a.driver_branch, a.link, a.profile) <
               std::tie(b.check, b.name, b.gpu, b.driver_branch, b.link, b.profile);
    });
    return out;
}

nlohmann::json baselines_json(const std::vector<Baseline>& baselines) {
    nlohmann::json out = nlohmann::json::array();
    for (const Baseline& b : baselines) {
        out.push_back({{"check", b.check},
                       {"name", b.name},
                       {"unit", b.unit},
                       {"direction", b.direction},
                       {"group", group_json(b)},
                       {"runs", b.runs},
                       {"values", b.values},
                       {"median", b.median},
                       {"spread", b.spread},
                       {"p05", b.p05},
                       {"p25", b.p25},
                       {"p75", b.p75},
                       {"p95", b.p95},
                       {"first_started", b.first_started},
                       {"last_started", b.last_started}});
    }
    return out;
}

namespace {

struct NightFigure {
    std::string run_id, host, device, check, name, unit, direction;
    std::string group;  // join of gpu, driver branch, link, profile
    double value = 0;
};

// The groups that differ only in their driver branch: the later branch's median against the
// earlier's, named when it moved the bad way by more than `threshold` spreads of either.
nlohmann::json driver_shifts(const std::vector<Baseline>& all, const JudgeSettings& s) {
    nlohmann::json out = nlohmann::json::array();
    std::map<std::string, std::vector<const Baseline*>> siblings;  // same figure, GPU, link, profile
    for (const Baseline& b : all) {
        if (b.runs >= s.min_runs) {
            siblings[join({b.check, b.name, b.gpu, b.link, b.profile})].push_back(&b);
        }
    }
    for (auto& [key, groups] : siblings) {
        std::sort(groups.begin(), groups.end(),
                  [](const Baseline* a, const Baseline* b) { return a->first_started < b->first_started; });
        for (std::size_t i = 1; i < groups.size(); ++i) {
            const Baseline& before = *groups[i - 1];
            const Baseline& after = *groups[i];
            const double spread =
                std::max({before.spread, after.spread, s.min_relative_spread * std::fabs(before.median)});
            const double z = (after.median - before.median) / spread;
            if (worse(after.direction, z, s.threshold)) {
                out.push_back({{"check", after.check},
                               {"name", after.name},
                               {"unit", after.unit},
                               {"gpu", after.gpu},
                               {"link", after.link},
                               {"profile", after.profile},
                               {"from_driver_branch", before.driver_branch},
                               {"to_driver_branch", after.driver_branch},
                               {"before", baseline_summary(before)},
                               {"after", baseline_summary(after)},
                               {"relative_change", (after.median - before.median) / std::fabs(before.median)}});
            }
        }
    }
    return out;
}

}  // namespace

nlohmann::json find_outliers(Database& db, const Window& night, const JudgeSettings& s, const FrozenBaselines* frozen) {
    std::unordered_set<std::string> in_night;
    std::string night_start;
    for (const StoredRun& r : selected_runs(db, night, false)) {
        in_night.insert(r.run_id);
        if (!r.started.empty() && (night_start.empty() || r.started < night_start)) {
            night_start = r.started;
        }
    }
    if (night_start.empty()) {
        throw StoreError("no stored run with a start time in the window: nothing to judge");
    }
    // What is normal is learned from the runs before the night, never from the night judged.
    const std::vector<Baseline> history = frozen != nullptr ? frozen->figures : learn_baselines(db, "", night_start);
    std::unordered_map<std::string, const Baseline*> baseline_of;
    for (const Baseline& b : history) {
        baseline_of[join({b.check, b.name, b.unit, b.gpu, b.driver_branch, b.link, b.profile})] = &b;
    }
    std::vector<NightFigure> figures;
    const Where w = started_between(night_start, "");
    for (const Row& row : db.query("SELECT run_id, host, device, check_id, name, unit, direction, gpu, "
                                   "driver_branch, link, profile, value FROM figures" +
                                       w.sql,
                                   w.params)
                              .rows) {
        if (in_night.count(*row[0]) != 0) {
            figures.push_back({*row[0], *row[1], *row[2], *row[3], *row[4], *row[5], *row[6],
                               join({*row[7], *row[8], *row[9], *row[10]}), std::stod(*row[11])});
        }
    }
    nlohmann::json group_outliers = nlohmann::json::array();
    nlohmann::json not_judged = nlohmann::json::array();
    std::map<std::string, long long> unjudged;  // figure and group -> the few runs its baseline has
    std::map<std::string, std::vector<const NightFigure*>> per_run_figure;
    for (const NightFigure& f : figures) {
        per_run_figure[join({f.run_id, f.check, f.name})].push_back(&f);
        const auto g = split(f.group);
        const auto it = baseline_of.find(join({f.check, f.name, f.unit, g[0], g[1], g[2], g[3]}));
        if (it == baseline_of.end() || it->second->runs < s.min_runs) {
            unjudged[join({f.check, f.name, g[0], g[1], g[2], g[3]})] = it == baseline_of.end() ? 0 : it->second->runs;
            continue;
        }
        const Baseline& b = *it->second;
        const double spread = std::max(b.spread, s.min_relative_spread * std::fabs(b.median));
        const double z = (f.value - b.median) / spread;
        if (worse(f.direction, z, s.threshold)) {
            group_outliers.push_back({{"host", f.host},
                                      {"run_id", f.run_id},
                                      {"device", f.device},
                                      {"check", f.check},
                                      {"name", f.name},
                                      {"unit", f.unit},
                                      {"value", f.value},
                                      {"spreads_off", z},
                                      {"group", group_json(b)},
                                      {"baseline", baseline_summary(b)}});
        }
    }
    for (const auto& [key, runs] : unjudged) {
        const auto k = split(key);
        not_judged.push_back({{"check", k[0]},
                              {"name", k[1]},
                              {"group", {{"gpu", k[2]}, {"driver_branch", k[3]}, {"link", k[4]}, {"profile", k[5]}}},
                              {"baseline_runs", runs},
                              {"min_runs", s.min_runs}});
    }
    // Siblings: the same figure on the node's other GPUs in the same run (three or more GPUs).
    nlohmann::json sibling_outliers = nlohmann::json::array();
    for (const auto& [key, devices] : per_run_figure) {
        if (devices.size() < 3) {
            continue;
        }
        for (const NightFigure* f : devices) {
            std::vector<double> others;
            for (const NightFigure* o : devices) {
                if (o != f) {
                    others.push_back(o->value);
                }
            }
            const double m = median(others);
            const double spread = std::max(scaled_mad(others), s.min_relative_spread * std::fabs(m));
            const double z = (f->value - m) / spread;
            if (worse(f->direction, z, s.threshold)) {
                sibling_outliers.push_back(
                    {{"host", f->host},
                     {"run_id", f->run_id},
                     {"device", f->device},
                     {"check", f->check},
                     {"name", f->name},
                     {"unit", f->unit},
                     {"value", f->value},
                     {"spreads_off", z},
                     {"siblings", {{"gpus", others.size()}, {"median", m}, {"spread", spread}}}});
            }
        }
    }
    return {
        {"night", {{"runs", in_night.size()}, {"first_started", night_start}}},
        {"settings",
         {{"min_runs", s.min_runs},
          {"threshold", s.threshold},
          {"baselines", frozen != nullptr ? "frozen (--profile)" : "learned from the runs before the night"}}},
        {"group_outliers", std::move(group_outliers)},
        {"sibling_outliers", std::move(sibling_outliers)},
        {"driver_shifts", driver_shifts(frozen != nullptr ? frozen->figures : learn_baselines(db, "", night.until), s)},
        {"not_judged", std::move(not_judged)}};
}

}  // namespace gpuconform::store
