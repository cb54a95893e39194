// The small pieces of report_set.hpp: interning, and finding the report files.
#include <algorithm>
#include <filesystem>

#include "report_set.hpp"

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

std::pair<std::string, std::string> split_pair(const std::string& s) {
    const auto pos = s.find('\x1f');
    return pos == std::string::npos ? std::pair{s, std::string()} : std::pair{s.substr(0, pos), s.substr(pos + 1)};
}

std::vector<std::string> collect_report_paths(const std::vector<std::string>& inputs, std::vector<Rejected>& rejected) {
    std::vector<std::string> paths;
    for (const std::string& input : inputs) {
        std::error_code ec;
        if (fs::is_directory(input, ec)) {
            for (auto it = fs::recursive_directory_iterator(input, ec); !ec && it != fs::recursive_directory_iterator();
                 it.increment(ec)) {
                if (it->path().extension() == ".json" && !it->is_directory()) {
                    paths.push_back(it->path().string());
                }
            }
            if (ec) {
                rejected.push_back({input, "cannot list folder: " + ec.message()});
            }
        } else if (fs::exists(input, ec)) {
            paths.push_back(input);
        } else {
            rejected.push_back({input, "no such file or folder"});
        }
    }
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    return paths;
}

}  // namespace gpuconform
