// gpuconform: the command line. cli/command_line.cpp parses each subcommand's options into a
// plain request; this runs it. Nothing here measures or judges.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <functional>
#include <system_error>
#include <iostream>

#include "cli/command_line.hpp"
#include "checks/declarations.hpp"
#include "core/check.hpp"

namespace {

int list_checks(const std::string& layer, bool as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : gpuconform::declared_checks()) {
        if (!layer.empty() && c.layer != layer) {
            continue;
        }
        if (as_json) {
            out.push_back({{"id", c.id}, {"layer", c.layer}, {"description", c.description}});
        } else {
            fmt::print("{:<44} {}\n", c.id, c.description);
        }
    }
    if (as_json) {
        fmt::print("{}\n", out.dump(2));
    }
    return 0;
}

// The layers as JSON (Profile::layers_json): what pytest reads, and what an operator checks a file with.
int print_profile(const std::vector<std::string>& files, const std::string& prefix) {
    gpuconform::Profile profile;
    try {
        profile = gpuconform::load_profile(files);
    } catch (const gpuconform::ProfileError& e) {
        fmt::print(stderr, "gpuconform profile: bad profile: {}\n", e.what());
        return 2;
    }
    fmt::print("{}\n", profile.layers_json(prefix).dump(1));
    return 0;
}

// What a command printed reached standard output, or exit 2 saying it did not: fmt::print
// throws on a failed write (a full disk, a closed pipe) and stdio may still hold the rest.
int with_output_checked(const char* command, const std::function<int()>& body) {
    int code = 0;
    try {
        code = body();
    } catch (const std::system_error& e) {  // std::fprintf: a failing stderr must not throw as well
        std::fprintf(stderr, "gpuconform %s: cannot write to standard output: %s\n", command,
                     e.code().message().c_str());
        return 2;
    }
    if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
        std::fprintf(stderr, "gpuconform %s: cannot write to standard output\n", command);
        return 2;
    }
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    // A closed pipe (`gpuconform ... | head -1`) must be a write error we report, not a silent death.
    signal(SIGPIPE, SIG_IGN);
    gpuconform::CommandLine cl;
    if (const auto decided = gpuconform::parse_command_line(cl, argc, argv, std::cout, std::cerr)) {
        return *decided;
    }
    if (cl.app.got_subcommand("run")) {
        return gpuconform::run_suite(cl.run);
    }
    if (cl.app.got_subcommand("list")) {
        return with_output_checked("list", [&] { return list_checks(cl.list_layer, cl.list_json); });
    }
    if (cl.app.got_subcommand("version")) {
        return with_output_checked("version", [] {
            fmt::print("gpuconform {}\npackage {}\nbuild {}\n", GPUCONFORM_VERSION, GPUCONFORM_PACKAGE_VERSION,
                       GPUCONFORM_BUILD_INFO);
            return 0;
        });
    }
    if (cl.app.got_subcommand("profile")) {
        return with_output_checked("profile", [&] { return print_profile(cl.profile_files, cl.profile_prefix); });
    }
    if (cl.app.got_subcommand("selftest")) {
        if (cl.selftest.list_faults) {
            return with_output_checked("selftest", [&] { return gpuconform::run_selftest(cl.selftest); });
        }
        return gpuconform::run_selftest(cl.selftest);
    }
    return cl.rollup_exit;
}
