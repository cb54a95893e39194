// gpuconform(1), as cmake/ManPage.cmake writes it from --help: the sections a reader looks for,
// every exit code, and no warning from groff (what lintian runs on the packaged page).
#include <gtest/gtest.h>

#include <sstream>

#include "cli_helpers.hpp"
#include "test_paths.hpp"

namespace gpuconform::test {
namespace {

Outcome shell(const std::string& command) {
    Outcome out;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    out.output = read_pipe(pipe);
    const int status = pipe != nullptr ? pclose(pipe) : -1;
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

TEST(ManPage, HasTheSectionsAndEveryExitCode) {
    if (shell("command -v cmake").exit_code != 0) {
        GTEST_SKIP() << "no cmake on PATH";
    }
    const auto page = temp_dir("manpage") / "gpuconform.1";
    const auto made = shell("cmake -DEXE=" + exe() + " -DOUT=" + page.string() + " -DVERSION=0 -P " +
                            test_paths::source_dir + "/cmake/ManPage.cmake");
    ASSERT_EQ(made.exit_code, 0) << made.output;
    std::ifstream in(page);
    std::stringstream text;
    text << in.rdbuf();
    for (const char* section : {".SH NAME", ".SH SYNOPSIS", ".SH COMMANDS", ".SS gpuconform profile", ".SH EXIT STATUS",
                                ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES", ".SH SEE ALSO"}) {
        EXPECT_NE(text.str().find(section), std::string::npos) << section;
    }
    for (const char* word : {"130 interrupted", "4 different nodes", "GPUCONFORM_MODULE_DIR", "GPUCONFORM_PYTHON",
                             "NO_COLOR", "CUDA_VISIBLE_DEVICES", "nvidia\\-smi", "systemd.timer"}) {
        EXPECT_NE(text.str().find(word), std::string::npos) << word;
    }
    // The package ships no reports/ or docs/: the page must not send a reader there.
    EXPECT_EQ(text.str().find("reports/"), std::string::npos);
    EXPECT_EQ(text.str().find("docs/"), std::string::npos);
    if (shell("command -v groff").exit_code == 0) {
        const auto groff = shell("groff -man -Tutf8 -ww -z " + page.string());
        EXPECT_EQ(groff.exit_code, 0);
        EXPECT_EQ(groff.output, "");
    }
}

}  // namespace
}  // namespace gpuconform::test
