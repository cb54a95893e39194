#include "reports/rollup_cli.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "core/safe_write.hpp"
#include "reports/diff.hpp"
#include "reports/fleet.hpp"
#include "reports/render_html.hpp"
#include "reports/render_matrix.hpp"
#include "reports/render_prometheus.hpp"
#include "reports/render_report.hpp"

namespace gpuconform {

namespace {

const std::vector<std::string> k_formats{"terminal", "markdown", "csv", "json", "junit", "prometheus", "html"};
// One report also has its phases to show (run.phases): where that run's time went.
// `verdict` is the run's verdict as one JSON object, for scripts.
const std::vector<std::string> k_render_formats{"terminal",   "markdown", "csv",     "json",   "junit",
                                                "prometheus", "html",     "timings", "verdict"};

const char* const k_exit_help =
    "Exit status: 0 all inputs read and nothing failing; 1 a failing cell or a node that could not be judged "
    "(matrix: an interrupted run, a device layer that never ran, every check skipped) or a regression (diff); "
    "2 bad usage or no readable report; 3 some inputs were rejected (named on stderr and in the output) "
    "but the rest showed nothing failing.";

bool colour_wanted(const std::string& output) {
    const char* no_colour = std::getenv("NO_COLOR");
    return output.empty() && isatty(STDOUT_FILENO) && (no_colour == nullptr || *no_colour == '\0');
}

int write_output(const std::string& text, const std::string& output) {
    std::string error;
    if (output.empty() ? write_all(STDOUT_FILENO, text, error) : write_file_atomic(output, text, error)) {
        return 0;
    }
    std::cerr << "gpuconform: " << (output.empty() ? "cannot write to stdout: " : "") << error << "\n";
    return 2;
}

void report_rejected(const std::vector<Rejected>& rejected) {
    for (const Rejected& r : rejected) {
        std::cerr << "gpuconform: rejected " << r.path << ": " << r.reason << "\n";
    }
}

struct MatrixOptions {
    std::vector<std::string> inputs;
    StoreQuery store;
    std::string by = "distro,gpu";
    std::string format = "terminal";
    std::string output;
    unsigned threads = 0;
    bool only_problems = false;
    bool drift = false;  // the fleet page from a store adds its slow declines
};

bool problem_cell(const Cell& c) { return c.total() > 0 && severity(c.worst()) >= severity(Status::Warn); }

// The checks (rows) and groups (columns) that hold a warn, fail or error cell; nothing else changes.
Matrix problem_rows_only(Matrix m) {
    std::vector<bool> keep_column(m.columns.size(), false);
    std::vector<std::size_t> rows;
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        bool any = false;
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            if (problem_cell(m.cells[r][c])) {
                keep_column[c] = true;
                any = true;
            }
        }
        if (any) {
            rows.push_back(r);
        }
    }
    Matrix out = m;
    out.rows.clear();
    out.cells.clear();
    out.columns.clear();
    out.column_runs.clear();
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        if (keep_column[c]) {
            out.columns.push_back(m.columns[c]);
            out.column_runs.push_back(m.column_runs[c]);
        }
    }
    for (const std::size_t r : rows) {
        out.rows.push_back(m.rows[r]);
        out.cells.emplace_back();
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            if (keep_column[c]) {
                out.cells.back().push_back(std::move(m.cells[r][c]));
            }
        }
    }
    return out;
}

