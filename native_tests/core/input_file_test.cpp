// The one opener of input files: regular files within the bound only, refused with the reason.
#include "core/input_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace gpuconform {
namespace {

std::filesystem::path fresh_dir() {
    auto dir = std::filesystem::temp_directory_path() / ("gpuconform-input-file-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

TEST(InputFile, ReadsARegularFileWithinTheBoundWhole) {
    const auto dir = fresh_dir();
    std::ofstream(dir / "p.yaml") << "0123456789";
    std::string error;
    EXPECT_EQ(read_input_file((dir / "p.yaml").string(), 10, error).value_or("?"), "0123456789") << error;
    std::filesystem::remove_all(dir);
}

TEST(InputFile, RefusesAFileOneBytePastTheBound) {
    const auto dir = fresh_dir();
    std::ofstream(dir / "p.yaml") << "0123456789";
    std::string error;
    EXPECT_FALSE(read_input_file((dir / "p.yaml").string(), 9, error));
    EXPECT_NE(error.find("larger than 9 B"), std::string::npos) << error;
    std::filesystem::remove_all(dir);
}

TEST(InputFile, RefusesDevicesFifosAndFoldersWithTheReason) {
    const auto dir = fresh_dir();
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    std::string error;
    EXPECT_FALSE(read_input_file("/dev/zero", k_max_config_bytes, error));
    EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
    EXPECT_FALSE(read_input_file((dir / "fifo").string(), k_max_config_bytes, error));
    EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
    EXPECT_FALSE(read_input_file(dir.string(), k_max_config_bytes, error));
    EXPECT_NE(error.find("folder"), std::string::npos) << error;
    EXPECT_FALSE(read_input_file((dir / "absent").string(), k_max_config_bytes, error));
    EXPECT_NE(error.find("No such file"), std::string::npos) << error;
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuconform
