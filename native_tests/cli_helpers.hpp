// Runs the built gpuconform as a user would and reads what it wrote.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_paths.hpp"

namespace gpuconform::test {

struct Outcome {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

inline std::string exe() { return std::string(test_paths::binary_dir) + "/gpuconform"; }

// Every run a test starts compiles its probes: no test reads or writes the compile verdicts kept
// for the user running it (toolchain/compile_reuse_test.cpp sets a folder of its own).
inline const bool k_no_kept_compile_verdicts = ::setenv("GPUCONFORM_CACHE_DIR", "off", 0) == 0;

inline std::string read_pipe(FILE* pipe) {
    std::string text;
    char buf[4096];
    while (pipe != nullptr && std::fgets(buf, sizeof buf, pipe) != nullptr) {
        text += buf;
    }
    return text;
}

// `env` is a prefix of VAR=value assignments; arguments are fixed strings written by the tests.
inline Outcome run_cli(const std::string& args, const std::string& env = "", bool with_stderr = true) {
    Outcome out;
    const std::string command = env + " " + exe() + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
    FILE* pipe = popen(command.c_str(), "r");
    out.output = read_pipe(pipe);
    const int status = pipe != nullptr ? pclose(pipe) : -1;
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

inline nlohmann::json read_json(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

inline const nlohmann::json* find_result(const nlohmann::json& report, const std::string& id) {
    for (const auto& r : report.at("results")) {
        if (r.at("id") == id) {
            return &r;
        }
    }
    return nullptr;
}

// A fresh empty folder per test.
inline std::filesystem::path temp_dir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("gpuconform-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// Validates with python's jsonschema against reports/schema: "" when valid, the error otherwise,
// "unavailable" when no python with jsonschema exists.
inline std::string schema_error(const std::filesystem::path& report) {
    const std::string schema = std::string(test_paths::source_dir) + "/reports/schema/report-v1.schema.json";
    for (const char* py : {"/usr/bin/python3", "python3"}) {
        const std::string probe = std::string(py) + " -c 'import jsonschema' >/dev/null 2>&1";
        if (std::system(probe.c_str()) != 0) {
            continue;
        }
        const std::string cmd = std::string(py) +
                                " -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), "
                                "json.load(open(sys.argv[2])))' " +
                                report.string() + " " + schema + " 2>&1";
        FILE* pipe = popen(cmd.c_str(), "r");
        const std::string text = read_pipe(pipe);
        const int status = pipe != nullptr ? pclose(pipe) : -1;
        return status == 0 ? "" : (text.empty() ? "validation failed" : text);
    }
    return "unavailable";
}

}  // namespace gpuconform::test
