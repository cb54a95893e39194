#include "health/pcie_aer.hpp"

#include <sys/stat.h>

#include <array>
#include <cctype>
#include <sstream>

#include "core/proc_file.hpp"

namespace gpuconform {

std::optional<std::uint64_t> aer_total(const std::string& text, const std::string& name) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string word, count;
        if (!(words >> word >> count) || word != name) {
            continue;
        }
        if (count.empty() || count.size() > 19 || count.find_first_not_of("0123456789") != std::string::npos) {
            return std::nullopt;
        }
        return std::stoull(count);
    }
    return std::nullopt;
}

Read<AerCounts> read_pcie_aer(const std::string& device_dir) {
    struct File {
        const char* name;
        const char* total;
        std::uint64_t AerCounts::*field;
    };
    static constexpr std::array<File, 3> k_files{{
        {"aer_dev_correctable", "TOTAL_ERR_COR", &AerCounts::correctable},
        {"aer_dev_fatal", "TOTAL_ERR_FATAL", &AerCounts::fatal},
        {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", &AerCounts::nonfatal},
    }};
    AerCounts counts;
    int present = 0;
    for (const auto& f : k_files) {
        const std::string path = device_dir + "/" + f.name;
        struct stat st {};
        if (stat(path.c_str(), &st) != 0) {
            continue;  // this kernel (or VM) does not report it
        }
        ++present;
        const auto text = read_proc_file(path);
        if (!text) {
            return Read<AerCounts>::failed(std::string(f.name) + " could not be read");
        }
        const auto total = aer_total(*text, f.total);
        if (!total) {
            return Read<AerCounts>::failed(std::string(f.name) + " has no " + f.total + " line");
        }
        counts.*f.field = *total;
    }
    if (present == 0) {
        return Read<AerCounts>::unsupported();
    }
    if (present < static_cast<int>(k_files.size())) {
        return Read<AerCounts>::failed("only some aer_dev_* files are present under " + device_dir);
    }
    return Read<AerCounts>::of(counts);
}

std::string sysfs_bdf(const std::string& bus_id) {
    // domain:bus:device.function, the domain 4 to 8 hex digits.
    const auto colon = bus_id.find(':');
    if (colon == std::string::npos || colon < 4 || colon > 8 || bus_id.size() != colon + 8) {
        return "";
    }
    std::string out = bus_id.substr(colon - 4);  // "0000:1B:00.0"
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char want = i == 4 || i == 7 ? ':' : (i == 10 ? '.' : 'x');
        const auto c = static_cast<unsigned char>(out[i]);
        if (want == 'x' ? std::isxdigit(c) == 0 : out[i] != want) {
            return "";
        }
        out[i] = static_cast<char>(std::tolower(c));
    }
    if (bus_id.find_first_not_of('0') < colon - 4) {
        return "";  // a domain above 0xffff: sysfs would name it with all its digits
    }
    return out;
}

}  // namespace gpuconform
