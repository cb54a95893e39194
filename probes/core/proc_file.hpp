// The one way /proc and /sys (and the small files under /etc the host layer reads) are read.
// A process can exit, a device can go, between listing a file and reading it: the read then
// fails (ESRCH, ENODEV) and the file is taken as absent. Never throws (libstdc++'s
// istreambuf_iterator throws basic_filebuf::underflow on exactly that read error).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gpuconform {

// /proc/self/maps of a large process is a few MiB; nothing we read is larger.
inline constexpr std::size_t k_max_proc_file_bytes = std::size_t{16} << 20;

// The file's text (at most k_max_proc_file_bytes), or nullopt when it cannot be opened or read.
std::optional<std::string> read_proc_file(const std::string& path);

}  // namespace gpuconform
