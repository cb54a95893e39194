// The small pieces of report_set.hpp: interning, and finding the report files.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>

#include "reports/report_set.hpp"

namespace gpuconform {

namespace fs = std::filesystem;

std::uint32_t StringTable::intern(std::string_view s) {
    const auto it = m_ids.find(std::string(s));
    if (it != m_ids.end()) {
        return it->second;
    }
    const auto id = static_cast<std::uint32_t>(m_strings.size());
    m_strings.emplace_back(s);
    m_ids.emplace(m_strings.back(), id);
    return id;
}

std::string join_fields(std::initializer_list<std::string_view> fields) {
    std::string out;
    for (const std::string_view f : fields) {
        out += std::to_string(f.size());
        out += ':';
        out += f;
    }
    return out;
}

std::vector<std::string> split_fields(std::string_view key) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < key.size()) {
        const std::size_t colon = key.find(':', at);
        std::size_t len = 0;
        const auto [end, ec] = std::from_chars(key.data() + at, key.data() + key.size(), len);
        if (colon == std::string_view::npos || ec != std::errc() || end != key.data() + colon ||
            len > key.size() - colon - 1) {
            break;  // not a key join_fields made: nothing more to split
        }
        out.emplace_back(key.substr(colon + 1, len));
        at = colon + 1 + len;
    }
    return out;
}

std::pair<std::string, std::string> split_pair(const std::string& s) {
    auto fields = split_fields(s);
    fields.resize(2);
    return {std::move(fields[0]), std::move(fields[1])};
}

namespace {

// Walks one folder. Symbolic links to folders are not followed (no loops); a subfolder that
// cannot be listed, a link that loops or dangles, a FIFO or device named *.json is set aside
// with the reason and the walk goes on.
void walk_folder(const fs::path& root, std::vector<std::string>& paths, std::vector<Rejected>& rejected) {
    std::error_code ec;
    auto it = fs::recursive_directory_iterator(root, fs::directory_options::none, ec);
    if (ec) {
        rejected.push_back({root.string(), "cannot list folder: " + ec.message()});
        return;
    }
    for (; it != fs::recursive_directory_iterator();) {
        const fs::path p = it->path();
        std::error_code entry_ec;
        const fs::file_status link = it->symlink_status(entry_ec);
        if (!entry_ec && fs::is_directory(link)) {
            // Try to enter it; an unreadable one is named and skipped, not the end of the scan.
            if (::access(p.c_str(), R_OK | X_OK) != 0) {
                rejected.push_back(
                    {p.string(), "cannot list folder: " + std::error_code(errno, std::generic_category()).message()});
                it.disable_recursion_pending();
            }
        } else if (p.extension() == ".json") {
            const fs::file_status target = fs::status(p, entry_ec);
            if (entry_ec) {
                rejected.push_back({p.string(), "cannot follow: " + entry_ec.message()});
            } else if (fs::is_regular_file(target)) {
                paths.push_back(p.string());
            } else if (!fs::is_directory(target)) {
                rejected.push_back({p.string(), "not a regular file (a FIFO, device or socket is never read)"});
            }
        }
        it.increment(ec);
        if (ec) {
            rejected.push_back({p.string(), "cannot list folder: " + ec.message()});
            ec.clear();
            break;
        }
    }
}

}  // namespace

std::vector<std::string> collect_report_paths(const std::vector<std::string>& inputs, std::vector<Rejected>& rejected) {
    std::vector<std::string> paths;
    for (const std::string& input : inputs) {
        std::error_code ec;
        const fs::file_status st = fs::status(input, ec);
        if (ec && ec != std::errc::no_such_file_or_directory) {
            rejected.push_back({input, "cannot follow: " + ec.message()});
        } else if (fs::is_directory(st)) {
            walk_folder(input, paths, rejected);
        } else if (fs::exists(st)) {
            paths.push_back(input);  // read_report_file says why a FIFO or device is not read
        } else {
            rejected.push_back({input, "no such file or folder"});
        }
    }
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    return paths;
}

}  // namespace gpuconform
