// Views of a diff, and the `diff` subcommand.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "core/plural.hpp"
#include "core/safe_write.hpp"
#include "reports/diff.hpp"
#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

const char* change_name(Change c) {
    return c == Change::Worse             ? "worse"
           : c == Change::Better          ? "better"
           : c == Change::CouldNotCompare ? "could not compare"
                                          : "changed";
}

std::string status_or_none(const std::optional<Status>& s) { return s ? to_string(*s) : "no result"; }

// Key figures always; diagnostics only with --all.
bool shown(const MeasurementChange& m, bool all) { return all || m.role == Role::Key; }

// The first names of a list, and how many more: a fleet's verdict line stays one line.
std::string some_names(const std::vector<std::string>& names, const char* suffix = "") {
    constexpr std::size_t k_names = 10;
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < k_names; ++i) {
        out += fmt::format("{}{}{}", out.empty() ? "" : ", ", names[i], suffix);
    }
    return names.size() > k_names ? fmt::format("{}, +{} more", out, names.size() - k_names) : out;
}

// "node1: async.copy.bandwidth [cuda:0]" in a fleet; the label alone otherwise.
std::string where(const std::string& host, const std::string& label) {
    return host.empty() ? label : host + ": " + label;
}

std::string verdict_line(const DiffResult& d) {
    if (d.hosts_compared == 0 && !d.different_nodes.empty() && !d.regressed()) {
        std::string why;
        for (const std::string& w : d.different_nodes) {
            why += (why.empty() ? "" : "; ") + w;
        }
        return "verdict: could not compare (not the same node: " + why + ")";
    }
    if (d.regressed()) {
        std::string names = some_names(d.regressed_hosts);
        if (d.vanished_regress && !d.vanished_hosts.empty()) {
            names += (names.empty() ? "" : ", ") + some_names(d.vanished_hosts, " vanished");
        }
        return d.fleet ? "verdict: REGRESSED (" + names + ")" : "verdict: REGRESSED";
    }
    std::size_t uncompared = 0;
    for (const auto& s : d.statuses) {
        uncompared += s.change == Change::CouldNotCompare ? 1 : 0;
    }
    // Said on the verdict line too, so "no regression" is never read as "all compared".
    std::string notes;
    if (uncompared > 0) {
        notes = count_of(uncompared, "result") + " could not be compared";
    }
    if (!d.not_selected.empty()) {
        notes += (notes.empty() ? "" : "; ") + count_of(d.not_selected.size(), "result") + " not selected on one side";
    }
    if (!d.different_hosts.empty()) {
        notes += (notes.empty() ? "" : "; ") + ("could not compare " + some_names(d.different_hosts)) +
                 " (not the same node)";
    }
    if (!d.vanished_regress && !d.vanished_hosts.empty()) {
        notes += (notes.empty() ? "" : "; ") + count_of(d.vanished_hosts.size(), "host") + " not in NEW's group";
    }
    return notes.empty() ? "verdict: no regression" : "verdict: no regression (" + notes + ": see above)";
}

std::string runs_line(const DiffResult& d) {
    std::string runs = fmt::format("base: {}, new: {}", count_of(d.base_runs, "run"), count_of(d.new_runs, "run"));
    if (d.grouped) {
        return runs + " (no host on both sides: compared as groups)";
    }
    if (!d.fleet) {
        return runs;
    }
    return fmt::format("{}; {} compared, {} regressed", runs, count_of(d.hosts_compared, "host"),
                       d.regressed_hosts.size());
}

// What the fleet's hosts did and what changed about a node, as lines after `lead`: the same
// rules for the terminal and Markdown.
template <typename Escape>
std::string node_lines(const DiffResult& d, const std::string& lead, Escape escape) {
    std::string out;
    for (const std::string& h : d.vanished_hosts) {
        out += fmt::format("{}vanished host: {} (in base, no run in new{})\n", lead, escape(h),
                           d.vanished_regress ? "" : "'s group: not judged");
    }
    for (const std::string& h : d.new_hosts) {
        out += fmt::format("{}new host: {}\n", lead, escape(h));
    }
    for (const std::string& why : d.different_nodes) {
        out += fmt::format("{}not the same node: {} (could not compare)\n", lead, escape(why));
    }
    for (const std::string& e : d.environment) {
        out += fmt::format("{}change under test: {}\n", lead, escape(e));
    }
    for (const LinkChange& l : d.links) {
        out += fmt::format("{}{} {}: {}\n", lead, change_name(l.change), escape(where(l.host, l.address)), l.text());
    }
    for (const CounterGrowth& c : d.counters) {
        out += fmt::format("{}worse {} ({:g} → {:g})\n", lead, escape(where(c.host, c.text())), c.base, c.now);
    }
    return out;
}

