#include "runner/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/safe_write.hpp"
#include "runner/report.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

std::string file_safe(const std::string& text) {
    std::string out;
    for (char c : text) {
        out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_') ? c : '_';
    }
    return out.empty() ? "host" : out;
}

ReportOutput ReportOutput::prepare(const std::string& json_path, const std::string& host) {
    ReportOutput out;
    if (json_path == "-") {
        out.to_stdout = true;
        return out;
    }
    out.path = json_path.empty() ? fmt::format("gpuconform-{}-{}.json", file_safe(host), utc_now_compact()) : json_path;
    if (const std::string problem = output_target_problem(out.path); !problem.empty()) {
        out.error = fmt::format("the report: {}; pass --json PATH or --json - for stdout", problem);
    }
    return out;
}

bool ReportOutput::write(const std::string& text, std::string* message) const {
    std::string error;
    if (to_stdout) {
        if (write_all(STDOUT_FILENO, text, error)) {
            *message = "stdout";
            return true;
        }
        *message = fmt::format("cannot write the report to stdout: {}", error);
        return false;
    }
    if (write_file_atomic(path, text, error)) {
        *message = path;
        return true;
    }
    *message = fmt::format("{}; rerun with --json - to print it to stdout", error);
    return false;
}

}  // namespace gpuconform
