#include "diff.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "report_set.hpp"

namespace gpuconform {

bool DiffResult::regressed() const {
    if (!different_nodes.empty()) {
        return false;
    }
    const auto worse = [](const StatusChange& c) { return c.change == Change::Worse; };
    return std::any_of(statuses.begin(), statuses.end(), worse) || key_regressions() > 0;
}

std::size_t DiffResult::key_regressions() const {
    return std::count_if(measurements.begin(), measurements.end(),
                         [](const MeasurementChange& m) { return m.role == Role::Key && m.change == Change::Worse; });
}

double Figure::median() const { return gpuconform::median(medians); }

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

namespace {

// "580.95.05" -> "580": a driver branch, the unit NVIDIA and AMD release by.
std::string driver_branch(const std::string& version) { return version.substr(0, version.find('.')); }

}  // namespace

DiffSide aggregate_side(const ReportSet& set, const GroupFilter& filter) {
    DiffSide side;
    for (const RunEntry& run : set.runs) {
        const GroupValues& groups = set.groups_of(run);
        if (!filter_matches(filter, groups)) {
            continue;
        }
        ++side.runs;
        if (const auto& gpu = groups[static_cast<int>(GroupKey::Gpu)]; !gpu.empty()) {
            side.gpus.insert(gpu);
        }
        if (const auto& driver = groups[static_cast<int>(GroupKey::Driver)]; !driver.empty()) {
            side.driver_branches.insert(driver_branch(driver));
        }
        for (const GroupKey k :
             {GroupKey::Distro, GroupKey::Kernel, GroupKey::Driver, GroupKey::Runtime, GroupKey::Torch}) {
            if (const auto& v = groups[static_cast<int>(k)]; !v.empty()) {
                side.environment[k_group_key_names[static_cast<int>(k)]].insert(v);
            }
        }
        for (const RunProblem& p : run.problems) {
            const auto [id, device] = split_pair(set.labels.at(p.label));
            side.findings[result_label(id, device)].insert(p.summary);
        }
        std::set<std::uint32_t> unusable;  // labels whose figures this run cannot vouch for
        for (const ResultEntry& r : run.results) {
            const auto [id, device] = split_pair(set.labels.at(r.label));
            ++side.statuses[result_label(id, device)].counts[severity(r.status)];
            if (r.disturbed) {
                side.disturbed.insert(result_label(id, device));
            }
            if (r.disturbed || r.status == Status::Error) {
                unusable.insert(r.label);
            }
        }
        for (const MeasurementEntry& m : run.measurements) {
            const auto [id, device] = split_pair(set.labels.at(m.label));
            const auto [name, unit] = split_pair(set.measures.at(m.name));
            if (id == "host.pcie.link" && name.ends_with(" current_width")) {
                side.link_widths.insert(fmt::format("x{:g}", m.value));
            }
            Figure& f = side.figures[{result_label(id, device), name}];
            f.lo = f.medians.empty() ? m.lo : std::min(f.lo, m.lo);
            f.hi = f.medians.empty() ? m.hi : std::max(f.hi, m.hi);
            // A --repeat report's repetitions count as runs of their own.
            if (m.repetitions.empty()) {
                f.medians.push_back(m.value);
            } else {
                f.medians.insert(f.medians.end(), m.repetitions.begin(), m.repetitions.end());
            }
            f.samples += m.n;
            f.unit = unit;
            f.direction = f.direction ? f.direction : m.direction;
            f.role = f.role ? f.role : m.role;
            f.unusable = f.unusable || unusable.count(m.label) > 0;
        }
    }
    return side;
}

namespace {

std::string join_set(const std::set<std::string>& values) {
    std::string out;
    for (const auto& v : values) {
        out += (out.empty() ? "" : " | ") + v;
    }
    return out;
}

std::string check_id_of(const std::string& label) { return label.substr(0, label.find(' ')); }

// Below this many repetitions a side's min..max says little about its noise.
constexpr int k_min_repetitions = 3;

std::string node_difference(const char* what, const std::set<std::string>& base, const std::set<std::string>& now) {
    if (base.empty() || now.empty() || base == now) {
        return "";
    }
    const auto join = [](const std::set<std::string>& s) {
        std::string out;
        for (const auto& v : s) {
            out += (out.empty() ? "" : ", ") + v;
        }
        return out;
    };
    return fmt::format("{}: {} → {}", what, join(base), join(now));
}

}  // namespace

MeasurementChange judge_figure(const std::string& label, const std::string& name, const Figure& base, const Figure& now,
                               const ToleranceTable& tolerances) {
    const std::string check_id = check_id_of(label);
    // The report's own declaration, else the one the runner uses today, else unknown.
    const std::optional<MeasureMeaning> declared = declared_meaning(check_id, name);
    MeasureMeaning meaning =
        declared.value_or(MeasureMeaning{Direction::None, Role::Diagnostic, tolerances.default_floor.value_or(0.10)});
    meaning.direction = base.direction.value_or(meaning.direction);
    meaning.role = base.role.value_or(meaning.role);
    if (const ToleranceRule* rule = tolerances.find(check_id, name)) {
        meaning.noise_floor = rule->floor.value_or(meaning.noise_floor);
        meaning.direction = rule->direction.value_or(meaning.direction);
        meaning.role = rule->role.value_or(meaning.role);
    }
    MeasurementChange c;
    c.label = label;
    c.name = name;
    c.unit = base.unit;
    c.base = base.median();
    c.now = now.median();
    c.base_lo = base.lo;
    c.base_hi = base.hi;
    c.now_lo = now.lo;
    c.now_hi = now.hi;
    c.relative =
        c.base == 0.0 ? (c.now == 0.0 ? 0.0 : std::copysign(INFINITY, c.now)) : (c.now - c.base) / std::fabs(c.base);
    c.floor = meaning.noise_floor;
    c.direction = meaning.direction;
    c.role = meaning.role;
    if (!declared && !base.direction) {
        c.note = "no declared direction";
    }
    if (base.unusable || now.unusable) {
        c.change = Change::CouldNotCompare;
        c.note = "a side errored or was disturbed";
        return c;
    }
    // Noise band: the base's own min..max widened by the floor. The new median outside it is news.
    const double below = base.lo - c.floor * std::fabs(base.lo);
    const double above = base.hi + c.floor * std::fabs(base.hi);
    const bool low = c.now < below;
    const bool high = c.now > above;
    if (!low && !high) {
        c.change = Change::Changed;
        c.note = "within noise";
        return c;
    }
    if (meaning.direction == Direction::None) {
        c.change = Change::Changed;
    } else {
        c.change = (high == (meaning.direction == Direction::Higher)) ? Change::Better : Change::Worse;
    }
    if (base.samples < k_min_repetitions || now.samples < k_min_repetitions) {
        c.note = fmt::format("too few repetitions to judge spread (base n={}, new n={}): noise floor alone",
                             base.samples, now.samples);
    }
    return c;
}

DiffResult compare_sides(const DiffSide& base, const DiffSide& now, const ToleranceTable& tolerances) {
    DiffResult d;
    d.base_runs = base.runs;
    d.new_runs = now.runs;
    for (const std::string& why : {node_difference("GPU model", base.gpus, now.gpus),
                                   node_difference("driver branch", base.driver_branches, now.driver_branches),
                                   node_difference("PCIe link width", base.link_widths, now.link_widths)}) {
        if (!why.empty()) {
            d.different_nodes.push_back(why);
        }
    }
    for (const auto& [key, values] : base.environment) {
        if (const auto it = now.environment.find(key); it != now.environment.end() && it->second != values) {
            d.environment.push_back(fmt::format("{}: {} → {}", key, join_set(values), join_set(it->second)));
        }
    }
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
            const auto b = base.findings.find(label);
            const auto n = now.findings.find(label);
            if (b != base.findings.end() && n != now.findings.end() && b->second != n->second) {
                d.findings.push_back({label, *c.now, join_set(b->second), join_set(n->second)});
            }
            continue;
        }
        if (base.disturbed.count(label) > 0 || now.disturbed.count(label) > 0) {
            c.change = Change::CouldNotCompare;  // another GPU user, not the install, moved it
        } else if (!c.now) {
            c.change = Change::Worse;  // a check that stopped reporting can hide a failure
        } else if (!c.base) {
            c.change = severity(*c.now) >= severity(Status::Fail) ? Change::Worse : Change::Changed;
        } else {
            c.change = severity(*c.now) > severity(*c.base) ? Change::Worse : Change::Better;
        }
        d.statuses.push_back(c);
    }
    for (const auto& [key, b] : base.figures) {
        const auto it = now.figures.find(key);
        if (it == now.figures.end() || b.medians.empty() || it->second.medians.empty()) {
            continue;
        }
        MeasurementChange c = judge_figure(key.first, key.second, b, it->second, tolerances);
        if (c.note != "within noise") {
            d.measurements.push_back(std::move(c));
        }
    }
    // Key figures first, the worst first: what an operator acts on.
    std::stable_sort(d.measurements.begin(), d.measurements.end(), [](const auto& x, const auto& y) {
        return std::pair(x.role != Role::Key, x.change != Change::Worse) <
               std::pair(y.role != Role::Key, y.change != Change::Worse);
    });
    return d;
}

int diff_exit_code(const DiffResult& d) {
    if (d.base_runs == 0 || d.new_runs == 0) {
        return 2;
    }
    if (d.regressed()) {
        return 1;
    }
    if (!d.different_nodes.empty()) {
        return 4;
    }
    return d.rejected.empty() ? 0 : 3;
}

}  // namespace gpuconform
