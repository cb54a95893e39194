// The one way a file the user names is read: a profile, a tolerance file, a report. A regular
// file only (a FIFO would block the read forever, /dev/zero never ends, a folder is no text),
// opened non-blocking and checked with fstat on the open descriptor, so nothing is swapped in
// between; at most `max_bytes` are read, whatever the file claims its size is.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gpuconform {

// Profiles and tolerance files are a few KiB; a larger one is a mistake, not a configuration.
inline constexpr std::size_t k_max_config_bytes = std::size_t{4} << 20;

// The file's text, or nullopt with `error` saying why ("cannot open: ...", "not a regular file
// (a FIFO, device or socket is never read)", "a folder, not a file", "larger than 4 MiB").
std::optional<std::string> read_input_file(const std::string& path, std::size_t max_bytes, std::string& error);

}  // namespace gpuconform
