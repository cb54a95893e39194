#include "core/temp_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace gpuconform {

namespace {

std::vector<std::string> temp_places() {
    std::vector<std::string> places;
    const char* tmp = std::getenv("TMPDIR");
    if (tmp != nullptr && *tmp != '\0' && std::string(tmp) != "/tmp") {
        places.emplace_back(tmp);
    }
    places.emplace_back("/tmp");
    return places;
}

void note(std::string* error, const std::string& place) {
    if (error != nullptr) {
        *error += (error->empty() ? "" : "; ") + place + ": " + std::strerror(errno);
    }
}

}  // namespace

std::string make_temp_dir(const std::string& stem, std::string* error) {
    for (const auto& place : temp_places()) {
        std::string pattern = place + "/" + stem + "-XXXXXX";
        if (::mkdtemp(pattern.data()) != nullptr) {
            return pattern;
        }
        note(error, place);
    }
    return "";
}

std::string make_temp_file(const std::string& stem, const std::string& suffix, int& fd, std::string* error) {
    for (const auto& place : temp_places()) {
        std::string pattern = place + "/" + stem + "-XXXXXX" + suffix;
        fd = ::mkstemps(pattern.data(), static_cast<int>(suffix.size()));
        if (fd >= 0) {
            return pattern;
        }
        note(error, place);
    }
    fd = -1;
    return "";
}

}  // namespace gpuconform
