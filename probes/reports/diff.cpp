#include "reports/diff.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <simdjson.h>

#include "checks/declarations.hpp"
#include "reports/report_set.hpp"

namespace gpuconform {

bool DiffResult::regressed() const {
    if (vanished_regress && !vanished_hosts.empty()) {
        return true;
    }
    if (hosts_compared == 0) {
        return false;  // not the same node: listed, not judged
    }
    const auto worse = [](const auto& c) { return c.change == Change::Worse; };
    return std::any_of(statuses.begin(), statuses.end(), worse) || std::any_of(links.begin(), links.end(), worse) ||
           !counters.empty() || key_regressions() > 0;
}

std::string LinkChange::text() const {
    // GT/s per lane of each PCIe generation (PCI-SIG, PCI Express Base Specification).
    const auto gen = [](double gts) {
        constexpr std::array<double, 6> k_rates{2.5, 5, 8, 16, 32, 64};
        for (std::size_t i = 0; i < k_rates.size(); ++i) {
            if (std::fabs(gts - k_rates[i]) < 0.01) {
                return fmt::format("Gen{}", i + 1);
            }
        }
        return fmt::format("{:g} GT/s", gts);
    };
    const bool speed = base.speed != now.speed;
    const bool width = base.width != now.width;
    const auto one = [&](const LinkState& l) {
        std::string out = speed ? gen(l.speed) : "";
        if (width) {
            out += fmt::format("{}x{:g}", out.empty() ? "" : " ", l.width);
        }
        return out;
    };
    return fmt::format("link {} → {}", one(base), one(now));
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

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
    std::vector<std::string> out;
    for (const std::string& v : values) {
        std::size_t start = 0;
        while (start <= v.size()) {
            const std::size_t end = std::min(v.find(',', start), v.size());
            if (end > start) {
                out.push_back(v.substr(start, end - start));
            }
            start = end + 1;
        }
    }
    return out;
}

// CLI11's rule: a word that starts with '-' (but is not "-" alone) is the next option.
bool is_option(const std::string& word) { return word.size() > 1 && word[0] == '-'; }

}  // namespace

std::optional<RunSelection> selection_from_command_line(const std::vector<std::string>& argv,
                                                        const std::vector<std::string>& layers) {
    if (argv.size() < 2 || argv[1] != "run") {
        return std::nullopt;
    }
    RunSelection s;
    std::vector<std::string> layer_args, device_args;
    for (std::size_t i = 2; i < argv.size() && argv[i] != "--"; ++i) {
        const std::string& arg = argv[i];
        const std::size_t eq = arg.find('=');
        const std::string name = arg.substr(0, eq);
        if (name == "--quick") {
            s.quick = eq == std::string::npos || (arg.substr(eq + 1) != "false" && arg.substr(eq + 1) != "0");
            continue;
        }
        std::vector<std::string>* into = name == "--only"     ? &s.only
                                         : name == "--layer"  ? &layer_args
                                         : name == "--device" ? &device_args
                                                              : nullptr;
        if (into == nullptr) {
            continue;
        }
        if (eq != std::string::npos) {
            into->push_back(arg.substr(eq + 1));
            continue;
        }
        // A repeatable option takes every following word up to the next option (`--only a b`).
        while (i + 1 < argv.size() && !is_option(argv[i + 1])) {
            into->push_back(argv[++i]);
        }
    }
    s.only = split_commas(s.only);
    s.layers = layers.empty() ? split_commas(layer_args) : layers;
    for (const std::string& d : split_commas(device_args)) {
        int index = -1;
        if (std::from_chars(d.data(), d.data() + d.size(), index).ec == std::errc{} && index >= 0) {
            s.devices.push_back(index);
        }
    }
    return s;
}

bool selects(const RunSelection& s, const std::string& label) {
    const std::string id = label.substr(0, label.find(' '));
    const std::string layer = id.substr(0, id.find('.'));
    if (!s.layers.empty() && std::find(s.layers.begin(), s.layers.end(), layer) == s.layers.end()) {
        return false;
    }
    const auto matches = [&](const std::string& glob) { return fnmatch(glob.c_str(), id.c_str(), 0) == 0; };
    if (!s.only.empty() && std::none_of(s.only.begin(), s.only.end(), matches)) {
        return false;
    }
    // "id [cuda:1]": a per-device result; backend-wide and host results have no index.
    const std::size_t colon = label.rfind(':');
    if (!s.devices.empty() && label.ends_with(']') && colon != std::string::npos && colon > id.size()) {
        int index = -1;
        std::from_chars(label.data() + colon + 1, label.data() + label.size() - 1, index);
        return std::find(s.devices.begin(), s.devices.end(), index) != s.devices.end();
    }
    return true;
}