// The results only one side has because the other did not select them, per side: labels in
// lines of at most `width` columns (a fleet's --only run can leave out dozens).
template <typename Escape>
std::string not_selected_lines(const DiffResult& d, bool in_base, const std::string& lead, const std::string& indent,
                               std::size_t width, Escape escape) {
    std::vector<std::string> labels;
    for (const NotSelected& n : d.not_selected) {
        if (n.in_base == in_base) {
            labels.push_back(escape(where(n.host, n.label)));
        }
    }
    if (labels.empty()) {
        return "";
    }
    std::string out = fmt::format("{}not selected on one side: {} only in {} ({} ran {}), not compared:\n", lead,
                                  count_of(labels.size(), "result"), in_base ? "base" : "new", in_base ? "new" : "base",
                                  escape(in_base ? d.new_selection : d.base_selection));
    std::string line;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::string item = labels[i] + (i + 1 < labels.size() ? "," : "");
        if (!line.empty() && indent.size() + line.size() + 1 + item.size() > width) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + item;
    }
    return out + indent + line + "\n";
}

std::string spread(double lo, double hi) { return lo == hi ? "" : fmt::format(" [{:.4g}..{:.4g}]", lo, hi); }

}  // namespace

std::string render_diff_terminal(const DiffResult& d, bool colour, bool all) {
    const auto paint = [&](Change c, const std::string& t) {
        const char* code = c == Change::Worse ? "\x1b[31m" : c == Change::Better ? "\x1b[32m" : "\x1b[33m";
        return colour ? code + t + "\x1b[0m" : t;
    };
    const auto hidden = std::count_if(d.measurements.begin(), d.measurements.end(),
                                      [&](const MeasurementChange& m) { return !shown(m, all); });
    std::string out =
        fmt::format("{}; {}, {} regressed beyond noise\n", runs_line(d), count_of(d.statuses.size(), "status change"),
                    count_of(d.key_regressions(), "key figure"));
    out += node_lines(d, "  ", [](const std::string& t) { return terminal_safe(t); });
    for (const FindingChange& f : d.findings) {
        out += fmt::format("  finding {} ({} on both sides)\n    was: {}\n    now: {}\n",
                           terminal_safe(where(f.host, f.label)), to_string(f.status), terminal_safe(f.base),
                           terminal_safe(f.now));
    }
    for (const StatusChange& c : d.statuses) {
        out += fmt::format("  {:<7} {}: {} → {}  ({} → {})\n", paint(c.change, change_name(c.change)),
                           terminal_safe(where(c.host, c.label)), status_or_none(c.base), status_or_none(c.now),
                           c.base_counts.empty() ? "-" : c.base_counts, c.now_counts.empty() ? "-" : c.now_counts);
    }
    for (const bool in_base : {true, false}) {
        out += not_selected_lines(d, in_base, "  ", "    ", 110, [](const std::string& t) { return terminal_safe(t); });
    }
    for (const MeasurementChange& m : d.measurements) {
        if (!shown(m, all)) {
            continue;
        }
        out += fmt::format("  {:<7} {} {} {} {}: {:.4g}{} → {:.4g}{} {} ({:+.1f}%, noise floor {:.0f}%){}\n",
                           paint(m.change, change_name(m.change)), to_string(m.role),
                           terminal_safe(where(m.host, m.label)), terminal_safe(m.name),
                           to_string(m.direction) + " is better", m.base, spread(m.base_lo, m.base_hi), m.now,
                           spread(m.now_lo, m.now_hi), terminal_safe(m.unit), m.relative * 100, m.floor * 100,
                           m.note.empty() ? "" : "; " + m.note);
    }
    if (hidden > 0) {
        out += fmt::format("  ({} moved beyond noise; --all shows them)\n",
                           count_of(static_cast<std::size_t>(hidden), "diagnostic figure"));
    }
    for (const Rejected& r : d.rejected) {
        out += fmt::format("  rejected input {}: {}\n", terminal_safe(r.path), terminal_safe(r.reason));
    }
    return out + verdict_line(d) + "\n";
}

