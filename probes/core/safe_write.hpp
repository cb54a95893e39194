// Writing files that are ours alone. Every writer (run's --json/--junit, matrix/diff/render -o,
// Prometheus) goes through here: the target is checked before any work, the text goes into a
// temporary file created exclusively in the target's folder (O_CREAT|O_EXCL|O_NOFOLLOW, a unique
// name), is fsync'ed and renamed over a regular file only. A pre-planted symbolic link, a FIFO,
// a device node or a folder at the target is refused with the reason, never written through.
#pragma once

#include <string>
#include <string_view>

namespace gpuconform {

// "" when `path` can take a file we write; else why not (too long a name, a folder that does
// not exist or is not writable, something other than a regular file already there).
std::string output_target_problem(const std::string& path);

// Writes `text` to `path` atomically. On failure returns false and sets `error` (the path and
// the system's reason); the target is then left as it was.
bool write_file_atomic(const std::string& path, std::string_view text, std::string& error);

// Writes all of `text` to a file descriptor (stdout), retrying short writes and EINTR.
// False with the reason on any failure (a full disk, a closed pipe: SIGPIPE is ignored by us).
bool write_all(int fd, std::string_view text, std::string& error);

}  // namespace gpuconform
