// The bash completion (packaging/gpuconform.bash-completion) against the parser's own --help:
// every option of every command offered once, and the choices each option accepts.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "cli_helpers.hpp"
#include "test_paths.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

// What the completion offers for the words typed so far (the last one is being completed).
std::vector<std::string> complete(const std::vector<std::string>& words) {
    static const fs::path script = [] {
        const fs::path p = temp_dir("completion") / "complete.sh";
        std::ofstream(p) << "source \"$1\"; shift\n"
                            "COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()\n"
                            "_gpuconform; printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        return p;
    }();
    std::string command =
        "bash " + script.string() + " " + test_paths::source_dir + "/packaging/gpuconform.bash-completion " + exe();
    for (const std::string& w : words) {
        command += " '" + w + "'";
    }
    FILE* pipe = popen(command.c_str(), "r");
    std::istringstream text(read_pipe(pipe));
    pclose(pipe);
    std::vector<std::string> out;
    for (std::string line; std::getline(text, line);) {
        if (!line.empty()) {
            out.push_back(line);
        }
    }
    return out;
}

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// The option names of `gpuconform SUB --help`, read from its option column.
std::set<std::string> help_options(const std::string& sub) {
    std::istringstream help(run_cli(sub + " --help", "", false).output);
    const std::regex option("^  (-[A-Za-z0-9],)?(--[A-Za-z0-9-]+)");
    std::set<std::string> out;
    std::smatch m;
    for (std::string line; std::getline(help, line);) {
        if (std::regex_search(line, m, option)) {
            if (m[1].matched) {
                out.insert(m[1].str().substr(0, 2));
            }
            out.insert(m[2]);
        }
    }
    return out;
}

const std::vector<std::string> k_commands{"run",    "list",   "version", "profile", "selftest",
                                          "render", "matrix", "diff",    "store"};

TEST(Completion, OffersEveryCommand) {
    std::set<std::string> expected(k_commands.begin(), k_commands.end());
    expected.insert({"--help", "--version"});
    EXPECT_EQ(as_set(complete({""})), expected);
    EXPECT_EQ(as_set(complete({"r"})), (std::set<std::string>{"run", "render"}));
}

TEST(Completion, OffersEachOptionOfEachCommandOnce) {
    for (const std::string& sub : k_commands) {
        const std::vector<std::string> offered = complete({sub, "-"});
        EXPECT_EQ(offered.size(), as_set(offered).size()) << sub << ": an option offered twice";
        EXPECT_EQ(as_set(offered), help_options(sub)) << sub;
    }
    EXPECT_EQ(help_options("run").count("--repeat"), 1u);
}

TEST(Completion, OffersTheChoicesTheParserAccepts) {
    EXPECT_EQ(complete({"run", "--when-busy", ""}), (std::vector<std::string>{"wait", "skip", "measure"}));
    EXPECT_EQ(complete({"run", "--framework-start", ""}), (std::vector<std::string>{"auto", "early", "late"}));
    EXPECT_EQ(as_set(complete({"render", "-f", ""})).count("timings"), 1u);
    EXPECT_EQ(as_set(complete({"render", "-f", ""})).count("verdict"), 1u);
    EXPECT_EQ(complete({"diff", "--format", ""}), (std::vector<std::string>{"terminal", "markdown", "json"}));
    EXPECT_EQ(complete({"matrix", "-f", "p"}), (std::vector<std::string>{"prometheus"}));
    EXPECT_EQ(complete({"run", "--layer", ""}),
              (std::vector<std::string>{"host", "health", "runtime", "async", "framework", "acceptance"}));
    // Each offered choice is one the parser takes.
    for (const std::string& choice : complete({"run", "--when-busy", ""})) {
        EXPECT_EQ(run_cli("run --when-busy " + choice + " --help").exit_code, 0) << choice;
    }
    EXPECT_NE(run_cli("run --when-busy never --help").exit_code, 0);
}

}  // namespace
}  // namespace gpuconform::test
