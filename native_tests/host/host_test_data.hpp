// Paths of the host samples (native_tests/data/host) and a reader for them.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "test_paths.hpp"

namespace gpuconform::test {

inline std::string host_data(const std::string& rel) { return std::string(test_paths::data_dir) + "/host/" + rel; }

inline std::string read_sample(const std::string& rel) {
    std::ifstream in(host_data(rel));
    if (!in) {
        throw std::runtime_error("missing test sample " + host_data(rel));
    }
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace gpuconform::test
