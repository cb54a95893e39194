// Reading files below a root folder: "/" on a real host, a folder of samples in tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuconform {

// `root` joined with an absolute `path` ("/" + "/proc/meminfo" -> "/proc/meminfo").
std::string under_root(const std::string& root, const std::string& path);

// The whole file, or empty when it cannot be read (absent, no permission).
std::optional<std::string> read_text(const std::string& root, const std::string& path);

// The first line without its newline and surrounding blanks.
std::optional<std::string> read_line(const std::string& root, const std::string& path);

bool path_exists(const std::string& root, const std::string& path);

// Names of the entries of a folder, sorted; empty when it cannot be read.
std::vector<std::string> list_dir(const std::string& root, const std::string& path);

std::string trim(const std::string& s);

}  // namespace gpuconform
