// Builds small schema-shaped reports for the roll-up tests, and writes them to a scratch folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_paths.hpp"

namespace gpuconform::test {

struct ResultSpec {
    std::string id;
    std::string status;
    int device = -1;                                                // -1: no device
    std::vector<std::pair<std::string, double>> measurements = {};  // name, value (unit GB/s)
};

inline nlohmann::json make_report(const std::string& run_id, const std::string& host, const std::string& distro,
                                  const std::string& gpu, const std::vector<ResultSpec>& results) {
    nlohmann::json rs = nlohmann::json::array();
    for (const ResultSpec& r : results) {
        nlohmann::json ms = nlohmann::json::array();
        for (const auto& [name, value] : r.measurements) {
            ms.push_back(
                {{"name", name}, {"value", value}, {"unit", "GB/s"}, {"n", 3}, {"min", value}, {"max", value}});
        }
        rs.push_back({{"id", r.id},
                      {"layer", r.id.substr(0, r.id.find('.'))},
                      {"backend", r.device >= 0 ? nlohmann::json("cuda") : nlohmann::json(nullptr)},
                      {"device", r.device >= 0 ? nlohmann::json(r.device) : nlohmann::json(nullptr)},
                      {"status", r.status},
                      {"summary", r.id + " was " + r.status},
                      {"remediation", nullptr},
                      {"attribution", nullptr},
                      {"measurements", ms},
                      {"facts", nlohmann::json::object()},
                      {"expectation", nlohmann::json::object()},
                      {"duration_s", 0.5}});
    }
    return {{"schema", "gpuconform-report"},
            {"schema_version", "1.0"},
            {"tool", {{"name", "gpuconform"}, {"version", "0.1.0"}}},
            {"run",
             {{"id", run_id},
              {"started", "2026-11-29T10:00:00Z"},
              {"finished", "2026-11-29T10:01:00Z"},
              {"duration_s", 60},
              {"command_line", {"gpuconform", "run"}},
              {"interrupted", false},
              {"exit_status", 0}}},
            {"environment",
             {{"hostname", host},
              {"distro", {{"id", "x"}, {"version_id", "1"}, {"pretty_name", distro}}},
              {"kernel", "6.1.0"},
              {"glibc", "2.36"},
              {"pci_gpus", nlohmann::json::array()},
              {"torch", {{"version", "2.11.0"}}}}},
            {"backends",
             {{{"name", "cuda"},
               {"loaded", true},
               {"load_error", nullptr},
               {"driver_version", "13.0"},
               {"runtime_version", "13.0"},
               {"device_count", 1}}}},
            {"devices", gpu.empty() ? nlohmann::json::array()
                                    : nlohmann::json{{{"backend", "cuda"},
                                                      {"index", 0},
                                                      {"vendor", "nvidia"},
                                                      {"name", gpu},
                                                      {"arch", "sm_90"},
                                                      {"pci_bus_id", nullptr},
                                                      {"memory_bytes", 0}}}},
            {"results", rs},
            {"summary",
             {{"pass", 0}, {"fail", 0}, {"warn", 0}, {"skip", 0}, {"error", 0}, {"info", 0}, {"verdict", "pass"}}}};
}

// A fresh folder under the system temp dir, removed when the object goes away.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& name)
        : m_path(std::filesystem::temp_directory_path() /
                 ("gpuconform-test-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(m_path);
        std::filesystem::create_directories(m_path);
    }
    ~ScratchDir() { std::filesystem::remove_all(m_path); }
    std::string write(const std::string& rel, const std::string& text) const {
        const auto p = m_path / rel;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
    std::string path() const { return m_path.string(); }

private:
    std::filesystem::path m_path;
};

inline std::string data_file(const std::string& name) { return std::string(test_paths::data_dir) + "/reports/" + name; }

inline nlohmann::json load_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

}  // namespace gpuconform::test
