// The fault suite (ctest label `faults`): the real executable on a broken node, as a user runs
// it. Each case checks the run ends in time, the report is valid, and the right check says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include "cli_helpers.hpp"
#include "test_paths.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

void expect_valid(const fs::path& report) {
    if (const auto err = schema_error(report); err != "unavailable") {
        EXPECT_EQ(err, "") << err;
    }
}

bool can_drop_privileges() {
    return ::geteuid() == 0 && std::system("command -v setpriv >/dev/null && command -v prlimit >/dev/null") == 0;
}

// The unprivileged user may not reach the build tree (a checkout in root's home): it runs a copy
// of the executable and its modules from a folder everyone can read.
std::string as_nobody(const std::string& args) {
    static const fs::path copy = [] {
        const auto dir = temp_dir("nobody-bin");
        fs::copy_file(exe(), dir / "gpuconform");
        fs::copy(fs::path(test_paths::binary_dir) / "backends", dir / "backends", fs::copy_options::recursive);
        std::system(("chmod -R a+rX " + dir.string()).c_str());
        return dir;
    }();
    return "GPUCONFORM_MODULE_DIR=" + (copy / "backends").string() +
           " setpriv --reuid=65534 --regid=65534 --clear-groups " + args + " " + (copy / "gpuconform").string();
}

TEST(Faults, WithNoBackendModuleTheRuntimesAreReportedAndDeviceChecksSaySkippedWhy) {
    const auto dir = temp_dir("nomodule");
    const auto path = dir / "r.json";
    fs::create_directories(dir / "empty");  // a folder that does not exist at all is bad usage (exit 2)
    const auto out = run_cli("run --layer host,runtime,async --json " + path.string(),
                             "GPUCONFORM_MODULE_DIR=" + (dir / "empty").string());
    const auto report = read_json(path);
    const auto* load = find_result(report, "runtime.cuda.load");
    ASSERT_NE(load, nullptr);
    EXPECT_NE(load->at("status"), "pass");
    EXPECT_NE(load->at("summary").get<std::string>().find("not found"), std::string::npos);
    const auto* launch = find_result(report, "async.launch.returns_early");
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(launch->at("status"), "skip");
    EXPECT_NE(launch->at("summary").get<std::string>().find("no GPU device"), std::string::npos);
    if (const auto err = schema_error(path); err != "unavailable") {
        EXPECT_EQ(err, "") << err;
    }
}

TEST(Faults, ACorruptModuleIsALoaderMessageNotACrash) {
    const auto dir = temp_dir("corrupt");
    std::ofstream(dir / "libgpuconform-cuda.so") << "not an ELF file";
    const auto path = dir / "r.json";
    const auto out = run_cli("run --layer runtime --json " + path.string(), "GPUCONFORM_MODULE_DIR=" + dir.string());
    const auto report = read_json(path);
    bool found = false;
    for (const auto& b : report.at("backends")) {
        if (b.at("name") == "cuda") {
            found = true;
            EXPECT_FALSE(b.at("loaded").get<bool>());
            EXPECT_NE(b.at("load_error").get<std::string>().find("libgpuconform-cuda.so"), std::string::npos);
        }
    }
    EXPECT_TRUE(found) << out.output;
}

TEST(Faults, AHungCheckTimesOutAndTheNextStillRuns) {
    const auto dir = temp_dir("hang");
    const auto path = dir / "r.json";
    run_cli(
        "run --backend sim --fault hang --check-timeout 2 --layer async "
        "--only 'async.launch.*,async.event.timing_accuracy' --json " +
        path.string());
    const auto report = read_json(path);
    const auto* launch = find_result(report, "async.launch.returns_early");
    const auto* timing = find_result(report, "async.event.timing_accuracy");
    ASSERT_NE(launch, nullptr);
    ASSERT_NE(timing, nullptr);
    EXPECT_EQ(launch->at("status"), "error");
    EXPECT_NE(launch->at("summary").get<std::string>().find("timed out after 2 s"), std::string::npos);
    EXPECT_EQ(timing->at("status"), "error");
}

// Runs two device checks under a fatal fault: each must end in `error` naming what happened,
// and the second must still run after the first took its worker down.
void expect_each_check_errors_naming(const std::string& fault, const std::string& name) {
    const auto dir = temp_dir(fault);
    const auto path = dir / "r.json";
    run_cli("run --backend sim --fault " + fault +
            " --layer async --only 'async.launch.*,async.event.timing_accuracy' --json " + path.string());
    const auto report = read_json(path);
    for (const char* id : {"async.launch.returns_early", "async.event.timing_accuracy"}) {
        const auto* r = find_result(report, id);
        ASSERT_NE(r, nullptr) << id;
        EXPECT_EQ(r->at("status"), "error");
        EXPECT_NE(r->at("summary").get<std::string>().find(name), std::string::npos) << r->at("summary");
    }
    expect_valid(path);
}

TEST(Faults, ACrashingCheckIsAnErrorNamingTheSignalAndTheNextStillRuns) {
    expect_each_check_errors_naming("crash", "SEGV");
}

TEST(Faults, AStickyDeviceErrorIsAnErrorWithItsNameAndDoesNotLeak) {
    expect_each_check_errors_naming("sticky_error", "simErrorLaunchFailure");
}

TEST(Faults, SigintEndsChildrenAndWritesAPartialReportMarkedInterrupted) {
    const auto dir = temp_dir("sigint");
    const auto path = dir / "r.json";
    const std::string script =
        "sh -c '" + exe() + " run --backend sim --fault hang --check-timeout 60 --layer async --json " + path.string() +
        " >/dev/null 2>&1 & pid=$!; sleep 2; kill -INT $pid; wait $pid; echo rc=$?'";
    FILE* pipe = popen(script.c_str(), "r");
    const std::string text = read_pipe(pipe);
    pclose(pipe);
    EXPECT_NE(text.find("rc=130"), std::string::npos) << text;
    const auto report = read_json(path);
    EXPECT_TRUE(report.at("run").at("interrupted").get<bool>());
    EXPECT_EQ(report.at("summary").at("verdict"), "inconclusive");
    // Workers are forked, so they carry the parent's command line: none may be left.
    // "[s]igint" keeps the pattern from matching the shell that runs pgrep.
    std::string pattern = path.string();
    pattern.replace(pattern.find("sigint"), 6, "[s]igint");
    const std::string left = "pgrep -f '" + pattern + "' >/dev/null";
    EXPECT_NE(std::system(left.c_str()), 0) << "a worker process outlived the run";
    expect_valid(path);
}

TEST(Faults, UnprivilegedUserWithTinyMemlockGetsAReportAndTheRightVerdict) {
    if (!can_drop_privileges()) {
        GTEST_SKIP() << "needs root, setpriv and prlimit to become an unprivileged user";
    }
    const std::string command = as_nobody("prlimit --memlock=65536:65536") + " run --layer host --json - 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    Outcome out;
    out.output = read_pipe(pipe);
    pclose(pipe);
    const auto report = nlohmann::json::parse(out.output, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << out.output;
    EXPECT_EQ(report.at("environment").at("limits").at("memlock_soft_bytes"), 65536);
    EXPECT_FALSE(report.at("environment").at("limits").at("cap_ipc_lock").get<bool>());
    const auto* memlock = find_result(report, "host.memlock");
    ASSERT_NE(memlock, nullptr);
    // 64 KiB is far below what RDMA and ROCm need; without CAP_IPC_LOCK nothing exempts this user.
    EXPECT_EQ(memlock->at("status"), "warn") << memlock->at("summary");
}

TEST(Faults, AnUnwritableReportFolderIsExitTwoBeforeAnyCheckRuns) {
    if (!can_drop_privileges()) {
        GTEST_SKIP() << "root writes anywhere: needs setpriv to test as an unprivileged user";
    }
    const auto dir = temp_dir("readonly");
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read |
                             fs::perms::others_exec | fs::perms::group_exec);
    const std::string command = as_nobody("") + " run --layer host --json " + (dir / "r.json").string() + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    Outcome out;
    out.output = read_pipe(pipe);
    const int status = pclose(pipe);
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("not writable"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("host.memlock"), std::string::npos)
        << "checks ran although the report could not be written";
}

