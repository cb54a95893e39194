// Temporary folders and files: $TMPDIR when usable, else /tmp (core/temp_dir.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "core/temp_dir.hpp"

namespace gpuconform {
namespace {

namespace fs = std::filesystem;

class TempDirTest : public ::testing::Test {
protected:
    void TearDown() override { ::unsetenv("TMPDIR"); }
};

TEST_F(TempDirTest, AnUnusableTmpdirFallsBackToTmp) {
    ::setenv("TMPDIR", "/nonexistent/gpuconform", 1);
    const std::string dir = make_temp_dir("gpuconform-test");
    ASSERT_FALSE(dir.empty());
    EXPECT_EQ(dir.rfind("/tmp/gpuconform-test-", 0), 0u) << dir;
    EXPECT_TRUE(fs::is_directory(dir));
    fs::remove_all(dir);
    int fd = -1;
    const std::string file = make_temp_file("gpuconform-test", ".json", fd);
    ASSERT_GE(fd, 0);
    EXPECT_TRUE(file.ends_with(".json")) << file;
    ::close(fd);
    fs::remove(file);
}

TEST_F(TempDirTest, AUsableTmpdirIsUsed) {
    const fs::path mine = fs::path("/tmp") / ("gpuconform-tmpdir-" + std::to_string(::getpid()));
    fs::create_directories(mine);
    ::setenv("TMPDIR", mine.c_str(), 1);
    const std::string dir = make_temp_dir("x");
    EXPECT_EQ(fs::path(dir).parent_path(), mine);
    fs::remove_all(mine);
}

}  // namespace
}  // namespace gpuconform