std::string describe(const RunSelection& s) {
    const auto join = [](const auto& values) {
        std::string out;
        for (const auto& v : values) {
            out += fmt::format("{}{}", out.empty() ? "" : ",", v);
        }
        return out;
    };
    std::string out;
    // Reports from before the health layer ran every check with these four.
    const std::vector<std::string> all_layers{"host", "runtime", "async", "framework"};
    const bool every_layer = std::all_of(all_layers.begin(), all_layers.end(), [&](const std::string& l) {
        return std::find(s.layers.begin(), s.layers.end(), l) != s.layers.end();
    });
    if (!s.layers.empty() && !every_layer) {
        out += " --layer " + join(s.layers);
    }
    if (!s.only.empty()) {
        out += " --only " + join(s.only);
    }
    if (!s.devices.empty()) {
        out += " --device " + join(s.devices);
    }
    if (s.quick) {
        out += " --quick";
    }
    return out.empty() ? "every check" : out.substr(1);
}

RunSelection read_selection(const std::string& path) {
    std::string text, error;
    if (!read_report_file(path, false, text, error)) {
        return {};
    }
    simdjson::dom::parser parser;
    simdjson::dom::element run;
    if (parser.parse(text).at_key("run").get(run) != simdjson::SUCCESS) {
        return {};
    }
    const auto strings = [&](const char* key) {
        std::vector<std::string> out;
        simdjson::dom::array values;
        if (run.at_key(key).get(values) == simdjson::SUCCESS) {
            for (const simdjson::dom::element v : values) {
                std::string_view word;
                if (v.get(word) == simdjson::SUCCESS) {
                    out.emplace_back(word);
                }
            }
        }
        return out;
    };
    return selection_from_command_line(strings("command_line"), strings("layers")).value_or(RunSelection{});
}

namespace {

// `run --repeat` appends " (worst of N repetitions)" to a folded summary; the finding is the same.
std::string finding_text(const std::string& summary) {
    const std::size_t open = summary.rfind(" (worst of ");
    if (open == std::string::npos || !summary.ends_with(" repetitions)")) {
        return summary;
    }
    const std::string count = summary.substr(open + 11, summary.size() - open - 11 - 13);
    const bool digits =
        !count.empty() && std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; });
    return digits ? summary.substr(0, open) : summary;
}

}  // namespace

