// A stop (SIGTERM) while the toolchain probes compile: the compilers run in process groups the
// stop ends, so the run ends promptly (it waited 2-7 s for nvcc before), no compiler outlives
// it, and a compile cut short is recorded as not judged, never as pass.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

TEST(Faults, ATermWhileTheProbesCompileEndsTheCompilersAndJudgesNothing) {
    if (std::system("command -v nvcc >/dev/null 2>&1 || command -v hipcc >/dev/null 2>&1 || "
                    "test -x /usr/local/cuda/bin/nvcc") != 0) {
        GTEST_SKIP() << "needs nvcc or hipcc: without a compiler the probe has nothing to stop";
    }
    const auto dir = temp_dir("stopcompile");
    const auto tmp = dir / "tmp";
    fs::create_directories(tmp);
    const auto path = dir / "r.json";
    // The compilers' folder appears under our TMPDIR when they start; the TERM comes while they run.
    // GPUCONFORM_CACHE_DIR=off: a kept pass would be reused and nothing would compile.
    const std::string script = "sh -c 'GPUCONFORM_CACHE_DIR=off TMPDIR=" + tmp.string() + " " + exe() +
                               " run --layer host --only \"host.toolchain.*\" --json " + path.string() +
                               " >/dev/null 2>&1 & pid=$!; i=0; "
                               "while [ $i -lt 1200 ] && ! ls " +
                               tmp.string() +
                               "/gpuconform-toolchain*/compile-0.log >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done; "
                               "sleep 0.5; start=$(date +%s%N); kill -TERM $pid; wait $pid; rc=$?; "
                               "end=$(date +%s%N); echo rc=$rc ms=$(( (end - start) / 1000000 ))'";
    FILE* pipe = popen(script.c_str(), "r");
    const std::string text = read_pipe(pipe);
    pclose(pipe);
    const auto ms_at = text.find("ms=");
    ASSERT_NE(ms_at, std::string::npos) << text;
    // Generous: the compilers get SIGTERM at once and SIGKILL 0.5 s later; before, the run waited
    // for them to finish (2-7 s unloaded, far longer on a loaded machine).
    EXPECT_LT(std::stol(text.substr(ms_at + 3)), 5000) << text;
    const auto report = read_json(path);
    EXPECT_TRUE(report.at("run").at("interrupted").get<bool>());
    int compiles = 0;
    for (const auto& r : report.at("results")) {
        const std::string id = r.at("id");
        if (id == "host.toolchain.cuda_compile" || id == "host.toolchain.hip_compile") {
            ++compiles;
            EXPECT_NE(r.at("status"), "pass") << "a compile cut short passed: " << r.dump();
        }
    }
    EXPECT_GT(compiles, 0) << report.dump();
    // No compiler outlived the run ("[t]mp" keeps the pattern from matching pgrep's own shell).
    std::string pattern = tmp.string();
    pattern.replace(pattern.rfind("tmp"), 3, "[t]mp");
    EXPECT_NE(std::system(("pgrep -f '" + pattern + "' >/dev/null").c_str()), 0) << "a compiler outlived the run";
}

}  // namespace
}  // namespace gpuconform::test
