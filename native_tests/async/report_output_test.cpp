// The report at the end of a run: when its target cannot be written any more (the folder was
// removed, the disk is full), the report is kept elsewhere and the failure says where.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "runner/output.hpp"

namespace gpuconform {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ReportOutput, AFolderRemovedDuringTheRunDoesNotLoseTheReport) {
    const fs::path dir = fs::temp_directory_path() / ("gpuconform-output-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const ReportOutput out = ReportOutput::prepare((dir / "r.json").string(), "node1");
    ASSERT_TRUE(out.error.empty()) << out.error;
    fs::remove_all(dir);  // between the check before the run and the write after it

    std::string message;
    EXPECT_FALSE(out.write("{\"schema\": \"gpuconform-report\"}\n", &message));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(message, m, std::regex("written to (\\S+gpuconform-report-\\S+\\.json) instead")))
        << message;
    EXPECT_NE(message.find((dir / "r.json").string()), std::string::npos) << "names the target: " << message;
    EXPECT_EQ(slurp(m[1].str()), "{\"schema\": \"gpuconform-report\"}\n");
    EXPECT_EQ(fs::status(m[1].str()).permissions() & fs::perms::others_read, fs::perms::none);
    fs::remove(m[1].str());
}

// An unusable TMPDIR is the host's setting: the fallback copy still lands in /tmp.
TEST(ReportOutput, WithAnUnusableTmpdirTheFallbackGoesToTmp) {
    const fs::path dir = fs::temp_directory_path() / ("gpuconform-output2-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const ReportOutput out = ReportOutput::prepare((dir / "r.json").string(), "node1");
    fs::remove_all(dir);
    const char* old = std::getenv("TMPDIR");
    const std::string saved = old != nullptr ? old : "";
    setenv("TMPDIR", "/nonexistent-gpuconform-folder", 1);
    testing::internal::CaptureStdout();
    std::string message;
    const bool ok = out.write("REPORT\n", &message);
    const std::string printed = testing::internal::GetCapturedStdout();
    old != nullptr ? setenv("TMPDIR", saved.c_str(), 1) : unsetenv("TMPDIR");
    EXPECT_FALSE(ok);
    const auto at = message.find("written to /tmp/gpuconform-report-");
    ASSERT_NE(at, std::string::npos) << message;
    const std::string kept = message.substr(at + 11, message.find(" instead") - at - 11);
    std::ifstream in(kept);
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "REPORT");
    EXPECT_EQ(printed, "");
    fs::remove(kept);
}

}  // namespace
}  // namespace gpuconform
