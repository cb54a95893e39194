// Paths and text of the kernel-log samples (native_tests/data/health_log).
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "test_paths.hpp"

namespace gpuconform::test {

inline std::string log_data(const std::string& rel) { return std::string(test_paths::data_dir) + "/health_log/" + rel; }

inline std::string read_log_sample(const std::string& rel) {
    std::ifstream in(log_data(rel), std::ios::binary);
    if (!in) {
        throw std::runtime_error("missing test sample " + log_data(rel));
    }
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace gpuconform::test