namespace {

// The narrowest link each GPU trained at over a side's runs, from host.pcie.link's figures.
void note_link(DiffSide& side, const std::string& name, double value) {
    const std::size_t space = name.rfind(' ');
    if (space == std::string::npos) {
        return;
    }
    const std::string what = name.substr(space + 1);
    if (what != "current_width" && what != "current_speed") {
        return;
    }
    const auto [it, fresh] = side.links.try_emplace(name.substr(0, space));
    double& field = what == "current_width" ? it->second.width : it->second.speed;
    field = field == 0.0 ? value : std::min(field, value);
}

void add_run(DiffSide& side, const ReportSet& set, const RunEntry& run) {
    const GroupValues& groups = set.groups_of(run);
    ++side.runs;
    side.run_paths.push_back(run.path);
    if (const auto& gpu = groups[static_cast<int>(GroupKey::Gpu)]; !gpu.empty()) {
        side.gpus.insert(gpu);
    }
    for (const GroupKey k :
         {GroupKey::Distro, GroupKey::Kernel, GroupKey::Driver, GroupKey::Runtime, GroupKey::Torch}) {
        if (const auto& v = groups[static_cast<int>(k)]; !v.empty()) {
            side.environment[k_group_key_names[static_cast<int>(k)]].insert(v);
        }
    }
    for (const RunProblem& p : run.problems) {
        const auto [id, device] = split_pair(set.labels.at(p.label));
        side.findings[result_label(id, device)].insert(finding_text(p.summary));
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
        if (id == "host.pcie.link") {
            note_link(side, name, m.value);
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

}  // namespace

DiffSide aggregate_side(const ReportSet& set, const GroupFilter& filter) {
    DiffSide side;
    for (const RunEntry& run : set.runs) {
        if (filter_matches(filter, set.groups_of(run))) {
            add_run(side, set, run);
        }
    }
    return side;
}

FleetSide aggregate_fleet(const ReportSet& set, const GroupFilter& filter) {
    FleetSide side;
    side.filtered = !filter.empty();
    for (const RunEntry& run : set.runs) {
        if (filter_matches(filter, set.groups_of(run))) {
            add_run(side.pooled, set, run);
            add_run(side.hosts[set.groups_of(run)[static_cast<int>(GroupKey::Host)]], set, run);
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

// The side's selections as the views name them: each distinct one, "; "-joined.
std::string describe_side(const DiffSide& side) {
    std::vector<std::string> seen;
    for (const RunSelection& s : side.selections) {
        if (const std::string text = describe(s); std::find(seen.begin(), seen.end(), text) == seen.end()) {
            seen.push_back(text);
        }
    }
    std::string out;
    for (const std::string& t : seen) {
        out += (out.empty() ? "" : "; ") + t;
    }
    return out.empty() ? "every check" : out;
}

// Whether some run of `side` selected `label`, which only `other` has a result for. A --quick
// run leaves out checks a report cannot name, so a check absent from the whole quick side while
// the other side ran without --quick counts as left out; one device missing still counts.
bool selected_on(const DiffSide& side, const DiffSide& other, const std::string& label,
                 const std::set<std::string>& side_checks) {
    const bool other_full = other.selections.empty() || std::any_of(other.selections.begin(), other.selections.end(),
                                                                    [](const RunSelection& s) { return !s.quick; });
    const bool whole_check_absent = side_checks.count(check_id_of(label)) == 0;
    return side.selections.empty() ||
           std::any_of(side.selections.begin(), side.selections.end(), [&](const RunSelection& s) {
               return selects(s, label) && !(s.quick && other_full && whole_check_absent);
           });
}

std::set<std::string> check_ids(const DiffSide& side) {
    std::set<std::string> out;
    for (const auto& [label, _] : side.statuses) {
        out.insert(check_id_of(label));
    }
    return out;
}

}  // namespace

bool has_one_sided_results(const DiffSide& a, const DiffSide& b) {
    const auto missing_in = [](const DiffSide& x, const DiffSide& y) {
        return std::any_of(x.statuses.begin(), x.statuses.end(),
                           [&](const auto& entry) { return y.statuses.count(entry.first) == 0; });
    };
    return missing_in(a, b) || missing_in(b, a);
}

MeasurementChange judge_figure(const std::string& label, const std::string& name, const Figure& base, const Figure& now,
                               const ToleranceTable& tolerances) {
    const std::string check_id = check_id_of(label);
    // Today's declaration, else the report's own, else unknown: a figure demoted for its measured
    // spread is a diagnostic in reports written before, too.
    const std::optional<MeasureMeaning> declared = declared_meaning(check_id, name);
    MeasureMeaning meaning =
        declared.value_or(MeasureMeaning{Direction::None, Role::Diagnostic, tolerances.default_floor.value_or(0.10)});
    if (!declared) {
        meaning.direction = base.direction.value_or(meaning.direction);
        meaning.role = base.role.value_or(meaning.role);
    }
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
    // Only another GPU model makes another node; a driver, runtime or link change is what is judged.
    if (const std::string why = node_difference("GPU model", base.gpus, now.gpus); !why.empty()) {
        d.different_nodes.push_back(why);
    }
    d.hosts_compared = d.different_nodes.empty() ? 1 : 0;
    for (const auto& [address, b] : base.links) {
        const auto it = now.links.find(address);
        if (it == now.links.end() || (b.width == it->second.width && b.speed == it->second.speed)) {
            continue;
        }
        const LinkState& n = it->second;
        const bool down = n.width < b.width || n.speed < b.speed;
        d.links.push_back({"", address, b, n, down ? Change::Worse : Change::Better});
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
    const std::set<std::string> base_checks = check_ids(base);
    const std::set<std::string> now_checks = check_ids(now);
    for (const std::string& label : labels) {
        StatusChange c{"", label, std::nullopt, std::nullopt, "", "", Change::Changed};
        if (const auto it = base.statuses.find(label); it != base.statuses.end()) {
            c.base = it->second.worst();
            c.base_counts = it->second.text();
        }
        if (const auto it = now.statuses.find(label); it != now.statuses.end()) {
            c.now = it->second.worst();
            c.now_counts = it->second.text();
        }
        // Left out by one side's own selection: listed apart, never a change.
        if (!c.now && !selected_on(now, base, label, now_checks)) {
            d.not_selected.push_back({"", label, true, *c.base});
            continue;
        }
        if (!c.base && !selected_on(base, now, label, base_checks)) {
            d.not_selected.push_back({"", label, false, *c.now});
            continue;
        }
        if (c.base && c.now && *c.base == *c.now) {
            const auto b = base.findings.find(label);
            const auto n = now.findings.find(label);
            if (b != base.findings.end() && n != now.findings.end() && b->second != n->second) {
                d.findings.push_back({"", label, *c.now, join_set(b->second), join_set(n->second)});
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
    if (!d.not_selected.empty()) {
        d.base_selection = describe_side(base);
        d.new_selection = describe_side(now);
    }
    d.counters = grown_counters(base, now);
    for (const auto& [key, b] : base.figures) {
        const auto it = now.figures.find(key);
        if (it == now.figures.end() || b.medians.empty() || it->second.medians.empty() ||
            is_health_counter(key.first.substr(0, key.first.find(' ')), key.second)) {
            continue;  // a health counter is judged by its growth, not by the noise rule
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
    if (d.hosts_compared == 0 && !d.different_nodes.empty()) {
        return 4;
    }
    return d.rejected.empty() ? 0 : 3;
}

}  // namespace gpuconform
