// `--profile` reaches the framework layer: a value for a framework check is handed to pytest as a
// thresholds file (--gpuconform-thresholds), and a typo in one is refused before any check runs.
// pytest is stood in for by a script that echoes the file it was given as its one result.
#include <gtest/gtest.h>

#include <fstream>

#include <sys/stat.h>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

fs::path write_fake_python(const fs::path& dir) {
    const fs::path script = dir / "fake-python";
    std::ofstream(script) << R"(#!/bin/sh
exec /usr/bin/python3 - "$@" <<'PY'
import json, sys
args = dict(a.split("=", 1) for a in sys.argv[1:] if a.startswith("--gpuconform-") and "=" in a)
given = args.get("--gpuconform-thresholds")
text = open(given).read() if given else "no thresholds file"
with open(args["--gpuconform-results"], "w") as f:
    json.dump([{"id": "framework.torch.overlap_copy_compute", "layer": "framework", "status": "info",
                "summary": text}], f)
PY
)";
    ::chmod(script.c_str(), 0755);
    return script;
}

TEST(ProfileReachesFramework, AFrameworkValueIsHandedToPytest) {
    if (std::system("/usr/bin/python3 -c '' >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "no /usr/bin/python3 for the stand-in pytest";
    }
    const auto dir = temp_dir("profile-framework");
    const auto python = write_fake_python(dir);
    std::ofstream(dir / "site.yaml") << "defaults:\n  framework.torch.overlap_copy_compute: {overlap_min_ratio: 0.7}\n";
    const auto out = run_cli("run --backend sim --layer framework --framework-start late --python " + python.string() +
                             " --profile " + (dir / "site.yaml").string() + " --json " + (dir / "r.json").string());
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto report = read_json(dir / "r.json");
    const auto* r = find_result(report, "framework.torch.overlap_copy_compute");
    ASSERT_NE(r, nullptr) << out.output;
    const auto handed = nlohmann::json::parse(r->at("summary").get<std::string>());
    EXPECT_EQ(handed["defaults"]["framework.torch.overlap_copy_compute"]["overlap_min_ratio"], 0.7);

    // Without a profile value for the layer, pytest keeps its own file alone.
    const auto plain = run_cli("run --backend sim --layer framework --framework-start late --python " +
                               python.string() + " --json " + (dir / "p.json").string());
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    const auto plain_report = read_json(dir / "p.json");
    const auto* p = find_result(plain_report, "framework.torch.overlap_copy_compute");
    ASSERT_NE(p, nullptr) << plain.output;
    EXPECT_EQ(p->at("summary"), "no thresholds file");
    fs::remove_all(dir);
}

TEST(ProfileReachesFramework, ATypoInAFrameworkKeyIsRefusedBeforeAnyCheckRuns) {
    const auto dir = temp_dir("profile-framework-typo");
    std::ofstream(dir / "site.yaml") << "defaults:\n  framework.torch.overlap_copy_compute: {min_overlap_ratio: 0.7}\n";
    const auto out =
        run_cli("run --backend sim --profile " + (dir / "site.yaml").string() + " --json " + (dir / "r.json").string());
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("overlap_min_ratio"), std::string::npos) << out.output;  // names the keys it reads
    EXPECT_FALSE(fs::exists(dir / "r.json"));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuconform::test
