// Where an executable looks for its backend modules: beside itself only in a build tree (or a
// build's executable copied out with its backends/), the installed folder otherwise.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "cli_helpers.hpp"
#include "test_paths.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

// The build's CMAKE_INSTALL_LIBDIR: modules install to <prefix>/<libdir>/gpuconform.
std::string install_libdir() {
    std::ifstream cache(std::string(test_paths::binary_dir) + "/CMakeCache.txt");
    const std::regex entry("^CMAKE_INSTALL_LIBDIR:PATH=(.*)$");
    std::smatch m;
    for (std::string line; std::getline(cache, line);) {
        if (std::regex_match(line, m, entry)) {
            return m[1];
        }
    }
    return "lib";
}

// A prefix with bin/gpuconform, copied from the build; `installed` and `beside` say which module
// folders hold the real sim module, and a folder that is not chosen holds a file that is no module.
class ModuleDir : public ::testing::Test {
protected:
    void SetUp() override {
        m_prefix = temp_dir("moduledir");
        fs::create_directories(m_prefix / "bin");
        fs::copy_file(exe(), bin_exe());
    }
    void TearDown() override { fs::remove_all(m_prefix); }

    fs::path bin_exe() const { return m_prefix / "bin" / "gpuconform"; }
    fs::path installed_dir() const { return m_prefix / install_libdir() / "gpuconform"; }
    fs::path beside_dir() const { return m_prefix / "bin" / "backends"; }

    static void put_module(const fs::path& dir, bool real) {
        fs::create_directories(dir);
        const fs::path target = dir / "libgpuconform-sim.so";
        if (real) {
            fs::copy_file(fs::path(test_paths::binary_dir) / "backends" / "libgpuconform-sim.so", target);
        } else {
            std::ofstream(target) << "not a module\n";
        }
    }

    // runtime.<backend>.load of a host+runtime run, with GPUCONFORM_MODULE_DIR unset.
    nlohmann::json load_result(const std::string& backend) const {
        const fs::path report = m_prefix / "report.json";
        const std::string command = "env -u GPUCONFORM_MODULE_DIR " + bin_exe().string() + " run --backend " + backend +
                                    " --layer runtime --quiet --json " + report.string() + " >/dev/null 2>&1";
        EXPECT_NE(std::system(command.c_str()), -1);
        const nlohmann::json doc = read_json(report);
        const nlohmann::json* r = find_result(doc, "runtime." + backend + ".load");
        return r != nullptr ? *r : nlohmann::json::object();
    }

    fs::path m_prefix;
};

TEST_F(ModuleDir, AnInstalledExecutableNeverLooksBesideItself) {
    put_module(installed_dir(), true);
    put_module(beside_dir(), false);  // a stray bin/backends must not shadow the packaged module
    const nlohmann::json sim = load_result("sim");
    EXPECT_EQ(sim.value("status", ""), "pass") << sim.dump();
    EXPECT_EQ(sim["facts"].value("module_path", ""), (installed_dir() / "libgpuconform-sim.so").string());
    // A module that is not installed is looked for in the installed folder alone.
    const std::string cuda = load_result("cuda").value("summary", "");
    EXPECT_NE(cuda.find((installed_dir() / "libgpuconform-cuda.so").string()), std::string::npos) << cuda;
    EXPECT_EQ(cuda.find("bin/backends"), std::string::npos) << cuda;
}

TEST_F(ModuleDir, ABuildTreeLoadsItsOwnBackends) {
    std::ofstream(m_prefix / "bin" / "CMakeCache.txt") << "# a build tree\n";
    put_module(installed_dir(), false);
    put_module(beside_dir(), true);
    const nlohmann::json sim = load_result("sim");
    EXPECT_EQ(sim.value("status", ""), "pass") << sim.dump();
    EXPECT_EQ(sim["facts"].value("module_path", ""), (beside_dir() / "libgpuconform-sim.so").string());
}

TEST_F(ModuleDir, ACopiedBuildFindsTheBackendsItWasCopiedWith) {
    put_module(beside_dir(), true);  // `cp -r build/gpuconform build/backends DIR`: no installed folder
    const nlohmann::json sim = load_result("sim");
    EXPECT_EQ(sim.value("status", ""), "pass") << sim.dump();
    EXPECT_EQ(sim["facts"].value("module_path", ""), (beside_dir() / "libgpuconform-sim.so").string());
}

}  // namespace
}  // namespace gpuconform::test