std::string render_diff_markdown(const DiffResult& d, bool all) {
    std::string out = fmt::format("# gpuconform diff\n\n{}. **{}**\n\n", runs_line(d), verdict_line(d).substr(9));
    out += node_lines(d, "- ", [](const std::string& t) { return markdown_cell(t); });
    for (const FindingChange& f : d.findings) {
        out += fmt::format("- finding `{}` ({} on both sides): was {}; now {}\n", markdown_cell(where(f.host, f.label)),
                           to_string(f.status), markdown_cell(f.base), markdown_cell(f.now));
    }
    for (const bool in_base : {true, false}) {
        // One long line: Markdown reflows it.
        out += not_selected_lines(d, in_base, "- ", "  ", std::string::npos,
                                  [](const std::string& t) { return "`" + markdown_cell(t) + "`"; });
    }
    out += "\n| change | check | base | new |\n|---|---|---|---|\n";
    for (const StatusChange& c : d.statuses) {
        out += fmt::format("| {} | `{}` | {} ({}) | {} ({}) |\n", change_name(c.change),
                           markdown_cell(where(c.host, c.label)), status_or_none(c.base), c.base_counts,
                           status_or_none(c.now), c.now_counts);
    }
    out +=
        "\n| change | role | check | measurement | base | new | moved | noise floor | note |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
    for (const MeasurementChange& m : d.measurements) {
        if (!shown(m, all)) {
            continue;
        }
        out += fmt::format("| {} | {} | `{}` | {} | {:.4g}{} {} | {:.4g}{} {} | {:+.1f}% | {:.0f}% | {} |\n",
                           change_name(m.change), to_string(m.role), markdown_cell(where(m.host, m.label)),
                           markdown_cell(m.name), m.base, spread(m.base_lo, m.base_hi), markdown_cell(m.unit), m.now,
                           spread(m.now_lo, m.now_hi), markdown_cell(m.unit), m.relative * 100, m.floor * 100,
                           markdown_cell(m.note));
    }
    for (const Rejected& r : d.rejected) {
        out += fmt::format("\n- rejected input `{}`: {}", markdown_cell(r.path), markdown_cell(r.reason));
    }
    return out + "\n";
}

static nlohmann::json findings_json(const DiffResult& d) {
    nlohmann::json out = nlohmann::json::array();
    for (const FindingChange& f : d.findings) {
        out.push_back(
            {{"host", f.host}, {"check", f.label}, {"status", to_string(f.status)}, {"base", f.base}, {"new", f.now}});
    }
    return out;
}

nlohmann::json diff_to_json(const DiffResult& d) {
    nlohmann::json statuses = nlohmann::json::array();
    for (const StatusChange& c : d.statuses) {
        statuses.push_back({{"host", c.host},
                            {"check", c.label},
                            {"change", change_name(c.change)},
                            {"base", c.base ? nlohmann::json(to_string(*c.base)) : nlohmann::json(nullptr)},
                            {"new", c.now ? nlohmann::json(to_string(*c.now)) : nlohmann::json(nullptr)},
                            {"base_counts", c.base_counts},
                            {"new_counts", c.now_counts}});
    }
    nlohmann::json measurements = nlohmann::json::array();
    for (const MeasurementChange& m : d.measurements) {
        const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
        measurements.push_back({{"host", m.host},
                                {"check", m.label},
                                {"name", m.name},
                                {"unit", m.unit},
                                {"base", m.base},
                                {"new", m.now},
                                {"base_min", m.base_lo},
                                {"base_max", m.base_hi},
                                {"new_min", m.now_lo},
                                {"new_max", m.now_hi},
                                {"relative", finite(m.relative)},
                                {"noise_floor", m.floor},
                                {"direction", to_string(m.direction)},
                                {"role", to_string(m.role)},
                                {"change", change_name(m.change)},
                                {"note", m.note}});
    }
    nlohmann::json not_selected = nlohmann::json::array();
    for (const NotSelected& n : d.not_selected) {
        not_selected.push_back({{"host", n.host},
                                {"check", n.label},
                                {"only_in", n.in_base ? "base" : "new"},
                                {"status", to_string(n.status)}});
    }
    nlohmann::json rejected = nlohmann::json::array();
    for (const Rejected& r : d.rejected) {
        rejected.push_back({{"path", r.path}, {"reason", r.reason}});
    }
    nlohmann::json links = nlohmann::json::array();
    for (const LinkChange& l : d.links) {
        links.push_back({{"host", l.host},
                         {"address", l.address},
                         {"base", {{"width", l.base.width}, {"speed_gts", l.base.speed}}},
                         {"new", {{"width", l.now.width}, {"speed_gts", l.now.speed}}},
                         {"change", change_name(l.change)},
                         {"text", l.text()}});
    }
    nlohmann::json counters = nlohmann::json::array();
    for (const CounterGrowth& c : d.counters) {
        counters.push_back({{"host", c.host},
                            {"gpu", c.gpu},
                            {"counter", c.counter},
                            {"base", c.base},
                            {"new", c.now},
                            {"text", c.text()}});
    }
    return {{"schema", "gpuconform-diff"},
            {"schema_version", "1.4"},
            {"base_runs", d.base_runs},
            {"new_runs", d.new_runs},
            {"regressed", d.regressed()},
            {"verdict", verdict_line(d).substr(9)},
            {"hosts",
             {{"compared", d.hosts_compared},
              {"regressed", d.regressed_hosts},
              {"vanished", d.vanished_hosts},
              {"new", d.new_hosts},
              {"not_same_node", d.different_hosts},
              {"grouped", d.grouped}}},
            {"different_nodes", d.different_nodes},
            {"environment", d.environment},
            {"links", links},
            {"counters", counters},
            {"findings", findings_json(d)},
            {"statuses", statuses},
            {"measurements", measurements},
            {"not_selected", not_selected},
            {"selection", {{"base", d.base_selection}, {"new", d.new_selection}}},
            {"rejected", rejected}};
}

