#include "run_problems.hpp"

namespace gpuconform {

bool cause_names_label(const std::string& cause_result, const std::string& label) {
    const std::size_t sep = label.find('\x1f');
    const std::string id = label.substr(0, sep);
    const std::string device = sep == std::string::npos ? "" : label.substr(sep + 1);
    if (cause_result == id) {
        return true;
    }
    return !device.empty() && cause_result == id + "[" + device + "]";
}

}  // namespace gpuconform
