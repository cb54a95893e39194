// pytest starts with the Python the choice most likely picks (the first python3 on PATH) while
// the choice's probe runs beside it. When the probe picks another, the first child goes, with its
// process group, and the chosen Python runs the layer; when it picks the first, nothing restarts.
// Both Pythons are stand-in scripts: the first cannot answer the probe and would sleep for a
// minute; the second has "pytest and torch" and writes one result.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

void write_script(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    ::chmod(path.c_str(), 0755);
}

// A phase's start or end, or -1 when the report has none of that name.
double phase_at(const nlohmann::json& report, const std::string& name, bool end) {
    for (const auto& p : report.at("run").at("phases")) {
        if (p.at("name") == name) {
            return p.at("start_s").get<double>() + (end ? p.at("duration_s").get<double>() : 0.0);
        }
    }
    return -1;
}

class PythonGuess : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir("python-guess");
        write_script(dir / "lacking/python3",
                     "#!/bin/sh\n"
                     "case \"$1\" in -c) exit 3;; esac\n"
                     "echo $$ > " +
                         (dir / "lacking.pid").string() +
                         "\n"
                         "exec sleep 60\n");
        write_script(dir / "able/python3",
                     "#!/bin/sh\n"
                     "case \"$1\" in -c) printf 11; exit 0;; esac\n"
                     "echo started >> " +
                         (dir / "able.starts").string() +
                         "\n"
                         "for a in \"$@\"; do case \"$a\" in --gpuconform-results=*) r=\"${a#*=}\";; esac; done\n"
                         "printf '[{\"id\":\"framework.torch.build\",\"layer\":\"framework\",\"status\":\"info\","
                         "\"summary\":\"from the able python3\"}]' > \"$r\"\n");
    }
    Outcome run_with_path(const std::string& path, const std::string& layers = "framework") {
        return run_cli(
            "run --backend sim --layer " + layers + " --framework-start early --json " + (dir / "r.json").string(),
            "env -u GPUCONFORM_PYTHON PATH=" + path);
    }
    int starts_of_able() const {
        std::ifstream in(dir / "able.starts");
        std::stringstream text;
        text << in.rdbuf();
        const std::string s = text.str();
        return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
    }
    fs::path dir;
};

TEST_F(PythonGuess, AFirstPythonThatIsNotChosenIsEndedAndTheChosenOneRuns) {
    const auto start = std::chrono::steady_clock::now();
    const auto out = run_with_path((dir / "lacking").string() + ":" + (dir / "able").string() + ":/usr/bin:/bin");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(45)) << "waited for the first child";
    const auto report = read_json(dir / "r.json");
    EXPECT_EQ(report.at("environment").at("framework_python").at("path"), (dir / "able/python3").string())
        << out.output;
    bool found = false;
    for (const auto& r : report.at("results")) {
        found = found || r.value("summary", "") == "from the able python3";
    }
    EXPECT_TRUE(found) << report.at("results").dump(1);
    EXPECT_EQ(starts_of_able(), 1);
    // The first child may have been ended before its script wrote its pid; if it wrote one, it is gone.
    std::ifstream pid_file(dir / "lacking.pid");
    int pid = 0;
    if (pid_file >> pid && pid > 0) {
        EXPECT_NE(::kill(pid, 0), 0) << "the first python3 (pid " << pid << ") outlived the run";
    }
}

TEST_F(PythonGuess, AFirstPythonThatIsChosenStartsOnce) {
    const auto out = run_with_path((dir / "able").string() + ":" + (dir / "lacking").string() + ":/usr/bin:/bin",
                                   "runtime,framework");
    const auto report = read_json(dir / "r.json");
    EXPECT_EQ(report.at("environment").at("framework_python").at("path"), (dir / "able/python3").string())
        << out.output;
    EXPECT_EQ(starts_of_able(), 1);
    EXPECT_FALSE(fs::exists(dir / "lacking.pid")) << "the second candidate was started";
    // It started while the probes ran, not after they answered; so did the device worker.
    const double child_start = phase_at(report, "framework.child", false);
    const double worker_start = phase_at(report, "worker.sim.start", false);
    const double choice_end = phase_at(report, "framework.python_choice", true);
    ASSERT_TRUE(child_start >= 0 && worker_start >= 0 && choice_end >= 0) << report.at("run").at("phases").dump(1);
    EXPECT_LT(child_start, choice_end);
    EXPECT_LT(worker_start, choice_end);
}

}  // namespace
}  // namespace gpuconform::test
