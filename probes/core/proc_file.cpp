#include "core/proc_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace gpuconform {

std::optional<std::string> read_proc_file(const std::string& path) {
    // O_NONBLOCK: a FIFO planted under a --root tree cannot hang the host layer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return std::nullopt;
    }
    // /proc and /sys files report size 0 (or 4096): read until the end, within the bound.
    std::string text;
    char buf[8192];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {  // the process exited, the device went, a folder: absent
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0 || text.size() >= k_max_proc_file_bytes) {
            break;
        }
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

}  // namespace gpuconform
