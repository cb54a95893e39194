// The profile is the framework layer's only source of numbers: the run hands pytest every layer
// (--gpuconform-profile), so a `--profile` value reaches it, and a typo in one is refused before
// any check runs. pytest is stood in for by a script that resolves the file it was given with the
// plugin's own reader (python_tests/gpuconform_torch/thresholds.py) and reports what it got.
#include <gtest/gtest.h>

#include <fstream>

#include <sys/stat.h>

#include "cli_helpers.hpp"
#include "test_paths.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

fs::path write_fake_python(const fs::path& dir) {
    const fs::path script = dir / "fake-python";
    std::ofstream(script) << R"(#!/bin/sh
exec /usr/bin/python3 - "$@" <<'PY'
import json, sys
sys.path.insert(0, ")" << test_paths::source_dir
                          << R"(/python_tests")
from gpuconform_torch import thresholds
args = dict(a.split("=", 1) for a in sys.argv[1:] if a.startswith("--gpuconform-") and "=" in a)
given = args.get("--gpuconform-profile")
check = "framework.torch.overlap_copy_compute"
if given:
    quick = "--gpuconform-quick" in sys.argv
    t = thresholds.load_thresholds(given, vendor="nvidia", quick=quick)
    text = json.dumps({k: t.get(check, k) for k in ("overlap_min_ratio", "size_bytes", "trials")})
else:
    text = "no profile file"
with open(args["--gpuconform-results"], "w") as f:
    json.dump([{"id": check, "layer": "framework", "status": "info", "summary": text}], f)
PY
)";
    ::chmod(script.c_str(), 0755);
    return script;
}

nlohmann::json values_pytest_got(const fs::path& dir, const std::string& args) {
    const auto out = run_cli("run --backend sim --layer framework --framework-start late --python " +
                             (dir / "fake-python").string() + " " + args + " --json " + (dir / "r.json").string());
    EXPECT_EQ(out.exit_code, 0) << out.output;
    const auto report = read_json(dir / "r.json");
    const auto* r = find_result(report, "framework.torch.overlap_copy_compute");
    if (r == nullptr) {
        ADD_FAILURE() << out.output;
        return nullptr;
    }
    return nlohmann::json::parse(r->at("summary").get<std::string>());
}

TEST(ProfileReachesFramework, PytestGetsTheBuiltInValuesAndEveryFileOverThem) {
    if (std::system("/usr/bin/python3 -c '' >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "no /usr/bin/python3 for the stand-in pytest";
    }
    const auto dir = temp_dir("profile-framework");
    write_fake_python(dir);
    // The built-in values (probes/profiles/default.yaml), and its quick section under --quick.
    const auto plain = values_pytest_got(dir, "");
    EXPECT_EQ(plain["overlap_min_ratio"], 0.5);
    EXPECT_EQ(plain["size_bytes"], 268435456);
    EXPECT_EQ(values_pytest_got(dir, "--quick")["size_bytes"], 67108864);
    // A site's file: its plain default beats the built-in vendor and quick layers below it.
    std::ofstream(dir / "site.yaml") << "defaults:\n  framework.torch.overlap_copy_compute: {overlap_min_ratio: 0.7, "
                                        "size_bytes: 1048576}\n";
    const auto site = values_pytest_got(dir, "--quick --profile " + (dir / "site.yaml").string());
    EXPECT_EQ(site["overlap_min_ratio"], 0.7);
    EXPECT_EQ(site["size_bytes"], 1048576);
    EXPECT_EQ(site["trials"], 5);  // from the built-in quick section, which the site left alone
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