TEST(Faults, AFullDiskForTheReportIsExitTwoAndSaysWhere) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to mount a tiny tmpfs";
    }
    const auto dir = temp_dir("fulldisk");
    const std::string mount = "mount -t tmpfs -o size=4k tmpfs " + dir.string() + " 2>/dev/null";
    if (std::system(mount.c_str()) != 0) {
        GTEST_SKIP() << "cannot mount a tmpfs here (no CAP_SYS_ADMIN)";
    }
    // A one-page file system cannot hold a report of two layers.
    const auto out = run_cli("run --layer host,runtime --json " + (dir / "r.json").string());
    const std::string umount = "umount " + dir.string();
    std::system(umount.c_str());
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("No space left on device"), std::string::npos) << out.output;
    // The report is not lost: it was kept in a file of our own, and the message says where.
    const std::string marker = "the report was written to ";
    const auto at = out.output.find(marker);
    ASSERT_NE(at, std::string::npos) << out.output;
    const auto start = at + marker.size();
    const std::string kept = out.output.substr(start, out.output.find(" instead", start) - start);
    const auto report = read_json(kept);
    EXPECT_EQ(report.at("schema"), "gpuconform-report");
    EXPECT_NE(find_result(report, "host.memlock"), nullptr);
    fs::remove(kept);
}

TEST(Faults, ARuntimeThatLoadsWithoutADriverSaysSo) {
    const fs::path module = fs::path(test_paths::binary_dir) / "backends" / "libgpuconform-cuda.so";
    if (!fs::exists(module) || fs::exists("/dev/nvidiactl")) {
        GTEST_SKIP() << "needs the CUDA module built on a machine without the NVIDIA driver";
    }
    const auto dir = temp_dir("nodriver");
    const auto path = dir / "r.json";
    run_cli("run --layer runtime --json " + path.string());
    const auto report = read_json(path);
    const auto* devices = find_result(report, "runtime.cuda.devices");
    ASSERT_NE(devices, nullptr);
    // The statically linked runtime loads and answers; the missing driver is its own error name.
    EXPECT_NE(devices->at("summary").get<std::string>().find("cudaErrorInsufficientDriver"), std::string::npos)
        << devices->at("summary");
    for (const auto& b : report.at("backends")) {
        if (b.at("name") == "cuda") {
            EXPECT_TRUE(b.at("loaded").get<bool>());
            EXPECT_TRUE(b.at("driver_version").is_null());
            EXPECT_EQ(b.at("runtime_version"), "13.0");
        }
    }
}

// The HIP module has never met an AMD GPU: on a node without one it must load, answer with
// HIP's own error name, and let every device check skip, not crash the worker.
TEST(Faults, TheHipModuleWithoutAnAmdGpuSaysNoDevice) {
    const fs::path module = fs::path(test_paths::binary_dir) / "backends" / "libgpuconform-hip.so";
    if (!fs::exists(module) || fs::exists("/dev/kfd")) {
        GTEST_SKIP() << "needs the HIP module built on a machine without an AMD GPU";
    }
    const auto dir = temp_dir("nohipdevice");
    const auto path = dir / "r.json";
    const auto out = run_cli("run --backend hip --layer runtime,async --json " + path.string());
    const auto report = read_json(path);
    bool found = false;
    for (const auto& b : report.at("backends")) {
        if (b.at("name") == "hip") {
            found = true;
            EXPECT_TRUE(b.at("loaded").get<bool>()) << b.dump();
            EXPECT_FALSE(b.at("runtime_version").is_null()) << "the runtime itself answers";
        }
    }
    EXPECT_TRUE(found) << out.output;
    const auto* devices = find_result(report, "runtime.hip.devices");
    ASSERT_NE(devices, nullptr) << out.output;
    EXPECT_EQ(devices->at("status"), "skip");
    EXPECT_NE(devices->at("summary").get<std::string>().find("hipErrorNoDevice"), std::string::npos)
        << devices->at("summary");
    const auto* launch = find_result(report, "async.launch.returns_early");
    ASSERT_NE(launch, nullptr) << out.output;
    EXPECT_EQ(launch->at("status"), "skip") << launch->at("summary");
    expect_valid(path);
}

TEST(Faults, ARunLeavesNothingBehindButTheReport) {
    const auto dir = temp_dir("footprint");
    fs::create_directories(dir / "tmp");
    fs::create_directories(dir / "out");
    const auto out = run_cli(
        "run --layer host,runtime,framework --python /usr/bin/python3 --json " + (dir / "out" / "r.json").string(),
        "TMPDIR=" + (dir / "tmp").string());
    ASSERT_TRUE(fs::exists(dir / "out" / "r.json")) << out.output;
    EXPECT_TRUE(fs::is_empty(dir / "tmp")) << "temporary files were left in TMPDIR";
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "out"), fs::directory_iterator{}), 1) << "only the report";
}

}  // namespace
}  // namespace gpuconform::test
