// libFuzzer harness over the roll-up: the input, split at each 0x1e byte into up to eight reports,
// read as `matrix` reads a folder (the same scan, duplicated run ids and broken reports rejected
// with a reason), then every matrix view and the acceptance record, grouped three ways. Nothing
// may crash or throw out of here; no view read by people passes a terminal escape or U+202E, and
// JUnit no U+FFFE/U+FFFF (text_escape.hpp); the exit status is one the README documents.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "reports/fleet.hpp"
#include "reports/matrix.hpp"
#include "reports/render_html.hpp"
#include "reports/render_matrix.hpp"
#include "reports/render_prometheus.hpp"
#include "reports/report_set.hpp"

namespace {

// A broken rule names itself before the trap, so a crash file's log says which.
void require(bool held, const char* rule) {
    if (!held) {
        std::fprintf(stderr, "fuzz_matrix: broken: %s\n", rule);
        __builtin_trap();
    }
}

bool escaped_for_people(const std::string& out) {
    return out.find('\x1b') == std::string::npos && out.find("\xe2\x80\xae") == std::string::npos;
}

bool fits_xml(const std::string& out) {
    return out.find("\xef\xbf\xbe") == std::string::npos && out.find("\xef\xbf\xbf") == std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpuconform;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<NamedReport> texts;
    for (std::size_t start = 0; start <= input.size() && texts.size() < 8;) {
        const std::size_t end = std::min(input.find('\x1e', start), input.size());
        texts.push_back({"r" + std::to_string(texts.size()) + ".json", std::string(input.substr(start, end - start))});
        start = end + 1;
    }
    ReadOptions read;
    read.measurements = true;
    read.detail_runs = 8;
    read.problems = true;
    read.threads = 1;
    const ReportSet set = read_report_texts(texts, read);
    for (const auto& r : set.rejected) {
        require(!r.reason.empty(), "a rejection says why");
    }
    require(set.runs.size() + set.rejected.size() == texts.size(), "every report is read or rejected, none lost");
    const Fleet fleet = build_fleet(set);
    // Coloured views carry our own escapes: the rule is checked on the plain ones.
    (void)render_acceptance_terminal(fleet, set.rejected, true);
    require(escaped_for_people(render_acceptance_terminal(fleet, set.rejected, false)),
            "no escape or U+202E in the acceptance record");
    (void)render_acceptance_csv(fleet, set.rejected);
    for (const char* by : {"distro,gpu", "host", "kernel,driver"}) {
        const Matrix m = build_matrix(set, parse_group_keys(by));
        (void)render_matrix_terminal(m, true);
        require(escaped_for_people(render_matrix_terminal(m, false)), "no escape or U+202E in the terminal view");
        require(escaped_for_people(render_matrix_markdown(m)), "no escape or U+202E in the Markdown view");
        const std::string junit = render_matrix_junit(m);
        require(escaped_for_people(junit) && fits_xml(junit), "JUnit: no escape, U+202E, U+FFFE or U+FFFF");
        (void)render_matrix_csv(m);
        (void)matrix_to_json(m).dump();
        (void)render_matrix_prometheus(m);
        (void)render_html(m, set);
        (void)render_acceptance_html(fleet, m, set);
        const int exit_code = matrix_exit_code(m, fleet.inconclusive);
        require(exit_code >= 0 && exit_code <= 3, "the exit status is 0 to 3");
    }
    return 0;
}
