// Views of a diff, and the `diff` subcommand.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "core/safe_write.hpp"
#include "diff.hpp"
#include "text_escape.hpp"

namespace gpuconform {

namespace {

const char* change_name(Change c) {
    return c == Change::Worse ? "worse" : c == Change::Better ? "better" : "changed";
}

std::string status_or_none(const std::optional<Status>& s) {
    return s ? to_string(*s) : "no result";
}

}  // namespace

std::string render_diff_terminal(const DiffResult& d, bool colour) {
    const auto paint = [&](Change c, const std::string& t) {
        const char* code = c == Change::Worse ? "\x1b[31m" : c == Change::Better ? "\x1b[32m" : "\x1b[33m";
        return colour ? code + t + "\x1b[0m" : t;
    };
    std::string out = fmt::format("base: {} runs, new: {} runs; {} status changes, {} measurements moved beyond tolerance\n",
                                  d.base_runs, d.new_runs, d.statuses.size(), d.measurements.size());
    for (const StatusChange& c : d.statuses) {
        out += fmt::format("  {:<7} {}: {} → {}  ({} → {})\n", paint(c.change, change_name(c.change)),
                           terminal_safe(c.label), status_or_none(c.base), status_or_none(c.now),
                           c.base_counts.empty() ? "-" : c.base_counts, c.now_counts.empty() ? "-" : c.now_counts);
    }
    for (const MeasurementChange& m : d.measurements) {
        out += fmt::format("  {:<7} {} {}: {:.4g} → {:.4g} {} ({:+.1f}%, tolerance {:.0f}%)\n",
                           paint(m.change, change_name(m.change)), terminal_safe(m.label), terminal_safe(m.name), m.base,
                           m.now, terminal_safe(m.unit), m.relative * 100, m.tolerance * 100);
    }
    for (const Rejected& r : d.rejected) {
        out += fmt::format("  rejected input {}: {}\n", terminal_safe(r.path), terminal_safe(r.reason));
    }
    out += d.regressed() ? "verdict: REGRESSED\n" : "verdict: no regression\n";
    return out;
}

std::string render_diff_markdown(const DiffResult& d) {
    std::string out = fmt::format("# gpuconform diff\n\nbase: {} runs, new: {} runs. **{}**\n\n", d.base_runs, d.new_runs,
                                  d.regressed() ? "Regressed" : "No regression");
    out += "| change | check | base | new |\n|---|---|---|---|\n";
    for (const StatusChange& c : d.statuses) {
        out += fmt::format("| {} | `{}` | {} ({}) | {} ({}) |\n", change_name(c.change), markdown_cell(c.label),
                           status_or_none(c.base), c.base_counts, status_or_none(c.now), c.now_counts);
    }
    out += "\n| change | check | measurement | base | new | moved | tolerance |\n|---|---|---|---|---|---|---|\n";
    for (const MeasurementChange& m : d.measurements) {
        out += fmt::format("| {} | `{}` | {} | {:.4g} {} | {:.4g} {} | {:+.1f}% | {:.0f}% |\n", change_name(m.change),
                           markdown_cell(m.label), markdown_cell(m.name), m.base, markdown_cell(m.unit), m.now,
                           markdown_cell(m.unit), m.relative * 100, m.tolerance * 100);
    }
    for (const Rejected& r : d.rejected) {
        out += fmt::format("\n- rejected input `{}`: {}", markdown_cell(r.path), markdown_cell(r.reason));
    }
    return out + "\n";
}

nlohmann::json diff_to_json(const DiffResult& d) {
    nlohmann::json statuses = nlohmann::json::array();
    for (const StatusChange& c : d.statuses) {
        statuses.push_back({{"check", c.label}, {"change", change_name(c.change)},
                            {"base", c.base ? nlohmann::json(to_string(*c.base)) : nlohmann::json(nullptr)},
                            {"new", c.now ? nlohmann::json(to_string(*c.now)) : nlohmann::json(nullptr)},
                            {"base_counts", c.base_counts}, {"new_counts", c.now_counts}});
    }
    nlohmann::json measurements = nlohmann::json::array();
    for (const MeasurementChange& m : d.measurements) {
        measurements.push_back({{"check", m.label}, {"name", m.name}, {"unit", m.unit}, {"base", m.base}, {"new", m.now},
                                {"relative", m.relative}, {"tolerance", m.tolerance}, {"change", change_name(m.change)}});
    }
    nlohmann::json rejected = nlohmann::json::array();
    for (const Rejected& r : d.rejected) {
        rejected.push_back({{"path", r.path}, {"reason", r.reason}});
    }
    return {{"schema", "gpuconform-diff"}, {"schema_version", "1.0"}, {"base_runs", d.base_runs},
            {"new_runs", d.new_runs}, {"regressed", d.regressed()}, {"statuses", statuses},
            {"measurements", measurements}, {"rejected", rejected}};
}

namespace {

struct DiffOptions {
    std::string base;
    std::string now;
    std::vector<std::string> in;
    std::string tolerances;
    std::string format = "terminal";
    std::string output;
};

// A side is a report file or folder when that path exists, else a group filter over --in.
DiffSide read_side(const std::string& spec, const DiffOptions& o, std::vector<Rejected>& rejected) {
    ReadOptions read;
    read.measurements = true;
    GroupFilter filter;
    std::vector<std::string> inputs{spec};
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
    return aggregate_side(set, filter);
}

int run_diff(const DiffOptions& o) {
    DiffResult d;
    try {
        const ToleranceTable tolerances = o.tolerances.empty() ? ToleranceTable{} : load_tolerances(o.tolerances);
        std::vector<Rejected> rejected;
        const DiffSide base = read_side(o.base, o, rejected);
        const DiffSide now = read_side(o.now, o, rejected);
        d = compare_sides(base, now, tolerances);
        d.rejected = rejected;
    } catch (const std::exception& e) {
        std::cerr << "gpuconform diff: " << e.what() << "\n";
        return 2;
    }
    const char* no_colour = std::getenv("NO_COLOR");
    const bool colour = o.output.empty() && isatty(STDOUT_FILENO) && (no_colour == nullptr || *no_colour == '\0');
    const std::string text = o.format == "json"       ? diff_to_json(d).dump(2) + "\n"
                             : o.format == "markdown" ? render_diff_markdown(d)
                                                      : render_diff_terminal(d, colour);
    std::string error;
    if (!(o.output.empty() ? write_all(STDOUT_FILENO, text, error) : write_file_atomic(o.output, text, error))) {
        std::cerr << "gpuconform diff: " << (o.output.empty() ? "cannot write to stdout: " : "") << error << "\n";
        return 2;
    }
    return diff_exit_code(d);
}

}  // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<DiffOptions>();
    CLI::App* cmd = app.add_subcommand("diff", "What changed between two reports, folders or groups of runs");
    cmd->add_option("base", o->base, "BASE: a report, a folder, or a filter key=glob[,key=glob] (keys: distro, kernel, "
                                     "driver, runtime, torch, gpu, host) applied to --in")->required();
    cmd->add_option("new", o->now, "NEW: same forms as BASE")->required();
    cmd->add_option("--in", o->in, "a report or folder that filters select from (repeatable)")->allow_extra_args(false);
    cmd->add_option("--tolerances", o->tolerances, "YAML of per-measurement tolerances (reports/examples/tolerances.yaml); "
                                                   "default: 10% relative for every measurement");
    cmd->add_option("-f,--format", o->format, "terminal|markdown|json")->check(CLI::IsMember({"terminal", "markdown", "json"}));
    cmd->add_option("-o,--output", o->output, "write here instead of stdout");
    cmd->footer("Example: gpuconform diff --in fleet/ 'distro=Debian*12*,gpu=NVIDIA H200' 'distro=Debian*13*,gpu=NVIDIA H200'\n"
                "A status that got worse, a check that stopped reporting, a new check that fails, and a measurement that "
                "moved the wrong way beyond its tolerance are regressions.\n"
                "Exit status: 0 no regression; 1 regressed; 2 bad usage or a side with no readable report; "
                "3 no regression but some inputs were rejected.");
    cmd->callback([o, &exit_code] { exit_code = run_diff(*o); });
}

}  // namespace gpuconform
