#include "core/input_file.hpp"

#include "core/byte_sizes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gpuconform {

namespace {

// Why a file of this mode is never read, or "" for a regular file.
std::string mode_problem(mode_t mode) {
    if (S_ISREG(mode)) {
        return "";
    }
    if (S_ISDIR(mode)) {
        return "a folder, not a file";
    }
    return "not a regular file (a FIFO, device or socket is never read)";
}

}  // namespace

std::optional<std::string> read_input_file(const std::string& path, std::size_t max_bytes, std::string& error) {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error = std::string("cannot open: ") + std::strerror(errno);
        return std::nullopt;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        error = std::string("cannot stat: ") + std::strerror(errno);
        ::close(fd);
        return std::nullopt;
    }
    if (std::string why = mode_problem(st.st_mode); !why.empty()) {
        error = std::move(why);
        ::close(fd);
        return std::nullopt;
    }
    const std::string too_large = "larger than " + size_words(max_bytes);
    if (static_cast<std::size_t>(st.st_size) > max_bytes) {
        error = too_large;
        ::close(fd);
        return std::nullopt;
    }
    // Read to the end, but never past one byte beyond the bound: that byte tells a file that grew
    // while read (or lied about its size) from one that fits.
    std::string text(static_cast<std::size_t>(st.st_size) + 1, '\0');
    std::size_t done = 0;
    for (;;) {
        if (done == text.size()) {
            if (done > max_bytes) {
                break;
            }
            text.resize(std::min(max_bytes + 1, text.size() * 2));
        }
        const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            error = std::string("cannot read: ") + std::strerror(errno);
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0) {
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (done > max_bytes) {
        error = too_large;
        return std::nullopt;
    }
    text.resize(done);  // a file that shrank while read is judged on what was there
    return text;
}

}  // namespace gpuconform
