// The live terminal view of a run: one line per finished check, then a summary line.
// Colour only on a terminal and never when NO_COLOR is set (https://no-color.org).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/run_verdict.hpp"
#include "runner/causes.hpp"

namespace gpuconform {

class TerminalView {
public:
    TerminalView(std::FILE* out, bool quiet, bool verbose = false);
    void header(const std::string& line);
    void result(const CheckResult& r);
    void summary(const std::vector<CheckResult>& results, double seconds, const std::string& report_path);
    void note(const std::string& line);
    // The last lines of a run: the verdict (core/run_verdict.hpp) and its reason, then each root
    // cause once with the checks it explains and the fix. Printed under --quiet too.
    void verdict(const VerdictTally& tally, const std::vector<Cause>& causes);

private:
    std::string paint(Status s, const std::string& text) const;
    std::FILE* m_out;
    bool m_quiet;
    bool m_colour;
    bool m_verbose;
    // Skips for one reason are folded into one line unless --verbose.
    std::string m_fold_key;
    int m_folded = 0;
    void flush_folded();
};

}  // namespace gpuconform
