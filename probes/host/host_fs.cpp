#include "host/host_fs.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/proc_file.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

std::string under_root(const std::string& root, const std::string& path) {
    if (root.empty() || root == "/") {
        return path;
    }
    std::string r = root;
    while (r.size() > 1 && r.back() == '/') {
        r.pop_back();
    }
    return path.empty() || path.front() != '/' ? r + "/" + path : r + path;
}

std::optional<std::string> read_text(const std::string& root, const std::string& path) {
    return read_proc_file(under_root(root, path));
}

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
        return "";
    }
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

std::optional<std::string> read_line(const std::string& root, const std::string& path) {
    const auto text = read_text(root, path);
    if (!text) {
        return std::nullopt;
    }
    return trim(text->substr(0, text->find('\n')));
}

bool path_exists(const std::string& root, const std::string& path) {
    std::error_code ec;
    return fs::exists(under_root(root, path), ec);
}

std::vector<std::string> list_dir(const std::string& root, const std::string& path) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(under_root(root, path), ec), end; !ec && it != end; it.increment(ec)) {
        names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace gpuconform