namespace {

struct DiffOptions {
    std::string base;
    std::string now;
    std::vector<std::string> in;
    StoreQuery store;  // --store: the sides come from the results store
    std::string tolerances;
    std::string format = "terminal";
    std::string output;
    bool all = false;
};

// With --store, a side is a window FROM..UNTIL of the store (either end may be left out; the
// store's own --since/--until bound what is left out) or a group filter over the store's
// --since/--until window.
ReportSet read_store_side(const std::string& spec, const DiffOptions& o, const StoreReader& store,
                          const ReadOptions& read, GroupFilter& filter) {
    StoreQuery q = o.store;
    if (const auto dots = spec.find(".."); dots != std::string::npos) {
        const std::string from = spec.substr(0, dots);
        const std::string until = spec.substr(dots + 2);
        if (from.empty() && until.empty()) {
            throw std::invalid_argument("'" + spec + "': a window needs a start, an end or both (FROM..UNTIL)");
        }
        q.since = from.empty() ? q.since : from;
        q.until = until.empty() ? q.until : until;
    } else if (const auto parsed = parse_group_filter(spec)) {
        filter = *parsed;
    } else {
        throw std::invalid_argument("with --store, '" + spec +
                                    "' is neither a window FROM..UNTIL nor a key=glob filter");
    }
    return store(q, read);
}

// A side is a report file or folder when that path exists, else a group filter over --in.
FleetSide read_side(const std::string& spec, const DiffOptions& o, const StoreReader& store,
                    std::vector<Rejected>& rejected) {
    ReadOptions read;
    read.measurements = true;
    read.problems = true;  // summaries of warn/fail/error results: findings that changed
    GroupFilter filter;
    std::vector<std::string> inputs{spec};
    if (!o.store.location.empty()) {
        if (!store) {
            throw std::invalid_argument("--store: this gpuconform was built without the results store");
        }
        const ReportSet set = read_store_side(spec, o, store, read, filter);
        for (const Rejected& r : set.rejected) {
            rejected.push_back(r);
            std::cerr << "gpuconform diff: rejected " << r.path << ": " << r.reason << "\n";
        }
        return aggregate_fleet(set, filter);
    }
    if (!std::filesystem::exists(spec)) {
        const auto parsed = parse_group_filter(spec);
        if (!parsed) {
            throw std::invalid_argument("'" + spec + "' is neither a report, a folder nor a key=glob filter");
        }
        if (o.in.empty()) {
            throw std::invalid_argument("filter '" + spec + "' needs --in PATH to select from");
        }
        filter = *parsed;
        inputs = o.in;
    }
    const ReportSet set = read_reports(inputs, read);
    for (const Rejected& r : set.rejected) {
        if (std::none_of(rejected.begin(), rejected.end(), [&](const Rejected& x) { return x.path == r.path; })) {
            rejected.push_back(r);
            std::cerr << "gpuconform diff: rejected " << r.path << ": " << r.reason << "\n";
        }
    }
    return aggregate_fleet(set, filter);
}

int run_diff(const DiffOptions& o, const StoreReader& store) {
    DiffResult d;
    try {
        const ToleranceTable tolerances = o.tolerances.empty() ? ToleranceTable{} : load_tolerances(o.tolerances);
        std::vector<Rejected> rejected;
        FleetSide base = read_side(o.base, o, store, rejected);
        FleetSide now = read_side(o.now, o, store, rejected);
        // Selections are read again from the files only when some result is on one side only.
        read_selections(base, now);
        d = compare_fleets(base, now, tolerances);
        d.rejected = rejected;
    } catch (const std::exception& e) {
        std::cerr << "gpuconform diff: " << e.what() << "\n";
        return 2;
    }
    const char* no_colour = std::getenv("NO_COLOR");
    const bool colour = o.output.empty() && isatty(STDOUT_FILENO) && (no_colour == nullptr || *no_colour == '\0');
    const std::string text = o.format == "json"       ? diff_to_json(d).dump(2) + "\n"
                             : o.format == "markdown" ? render_diff_markdown(d, o.all)
                                                      : render_diff_terminal(d, colour, o.all);
    std::string error;
    if (!(o.output.empty() ? write_all(STDOUT_FILENO, text, error) : write_file_atomic(o.output, text, error))) {
        std::cerr << "gpuconform diff: " << (o.output.empty() ? "cannot write to stdout: " : "") << error << "\n";
        return 2;
    }
    return diff_exit_code(d);
}

}  // namespace