int run_matrix(const MatrixOptions& o, const StoreReader& read_store) {
    if (o.inputs.empty() == o.store.location.empty()) {
        std::cerr << "gpuconform matrix: give report paths or --store (one of them)\n";
        return 2;
    }
    if (!o.store.location.empty() && !read_store) {
        std::cerr << "gpuconform matrix: --store: this gpuconform was built without the results store\n";
        return 2;
    }
    std::vector<GroupKey> by;
    try {
        by = parse_group_keys(o.by);
    } catch (const std::invalid_argument& e) {
        std::cerr << "gpuconform matrix: " << e.what() << "\n";
        return 2;
    }
    if (const std::string problem = o.output.empty() ? "" : output_target_problem(o.output); !problem.empty()) {
        std::cerr << "gpuconform matrix: -o: " << problem << "\n";
        return 2;
    }
    // The acceptance record is kept whole: it lists every node, whatever its verdict.
    const bool acceptance = by == std::vector<GroupKey>{GroupKey::Host};
    const bool record = acceptance && (o.format == "terminal" || o.format == "csv" || o.format == "html");
    if (o.drift && (o.store.location.empty() || o.format != "html" || acceptance)) {
        std::cerr << "gpuconform matrix: --drift adds the store's slow declines to the fleet page: it needs --store "
                     "and -f html, and is not part of the acceptance record (--by host)\n";
        return 2;
    }
    if (o.only_problems && record) {
        std::cerr << "gpuconform matrix: --only-problems does not apply to the acceptance record (--by host as "
                     "terminal, csv or html), which lists every node\n";
        return 2;
    }
    ReadOptions read;
    read.threads = o.threads;
    read.measurements = o.format == "html" || o.format == "prometheus";
    read.detail_runs = o.format == "html" ? k_html_detail_runs : 0;
    read.problems = o.format != "prometheus" && o.format != "junit";
    read.declines = o.drift;
    ReportSet set;
    if (o.store.location.empty()) {
        set = read_reports(o.inputs, read);
    } else {
        try {
            set = read_store(o.store, read);
        } catch (const std::exception& e) {
            std::cerr << "gpuconform matrix: --store: " << e.what() << "\n";
            return 2;
        }
    }
    report_rejected(set.rejected);
    const Matrix m = o.only_problems ? problem_rows_only(build_matrix(set, by)) : build_matrix(set, by);
    // Grouped by host, the person-readable views are the acceptance record: a verdict per node.
    std::string text;
    if (acceptance && o.format == "terminal") {
        text = render_acceptance_terminal(build_fleet(set), set.rejected, colour_wanted(o.output));
    } else if (acceptance && o.format == "csv") {
        text = render_acceptance_csv(build_fleet(set), set.rejected);
    } else if (acceptance && o.format == "html") {
        text = render_acceptance_html(build_fleet(set), m, set);
    } else if (o.format == "terminal") {
        text = render_matrix_terminal(m, colour_wanted(o.output));
    } else if (o.format == "markdown") {
        text = render_matrix_markdown(m);
    } else if (o.format == "csv") {
        text = render_matrix_csv(m);
    } else if (o.format == "json") {
        text = matrix_to_json(m).dump(2) + "\n";
    } else if (o.format == "junit") {
        text = render_matrix_junit(m);
    } else if (o.format == "prometheus") {
        text = render_matrix_prometheus(m);
    } else {
        text = render_html(m, set);
    }
    const int written = write_output(text, o.output);
    return written != 0 ? written : matrix_exit_code(m, build_fleet(set).inconclusive);
}

struct RenderOptions {
    std::string report;
    std::string format = "terminal";
    std::string output;
    bool only_problems = false;
};

int run_render(const RenderOptions& o) {
    if (const std::string problem = o.output.empty() ? "" : output_target_problem(o.output); !problem.empty()) {
        std::cerr << "gpuconform render: -o: " << problem << "\n";
        return 2;
    }
    std::string error;
    const auto doc = load_report(o.report, error);
    if (!doc) {
        std::cerr << "gpuconform render: " << o.report << ": " << error << "\n";
        return 2;
    }
    std::string text;
    try {
        text = render_report(*doc, o.format, colour_wanted(o.output), o.report, o.only_problems);
    } catch (const std::exception& e) {  // a field the view needed had a shape the reader let through
        std::cerr << "gpuconform render: " << o.report << ": cannot be shown: " << e.what() << "\n";
        return 2;
    }
    return write_output(text, o.output);
}

void add_render(CLI::App& app, int& exit_code, bool run) {
    auto o = std::make_shared<RenderOptions>();
    CLI::App* cmd = app.add_subcommand("render", "Show one run report in another format");
    cmd->add_option("report", o->report, "report JSON file written by `gpuconform run`")->required();
    cmd->add_option("-f,--format", o->format,
                    "terminal|markdown|csv|json|junit|prometheus|html|timings|verdict; verdict prints one JSON "
                    "object for scripts: {verdict (pass, fail, inconclusive), reason, deciding, failing, "
                    "inconclusive}")
        ->check(CLI::IsMember(k_render_formats));
    cmd->add_option("-o,--output", o->output, "write here instead of stdout");
    cmd->add_flag("--only-problems", o->only_problems,
                  "show only fail, error and warn results (with the verdict and causes of the whole run); "
                  "timings is unchanged");
    cmd->footer(
        "Example: gpuconform render -f verdict report.json  (what the Slurm and Kubernetes glue read)\n"
        "Exit status: 0 rendered; 2 the report could not be read (refused: not JSON, not a report, an "
        "unknown status, a field of the wrong type).");
    // The callback owns the options the parser writes into, so it stays even when it must not run.
    cmd->callback([o, &exit_code, run] { exit_code = run ? run_render(*o) : 0; });
}

// --store and its window, for the views that can read the results store instead of files.
void add_store_options(CLI::App* cmd, StoreQuery& q, CLI::Option* paths) {
    CLI::Option* store = cmd->add_option("--store", q.location,
                                         "read the results store instead of files: an SQLite file, or PostgreSQL as "
                                         "postgresql://... or pg:<libpq keywords> (pg: alone: the PG* variables)");
    store->excludes(paths);
    cmd->add_option("--since", q.since,
                    "stored runs started at or after this (2026-11-29 or 2026-11-29T22:00:00Z, UTC)")
        ->needs(store);
    cmd->add_option("--until", q.until, "stored runs started before this (same forms; not included)")->needs(store);
    cmd->add_flag("--last-night", q.last_night,
                  "each host's newest stored run of the 24 h ending at the newest run (within --since/--until)")
        ->needs(store);
}

void add_matrix(CLI::App& app, int& exit_code, bool run, const StoreReader& store) {
    auto o = std::make_shared<MatrixOptions>();
    CLI::App* cmd = app.add_subcommand("matrix", "Roll many reports up into a check x group matrix");
    CLI::Option* paths =
        cmd->add_option("paths", o->inputs, "report files and folders (searched recursively for *.json)");
    add_store_options(cmd, o->store, paths);
    cmd->add_option("--by", o->by,
                    "group keys, comma-separated: distro,kernel,driver,runtime,torch,gpu,host; "
                    "`--by host` shows the acceptance record (a verdict per node) as terminal, csv or html")
        ->capture_default_str();
    cmd->add_option("-f,--format", o->format, "terminal|markdown|csv|json|junit|prometheus|html")
        ->check(CLI::IsMember(k_formats))
        ->capture_default_str();
    cmd->add_option("-o,--output", o->output, "write here instead of stdout");
    cmd->add_option("-j,--threads", o->threads, "parser threads (default: one per core)");
    cmd->add_flag("--drift", o->drift,
                  "with --store and -f html: the fleet page adds each node's slow declines over the store's last 30 "
                  "nights (as `store drift`), a chart per declining figure");
    cmd->add_flag("--only-problems", o->only_problems,
                  "keep only the checks and groups with a warn, fail or error cell (not for the acceptance record)");
    cmd->footer(k_exit_help);
    cmd->callback([o, &exit_code, run, store] { exit_code = run ? run_matrix(*o, store) : 0; });
}

}  // namespace

void add_rollup_commands(CLI::App& app, int& exit_code, bool run, const StoreReader& store) {
    add_render(app, exit_code, run);
    add_matrix(app, exit_code, run, store);
    add_diff_command(app, exit_code, run, store);
}

}  // namespace gpuconform
