#include "runner/terminal.hpp"

#include "core/plural.hpp"

#include <unistd.h>

#include <cstdlib>
#include <map>

#include <fmt/format.h>

namespace gpuconform {

namespace {
const char* colour_of(Status s) {
    switch (s) {
        case Status::Pass:
            return "\033[32m";
        case Status::Fail:
        case Status::Error:
            return "\033[31m";
        case Status::Warn:
            return "\033[33m";
        case Status::Skip:
            return "\033[90m";
        case Status::Info:
            return "\033[36m";
    }
    return "";
}
}  // namespace

// Skips whose summaries start alike share a reason ("no GPU device visible to any runtime ...").
constexpr std::size_t k_fold_prefix = 30;

TerminalView::TerminalView(std::FILE* out, bool quiet, bool verbose)
    : m_out(out),
      m_quiet(quiet),
      m_colour(isatty(fileno(out)) != 0 && std::getenv("NO_COLOR") == nullptr),
      m_verbose(verbose) {}

void TerminalView::flush_folded() {
    if (m_folded > 0) {
        fmt::print(m_out,
                   "{} {} more check(s) skipped for the same reason (--verbose lists them; the report has all)\n",
                   paint(Status::Skip, "     "), m_folded);
    }
    m_folded = 0;
}

std::string TerminalView::paint(Status s, const std::string& text) const {
    return m_colour ? fmt::format("{}{}\033[0m", colour_of(s), text) : text;
}

void TerminalView::header(const std::string& line) {
    if (!m_quiet) {
        fmt::print(m_out, "{}\n", line);
    }
}

void TerminalView::note(const std::string& line) {
    if (!m_quiet) {
        fmt::print(m_out, "{}\n", line);
    }
}

void TerminalView::result(const CheckResult& r) {
    // --quiet still shows what needs attention.
    if (m_quiet && (r.status == Status::Pass || r.status == Status::Info || r.status == Status::Skip)) {
        return;
    }
    const std::string key = r.status == Status::Skip ? r.summary.substr(0, k_fold_prefix) : "";
    if (!m_verbose && !key.empty() && key == m_fold_key) {
        ++m_folded;
        return;
    }
    flush_folded();
    m_fold_key = key;
    std::string where = r.id;
    if (r.device) {
        where += fmt::format(" [{}:{}]", r.backend, *r.device);
    } else if (!r.backend.empty() && r.id.find("." + r.backend + ".") == std::string::npos) {
        where += fmt::format(" [{}]", r.backend);
    }
    std::string status = to_string(r.status);
    for (auto& c : status) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    fmt::print(m_out, "{} {:<46} {} ({:.2f} s)\n", paint(r.status, fmt::format("{:<5}", status)), where, r.summary,
               r.duration_s);
    std::fflush(m_out);
}

void TerminalView::verdict(const VerdictTally& tally, const std::vector<Cause>& causes) {
    flush_folded();
    const Verdict v = verdict_of(tally);
    const Status colour = v == Verdict::Pass ? Status::Pass : v == Verdict::Fail ? Status::Fail : Status::Warn;
    const std::string word = v == Verdict::Inconclusive ? "INCONCLUSIVE (could not judge)"
                             : v == Verdict::Fail       ? "FAIL"
                                                        : "PASS";
    fmt::print(m_out, "verdict: {} — {}\n", paint(colour, word), verdict_reason(tally));
    for (const auto& c : causes) {
        std::string checks;
        for (std::size_t i = 0; i < c.results.size() && i < 4; ++i) {
            checks += (i == 0 ? "" : ", ") + c.results[i];
        }
        if (c.results.size() > 4) {
            checks += fmt::format(" and {} more", c.results.size() - 4);
        }
        // A cause of the check's own is titled by its result, which already names the check.
        if (c.kind == "check") {
            fmt::print(m_out, "  * {}\n", c.title);
            if (c.results.size() > 1) {
                fmt::print(m_out, "    explains {} result(s): {}\n", c.results.size(), checks);
            }
            fmt::print(m_out, "    fix: {}\n", c.fix);
        } else {
            fmt::print(m_out, "  * {} [{}]\n    explains {} result(s): {}\n    fix: {}\n", c.title, c.kind,
                       c.results.size(), checks, c.fix);
        }
    }
    std::fflush(m_out);
}

void TerminalView::summary(const std::vector<CheckResult>& results, double seconds, const std::string& report_path) {
    flush_folded();
    std::map<Status, int> counts;
    for (const auto& r : results) {
        ++counts[r.status];
    }
    std::string line;
    for (Status s : {Status::Pass, Status::Fail, Status::Error, Status::Warn, Status::Skip, Status::Info}) {
        if (counts[s] > 0) {
            line += fmt::format("{}{} {}", line.empty() ? "" : " · ", counts[s], paint(s, to_string(s)));
        }
    }
    fmt::print(m_out, "{}: {} in {:.2f} s\n", count_of(results.size(), "check"), line.empty() ? "none ran" : line,
               seconds);
    if (!report_path.empty()) {
        fmt::print(m_out, "report: {}\n", report_path);
    }
    std::fflush(m_out);
}

}  // namespace gpuconform
