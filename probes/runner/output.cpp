#include "runner/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

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
    fs::path dir = fs::path(out.path).parent_path();
    if (dir.empty()) {
        dir = ".";
    }
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        out.error = fmt::format("cannot write the report to {}: folder {} does not exist", out.path, dir.string());
    } else if (access(dir.c_str(), W_OK) != 0) {
        out.error = fmt::format("cannot write the report to {}: folder {} is not writable ({}); "
                                "pass --json PATH or --json - for stdout",
                                out.path, dir.string(), std::strerror(errno));
    }
    return out;
}

bool ReportOutput::write(const std::string& text, std::string* message) const {
    if (to_stdout) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        *message = "stdout";
        return true;
    }
    const std::string tmp = path + ".partial";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    std::size_t done = 0;
    while (ok && done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        ok = n > 0;
        done += ok ? static_cast<std::size_t>(n) : 0;
    }
    ok = ok && ::fsync(fd) == 0;
    const int saved = errno;
    if (fd >= 0) {
        ok = ::close(fd) == 0 && ok;
    }
    if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) {
        *message = path;
        return true;
    }
    ::unlink(tmp.c_str());
    *message = fmt::format("cannot write the report to {}: {}; rerun with --json - to print it to stdout", path,
                           std::strerror(saved != 0 ? saved : errno));
    return false;
}

}  // namespace gpuconform
