// A compile probe's pass is reused only while everything it judged is unchanged, only a pass is
// kept, and a kept verdict that is torn, foreign or older than a week is never used.
#include "toolchain/compile_reuse.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace gpuconform {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
    const auto dir = fs::temp_directory_path() / ("gpuconform-reuse-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

CheckResult passed(const std::string& summary) {
    CheckResult r;
    r.id = "host.toolchain.cuda_compile";
    r.layer = "host";
    r.status = Status::Pass;
    r.summary = summary;
    r.facts = {{"toolkits", nlohmann::json::array({"nvcc"})}};
    r.measurements.push_back(summarize("compile_wall_s_total", "s", {1.5}));
    return r;
}

TEST(CompileReuse, AFingerprintLineChangesWithTheFileAndSaysWhenItIsAbsent) {
    const auto dir = fresh_dir("lines");
    const auto file = dir / "nvcc";
    std::ofstream(file) << "one";
    const std::string before = fingerprint_lines({file.string()}, {"PATH=/usr/bin"});
    EXPECT_NE(before.find("PATH=/usr/bin"), std::string::npos);
    std::ofstream(file) << "a longer nvcc";  // an upgrade: size and time change
    EXPECT_NE(fingerprint_lines({file.string()}, {"PATH=/usr/bin"}), before);
    EXPECT_NE(fingerprint_lines({(dir / "gone").string()}, {}).find(" absent"), std::string::npos);
    fs::remove_all(dir);
}

TEST(CompileReuse, APassIsReusedForTheSameFingerprintOnlyAndSaysFromWhen) {
    const auto dir = fresh_dir("pass").string();
    keep_compile_verdict(dir, "host.toolchain.cuda_compile", "print A", passed("1 nvcc compile"));
    CheckResult again;
    again.id = "host.toolchain.cuda_compile";
    ASSERT_TRUE(reuse_compile_verdict(dir, again.id, "print A", again));
    EXPECT_EQ(again.status, Status::Pass);
    EXPECT_NE(again.summary.find("1 nvcc compile (judged "), std::string::npos) << again.summary;
    EXPECT_NE(again.summary.find("reused"), std::string::npos);
    EXPECT_TRUE(again.facts.contains("reused_from"));
    ASSERT_EQ(again.measurements.size(), 1u);
    CheckResult other;
    other.id = again.id;
    EXPECT_FALSE(reuse_compile_verdict(dir, other.id, "print B", other));  // the toolchain changed
    EXPECT_FALSE(reuse_compile_verdict(dir, "host.toolchain.hip_compile", "print A", other));
    EXPECT_FALSE(reuse_compile_verdict("", other.id, "print A", other));  // no folder: always compile
    fs::remove_all(dir);
}

TEST(CompileReuse, OnlyAPassIsKeptAndAnythingElseForgetsTheOldPass) {
    const auto dir = fresh_dir("fail").string();
    keep_compile_verdict(dir, "host.toolchain.cuda_compile", "print", passed("ok"));
    CheckResult failed = passed("nvcc cannot find <cmath>");
    failed.status = Status::Fail;
    keep_compile_verdict(dir, "host.toolchain.cuda_compile", "print", failed);
    CheckResult r;
    r.id = "host.toolchain.cuda_compile";
    EXPECT_FALSE(reuse_compile_verdict(dir, r.id, "print", r));
    fs::remove_all(dir);
}

TEST(CompileReuse, ATornForeignOrOldVerdictIsNeverUsed) {
    const auto dir = fresh_dir("bad");
    const auto file = dir / "compile-verdict-host.toolchain.cuda_compile.json";
    CheckResult r;
    r.id = "host.toolchain.cuda_compile";
    std::ofstream(file) << R"({"fingerprint": "print", "judged_at_unix": )";
    EXPECT_FALSE(reuse_compile_verdict(dir.string(), r.id, "print", r));
    keep_compile_verdict(dir.string(), r.id, "print", passed("ok"));
    auto doc = nlohmann::json::parse(std::ifstream(file));
    doc["judged_at_unix"] = doc["judged_at_unix"].get<std::int64_t>() - 8 * 24 * 3600;  // eight days ago
    std::ofstream(file) << doc.dump();
    EXPECT_FALSE(reuse_compile_verdict(dir.string(), r.id, "print", r));
    doc["judged_at_unix"] = doc["judged_at_unix"].get<std::int64_t>() + 30 * 24 * 3600;  // in the future
    std::ofstream(file) << doc.dump();
    EXPECT_FALSE(reuse_compile_verdict(dir.string(), r.id, "print", r));
    fs::remove_all(dir);
}

TEST(CompileReuse, TheRunCompilesOnceThenReusesUntilTheFingerprintChanges) {
    const auto dir = fresh_dir("run");
    ASSERT_EQ(::setenv("GPUCONFORM_CACHE_DIR", dir.c_str(), 1), 0);
    int compiles = 0;
    std::string print = "toolchain 1";
    const CheckRun run = reuse_while_unchanged([&](const CheckContext&) { return print; },
                                               [&](CheckContext&, CheckResult& r) {
                                                   ++compiles;
                                                   r.status = Status::Pass;
                                                   r.summary = "compiled";
                                               });
    const Environment env;
    const Profile profile;
    const RunOptions options;
    CheckContext ctx{env, profile, options};
    const auto once = [&] {
        CheckResult r;
        r.id = "host.toolchain.cuda_compile";
        run(ctx, r);
        return r;
    };
    EXPECT_EQ(once().summary, "compiled");
    EXPECT_NE(once().summary.find("reused"), std::string::npos);
    EXPECT_EQ(compiles, 1);
    print = "toolchain 2";  // an nvcc upgraded, a header folder changed, the driver changed ...
    EXPECT_EQ(once().summary, "compiled");
    EXPECT_EQ(compiles, 2);
    ASSERT_EQ(::setenv("GPUCONFORM_CACHE_DIR", "off", 1), 0);
    EXPECT_EQ(once().summary, "compiled");
    EXPECT_EQ(compiles, 3);
    ::unsetenv("GPUCONFORM_CACHE_DIR");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuconform
