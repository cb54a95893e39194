// libFuzzer harness over the command line: the input, split at newlines, is argv. It is parsed
// and validated exactly as the executable does (cli/command_line.cpp), and nothing is run
// (roll-up subcommands parse without running). Any arguments end in a request within its
// documented ranges, or a usage error (exit 2); a crash or an uncaught exception is a bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"

namespace {
constexpr std::size_t k_max_args = 64;

bool request_in_range(const gpuconform::RunRequest& r) {
    const bool timeout_ok = r.check_timeout_s == 0 || (r.check_timeout_s >= 0.001 && r.check_timeout_s <= 86400);
    const bool busy_ok = std::isfinite(r.busy_wait_s) && r.busy_wait_s >= 0;
    const bool cotenant_ok = std::isfinite(r.sim_cotenant_s);
    bool devices_ok = true;
    for (int d : r.devices) {
        devices_ok = devices_ok && d >= 0;
    }
    return timeout_ok && busy_ok && cotenant_ok && devices_ok && r.sim_devices >= 1 && r.sim_devices <= 64 &&
           r.repeat >= 1 && r.repeat <= 100 && gpuconform::run_request_problem(r).empty();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args{"gpuconform"};
    std::string current;
    for (std::size_t i = 0; i < size; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\n') {
            args.push_back(current);
            current.clear();
        } else if (c != '\0') {  // argv strings cannot hold NUL
            current += c;
        }
    }
    if (!current.empty()) {
        args.push_back(current);
    }
    if (args.size() > k_max_args) {
        return 0;
    }
    std::vector<const char*> argv;
    for (const auto& a : args) {
        argv.push_back(a.c_str());
    }
    gpuconform::CommandLine cl(false);
    std::ostringstream out, err;
    const auto decided = gpuconform::parse_command_line(cl, static_cast<int>(argv.size()), argv.data(), out, err);
    if (decided) {
        if (*decided == 2 && err.str().empty()) {
            __builtin_trap();  // bad usage must say what was wrong
        }
        return 0;
    }
    if (cl.app.got_subcommand("run") && !request_in_range(cl.run)) {
        __builtin_trap();  // accepted a request outside what run documents
    }
    return 0;
}
