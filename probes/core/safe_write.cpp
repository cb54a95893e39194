#include "core/safe_write.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace gpuconform {

namespace fs = std::filesystem;

namespace {

std::string folder_of(const std::string& path) {
    const std::string dir = fs::path(path).parent_path().string();
    return dir.empty() ? "." : dir;
}

const char* kind_of(mode_t mode) {
    if (S_ISLNK(mode)) {
        return "a symbolic link";
    }
    if (S_ISDIR(mode)) {
        return "a folder";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO";
    }
    if (S_ISCHR(mode) || S_ISBLK(mode)) {
        return "a device node";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a regular file";
}

// A name no other writer (another run, another thread) can be using at the same moment.
std::string temporary_name(const std::string& path) {
    static std::atomic<unsigned> counter{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    const fs::path p(path);
    return (fs::path(folder_of(path)) /
            fmt::format(".{}.{}.{}.{:x}.tmp", p.filename().string().substr(0, 100), getpid(), counter++, now))
        .string();
}

}  // namespace

std::string output_target_problem(const std::string& path) {
    if (path.empty()) {
        return "the output path is empty";
    }
    if (path.size() >= PATH_MAX) {
        return fmt::format("the output path is {} bytes long (the limit is {})", path.size(), PATH_MAX - 1);
    }
    const std::string name = fs::path(path).filename().string();
    if (name.empty() || name == "." || name == "..") {
        return fmt::format("cannot write to {}: it names a folder, not a file", path);
    }
    if (name.size() > NAME_MAX - 40) {  // room for the temporary name's suffix
        return fmt::format("cannot write to {}: the file name is {} bytes long (the limit here is {})", path,
                           name.size(), NAME_MAX - 40);
    }
    const std::string dir = folder_of(path);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return fmt::format("cannot write to {}: folder {} does not exist", path, dir);
    }
    if (::access(dir.c_str(), W_OK) != 0) {
        return fmt::format("cannot write to {}: folder {} is not writable ({})", path, dir, std::strerror(errno));
    }
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        return fmt::format("cannot write to {}: it is {}; only a regular file is replaced", path, kind_of(st.st_mode));
    }
    return "";
}

bool write_all(int fd, std::string_view text, std::string& error) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            error = n < 0 ? std::strerror(errno) : "the write made no progress";
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

bool write_file_atomic(const std::string& path, std::string_view text, std::string& error) {
    if (error = output_target_problem(path); !error.empty()) {
        return false;
    }
    const std::string tmp = temporary_name(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        error = fmt::format("cannot create a temporary file beside {}: {}", path, std::strerror(errno));
        return false;
    }
    std::string why;
    bool ok = write_all(fd, text, why);
    if (ok && ::fsync(fd) != 0) {
        why = std::strerror(errno);
        ok = false;
    }
    if (::close(fd) != 0 && ok) {
        why = std::strerror(errno);
        ok = false;
    }
    if (ok) {
        // Checked again just before the rename: something may have appeared at the target meanwhile.
        if (const std::string problem = output_target_problem(path); !problem.empty()) {
            ::unlink(tmp.c_str());
            error = problem;
            return false;
        }
        if (std::rename(tmp.c_str(), path.c_str()) == 0) {
            return true;
        }
        why = std::strerror(errno);
    }
    ::unlink(tmp.c_str());
    error = fmt::format("cannot write {}: {}", path, why);
    return false;
}

}  // namespace gpuconform