void add_diff_command(CLI::App& app, int& exit_code, bool run, const StoreReader& store) {
    auto o = std::make_shared<DiffOptions>();
    CLI::App* cmd = app.add_subcommand("diff", "What changed between two reports, folders or groups of runs");
    cmd->add_option("base", o->base,
                    "BASE: a report, a folder, or a filter key=glob[,key=glob] (keys: distro, kernel, "
                    "driver, runtime, torch, gpu, host) applied to --in")
        ->required();
    cmd->add_option("new", o->now, "NEW: same forms as BASE")->required();
    CLI::Option* in = cmd->add_option("--in", o->in, "a report or folder that filters select from (repeatable)")
                          ->allow_extra_args(false);
    CLI::Option* from_store =
        cmd->add_option("--store", o->store.location,
                        "read both sides from the results store (an SQLite file, postgresql://... or pg:...): "
                        "BASE and NEW are then windows FROM..UNTIL (2026-11-29..2026-11-30, ..2026-11-30) or "
                        "key=glob filters over --since/--until");
    from_store->excludes(in);
    cmd->add_option("--since", o->store.since, "with --store: stored runs started at or after this (UTC day or time)")
        ->needs(from_store);
    cmd->add_option("--until", o->store.until, "with --store: stored runs started before this")->needs(from_store);
    cmd->add_option("--tolerances", o->tolerances,
                    "YAML overriding measurements' noise floors, direction or role: `default: F` and "
                    "`measurements:` a list of {match: GLOB over check.id/name, tolerance: F, better: "
                    "higher|lower|none, role: key|diagnostic}, first match wins; default: each measurement's "
                    "declaration");
    cmd->add_flag("--all", o->all,
                  "Also list diagnostic figures (call latencies, pageable copies) that moved beyond noise");
    cmd->add_option("-f,--format", o->format, "terminal|markdown|json")
        ->check(CLI::IsMember({"terminal", "markdown", "json"}));
    cmd->add_option("-o,--output", o->output, "write here instead of stdout");
    cmd->footer(
        "Example: gpuconform diff --in fleet/ 'distro=Debian*12*,gpu=NVIDIA H200' 'distro=Debian*13*,gpu=NVIDIA H200'\n"
        "From the results store, two nights: gpuconform diff --store nights.sqlite 2026-11-29..2026-11-30 "
        "2026-11-30..2026-12-01\n"
        "REGRESSED means a status got worse (a check now fails or errors, stopped reporting, or is new and "
        "fails) or a key figure's new median lies outside the base's min..max widened by its noise floor, "
        "the bad way. Errored or disturbed results are 'could not compare'. A check one side's runs did "
        "not select (run --layer, --only, --device, --quick) is 'not selected on one side', listed apart. "
        "Folders and groups are compared host by host (environment.hostname): a host that regressed or "
        "vanished makes the fleet REGRESSED, named; sides with no host in common are compared as groups. "
        "A link that trained narrower or slower is a regression of its own; a driver or runtime change is "
        "the change under test, and the figures are judged. Another GPU model (or, for two single hosts, "
        "another host name) is not the same node: that host could not be compared.\n"
        "Exit status: 0 no regression; 1 regressed; 2 bad usage, a bad tolerance file or a side with no "
        "readable report; 3 no regression but some inputs were rejected; 4 different nodes: no host "
        "could be compared (not the same node).");
    cmd->callback([o, &exit_code, run, store] { exit_code = run ? run_diff(*o, store) : 0; });
}

}  // namespace gpuconform
