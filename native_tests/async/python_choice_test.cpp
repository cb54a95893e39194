// The framework layer's Python: the first candidate that has pytest and torch, said in one line
// that names the one it used and what the first lacked (framework/python_choice.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "framework/python_choice.hpp"

namespace gpuconform {
namespace {

namespace fs = std::filesystem;

// Two folders, each with an executable python3; the probe answers from a table, not a process.
class PythonChoiceTest : public ::testing::Test {
protected:
    void SetUp() override {
        root = fs::temp_directory_path() / fs::path("gpuconform-python-choice-" + std::to_string(::getpid()));
        for (const char* d : {"venv/bin", "usr/bin"}) {
            fs::create_directories(root / d);
            std::ofstream(root / d / "python3") << "#!/bin/sh\n";
            fs::permissions(root / d / "python3", fs::perms::owner_all);
        }
    }
    void TearDown() override { fs::remove_all(root); }
    std::string venv() const { return (root / "venv/bin/python3").string(); }
    std::string system() const { return (root / "usr/bin/python3").string(); }
    fs::path root;
};

TEST_F(PythonChoiceTest, TheSystemsPythonServesWhenTheFirstOnPathLacksTorch) {
    const auto probe = [&](const std::string& p) -> std::optional<PythonModules> {
        return p == venv() ? PythonModules{false, false} : PythonModules{true, true};
    };
    const auto c = choose_python("", "", (root / "venv/bin").string(), probe, system());
    EXPECT_EQ(c.python, system());
    EXPECT_EQ(c.source, "the system's python3");
    EXPECT_NE(c.note.find(system()), std::string::npos);
    EXPECT_NE(c.note.find(venv() + ", has neither pytest nor torch"), std::string::npos);
}

TEST_F(PythonChoiceTest, TheFirstOnPathWinsWhenItHasBoth) {
    const auto probe = [](const std::string&) -> std::optional<PythonModules> { return PythonModules{true, true}; };
    const auto c = choose_python("", "", (root / "venv/bin").string(), probe, system());
    EXPECT_EQ(c.python, venv());
    EXPECT_EQ(c.note.find("the first python3"), std::string::npos);
}

TEST_F(PythonChoiceTest, PytestWithoutTorchBeatsNothing) {
    const auto probe = [&](const std::string& p) -> std::optional<PythonModules> {
        return p == venv() ? PythonModules{false, false} : PythonModules{true, false};
    };
    const auto c = choose_python("", "", (root / "venv/bin").string(), probe, system());
    EXPECT_EQ(c.python, system());
    EXPECT_NE(c.note.find("has pytest but no torch"), std::string::npos);
}

TEST_F(PythonChoiceTest, AGivenPythonIsTakenAsGivenAndNotProbed) {
    bool probed = false;
    const auto probe = [&](const std::string&) -> std::optional<PythonModules> {
        probed = true;
        return std::nullopt;
    };
    EXPECT_EQ(choose_python("/opt/py/bin/python", "", "", probe, system()).source, "--python");
    EXPECT_EQ(choose_python("", "/opt/env/python", "", probe, system()).python, "/opt/env/python");
    EXPECT_FALSE(probed);
}

TEST_F(PythonChoiceTest, NoneThatStartsLeavesTheFirstAndSaysSo) {
    const auto probe = [](const std::string&) -> std::optional<PythonModules> { return std::nullopt; };
    const auto c = choose_python("", "", (root / "venv/bin").string(), probe, system());
    EXPECT_EQ(c.python, venv());
    EXPECT_NE(c.note.find("could not be started"), std::string::npos);
}

// The Python started before the probe answers is the one the choice takes when the first
// candidate has both modules: the given one, else the first on PATH, else the system's.
TEST_F(PythonChoiceTest, TheLikelyPythonIsTheChoiceWhenTheFirstHasBoth) {
    const auto both = [](const std::string&) -> std::optional<PythonModules> { return PythonModules{true, true}; };
    const std::string path = (root / "venv/bin").string() + ":" + (root / "usr/bin").string();
    EXPECT_EQ(likely_python("", "", path, system()), choose_python("", "", path, both, system()).python);
    EXPECT_EQ(likely_python("", "", path, system()), venv());
    EXPECT_EQ(likely_python("", "", "/nonexistent", system()), system());
    EXPECT_EQ(likely_python("/opt/py/bin/python", "/opt/env/python", path, system()), "/opt/py/bin/python");
    EXPECT_EQ(likely_python("", "/opt/env/python", path, system()), "/opt/env/python");
    EXPECT_EQ(likely_python("", "", "/nonexistent", (root / "missing").string()), "python3");
}

TEST(PythonProbe, AnswersFromARealPythonAndFailsForAMissingOne) {
    EXPECT_FALSE(probe_python("/nonexistent/python3").has_value());
    if (!fs::exists("/usr/bin/python3")) {
        GTEST_SKIP() << "no /usr/bin/python3";
    }
    const auto m = probe_python("/usr/bin/python3");
    ASSERT_TRUE(m.has_value());  // pytest and torch may or may not be there; the probe must answer
}

TEST(PythonProbe, AnUnusableTmpdirFallsBackToTmp) {
    if (!fs::exists("/usr/bin/python3")) {
        GTEST_SKIP() << "no /usr/bin/python3";
    }
    ::setenv("TMPDIR", "/nonexistent", 1);
    const auto m = probe_python("/usr/bin/python3");
    ::unsetenv("TMPDIR");
    EXPECT_TRUE(m.has_value());
}

}  // namespace
}  // namespace gpuconform
