#include "diff.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "report_set.hpp"

namespace gpuconform {

bool DiffResult::regressed() const {
    const auto worse = [](const auto& c) { return c.change == Change::Worse; };
    return std::any_of(statuses.begin(), statuses.end(), worse) ||
           std::any_of(measurements.begin(), measurements.end(), worse);
}

std::optional<GroupFilter> parse_group_filter(const std::string& text) {
    GroupFilter filter;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string term = text.substr(start, end - start);
        const std::size_t eq = term.find('=');
        const auto key = eq == std::string::npos ? std::nullopt : group_key_from_string(term.substr(0, eq));
        if (!key) {
            return std::nullopt;
        }
        filter.emplace_back(*key, term.substr(eq + 1));
        start = end + 1;
    }
    return filter.empty() ? std::nullopt : std::optional(filter);
}

bool filter_matches(const GroupFilter& f, const GroupValues& values) {
    return std::all_of(f.begin(), f.end(), [&](const auto& term) {
        return fnmatch(term.second.c_str(), values[static_cast<int>(term.first)].c_str(), 0) == 0;
    });
}

DiffSide aggregate_side(const ReportSet& set, const GroupFilter& filter) {
    DiffSide side;
    std::map<std::pair<std::string, std::string>, std::vector<double>> samples;
    std::map<std::pair<std::string, std::string>, std::string> units;
    for (const RunEntry& run : set.runs) {
        if (!filter_matches(filter, set.groups_of(run))) {
            continue;
        }
        ++side.runs;
        for (const ResultEntry& r : run.results) {
            const auto [id, device] = split_pair(set.labels.at(r.label));
            ++side.statuses[result_label(id, device)].counts[severity(r.status)];
        }
        for (const MeasurementEntry& m : run.measurements) {
            const auto [id, device] = split_pair(set.labels.at(m.label));
            const auto [name, unit] = split_pair(set.measures.at(m.name));
            const auto key = std::pair{result_label(id, device), name};
            samples[key].push_back(m.value);
            units[key] = unit;
        }
    }
    for (auto& [key, values] : samples) {
        side.medians[key] = {units[key], median(values)};
    }
    return side;
}

namespace {

std::string check_id_of(const std::string& label) {
    return label.substr(0, label.find(' '));
}

Change judge_move(double relative, Better better) {
    if (better == Better::Either) {
        return Change::Changed;
    }
    return (relative > 0) == (better == Better::Higher) ? Change::Better : Change::Worse;
}

}  // namespace

DiffResult compare_sides(const DiffSide& base, const DiffSide& now, const ToleranceTable& tolerances) {
    DiffResult d;
    d.base_runs = base.runs;
    d.new_runs = now.runs;
    std::set<std::string> labels;
    for (const auto& [l, _] : base.statuses) {
        labels.insert(l);
    }
    for (const auto& [l, _] : now.statuses) {
        labels.insert(l);
    }
    for (const std::string& label : labels) {
        StatusChange c{label, std::nullopt, std::nullopt, "", "", Change::Changed};
        if (const auto it = base.statuses.find(label); it != base.statuses.end()) {
            c.base = it->second.worst();
            c.base_counts = it->second.text();
        }
        if (const auto it = now.statuses.find(label); it != now.statuses.end()) {
            c.now = it->second.worst();
            c.now_counts = it->second.text();
        }
        if (c.base && c.now && *c.base == *c.now) {
            continue;
        }
        if (!c.now) {
            c.change = Change::Worse;  // a check that stopped reporting can hide a failure
        } else if (!c.base) {
            c.change = severity(*c.now) >= severity(Status::Fail) ? Change::Worse : Change::Changed;
        } else {
            c.change = severity(*c.now) > severity(*c.base) ? Change::Worse : Change::Better;
        }
        d.statuses.push_back(c);
    }
    for (const auto& [key, b] : base.medians) {
        const auto it = now.medians.find(key);
        if (it == now.medians.end() || b.second == 0.0) {
            continue;
        }
        const double rel = (it->second.second - b.second) / std::fabs(b.second);
        const auto [tolerance, better] = tolerances.resolve(check_id_of(key.first), key.second, b.first);
        if (std::fabs(rel) > tolerance) {
            d.measurements.push_back({key.first, key.second, b.first, b.second, it->second.second, rel, tolerance,
                                      judge_move(rel, better)});
        }
    }
    return d;
}

int diff_exit_code(const DiffResult& d) {
    if (d.base_runs == 0 || d.new_runs == 0) {
        return 2;
    }
    if (d.regressed()) {
        return 1;
    }
    return d.rejected.empty() ? 0 : 3;
}

}  // namespace gpuconform
