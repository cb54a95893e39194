#include "toolchain/compile_reuse.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "core/input_file.hpp"
#include "core/safe_write.hpp"
#include "core/utc_time.hpp"

namespace gpuconform {

namespace {

std::string path_line(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return path + " absent";
    }
    const long long mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec;
    return fmt::format("{} {} {} {}", path, static_cast<long long>(st.st_size), mtime_ns,
                       static_cast<unsigned long long>(st.st_ino));
}

std::string verdict_file(const std::string& dir, const std::string& check_id) {
    return dir + "/compile-verdict-" + check_id + ".json";
}

}  // namespace

std::string fingerprint_lines(const std::vector<std::string>& paths, const std::vector<std::string>& words) {
    std::string out;
    for (const auto& p : paths) {
        out += path_line(p) + "\n";
    }
    for (const auto& w : words) {
        out += w + "\n";
    }
    return out;
}

std::string compile_fingerprint(const std::vector<std::string>& tools, const Environment& env,
                                const std::string& path_env) {
    std::vector<std::string> paths = tools;
    std::vector<std::string> path_dirs;
    for (std::size_t start = 0; start <= path_env.size();) {
        const auto end = std::min(path_env.find(':', start), path_env.size());
        if (end > start) {
            path_dirs.push_back(path_env.substr(start, end - start));
        }
        start = end + 1;
    }
    // The host compilers nvcc (gcc, g++), hipcc (clang) and CMake (c++, $CXX) would pick.
    for (const char* name : {"gcc", "g++", "cc", "c++", "clang", "clang++"}) {
        for (const auto& dir : path_dirs) {
            if (::access((dir + "/" + name).c_str(), X_OK) == 0) {
                paths.push_back(dir + "/" + name);
                break;
            }
        }
    }
    for (const char* libc :
         {"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6"}) {
        paths.emplace_back(libc);
    }
    for (const auto& folder : host_compiler_folders("")) {
        paths.push_back(folder);
    }
    std::vector<std::string> words{std::string("gpuconform ") + GPUCONFORM_VERSION, "glibc " + env.glibc};
    for (const auto& [driver, version] : env.kernel_drivers) {
        words.push_back("driver " + driver + " " + version);
    }
    for (const auto& g : env.pci_gpus) {
        words.push_back("gpu " + g.vendor + " " + g.bdf);
    }
    for (const char* var : {"PATH",
                            "CXX",
                            "CC",
                            "CUDAHOSTCXX",
                            "NVCC_CCBIN",
                            "NVCC_PREPEND_FLAGS",
                            "NVCC_APPEND_FLAGS",
                            "CPATH",
                            "C_INCLUDE_PATH",
                            "CPLUS_INCLUDE_PATH",
                            "LIBRARY_PATH",
                            "LD_LIBRARY_PATH",
                            "HIP_PATH",
                            "ROCM_PATH",
                            "HIP_PLATFORM",
                            "HIPCC_COMPILE_FLAGS_APPEND",
                            "HIPCC_LINK_FLAGS_APPEND",
                            "CUDA_VISIBLE_DEVICES",
                            "HIP_VISIBLE_DEVICES",
                            "ROCR_VISIBLE_DEVICES"}) {
        const char* value = std::getenv(var);
        words.push_back(fmt::format("{}{}{}", var, value != nullptr ? "=" : " unset", value != nullptr ? value : ""));
    }
    return fingerprint_lines(paths, words);
}

std::vector<std::string> host_compiler_folders(const std::string& root) {
    std::vector<std::string> out{root + "/usr/include"};
    std::error_code ec;
    const auto children = [&](const std::string& folder) {
        std::vector<std::string> found;
        for (const auto& e : std::filesystem::directory_iterator(folder, ec)) {
            if (e.is_directory(ec)) {
                found.push_back(e.path().string());
            }
        }
        std::sort(found.begin(), found.end());
        return found;
    };
    for (const auto& c : children(root + "/usr/include/c++")) {
        out.push_back(c);
    }
    for (const auto& c : children(root + "/usr/include")) {
        if (c.find("-linux-gnu") != std::string::npos) {  // the multiarch headers (bits/, sys/)
            out.push_back(c);
        }
    }
    for (const auto& arch : children(root + "/usr/lib/gcc")) {
        for (const auto& version : children(arch)) {
            out.push_back(version);
        }
    }
    return out;
}

std::string compile_verdict_dir() {
    if (const char* d = std::getenv("GPUCONFORM_CACHE_DIR")) {
        const std::string dir = d;
        return dir == "off" ? "" : dir;
    }
    if (const char* d = std::getenv("CACHE_DIRECTORY"); d != nullptr && *d == '/') {
        return d;
    }
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d != nullptr && *d == '/') {
        return std::string(d) + "/gpuconform";
    }
    if (const char* d = std::getenv("HOME"); d != nullptr && *d == '/') {
        return std::string(d) + "/.cache/gpuconform";
    }
    return "";
}

bool reuse_compile_verdict(const std::string& dir, const std::string& check_id, const std::string& fingerprint,
                           CheckResult& r) {
    if (dir.empty()) {
        return false;
    }
    std::string error;
    const auto text = read_input_file(verdict_file(dir, check_id), k_max_config_bytes, error);
    if (!text) {
        return false;
    }
    try {
        const auto doc = nlohmann::json::parse(*text);
        const auto judged = doc.at("judged_at_unix").get<std::int64_t>();
        const auto now = std::time(nullptr);
        const auto max_age_s = std::chrono::duration_cast<std::chrono::seconds>(k_max_verdict_age).count();
        if (doc.at("fingerprint").get<std::string>() != fingerprint || judged > now || now - judged > max_age_s) {
            return false;
        }
        CheckResult saved;
        from_json(doc.at("result"), saved);
        if (saved.status != Status::Pass || saved.id != check_id) {
            return false;
        }
        r.status = saved.status;
        r.summary = fmt::format("{} (judged {}; reused: the toolchain is unchanged since)", saved.summary,
                                utc_iso(static_cast<std::time_t>(judged)));
        r.remediation = saved.remediation;
        r.facts = saved.facts;
        r.facts["reused_from"] = utc_iso(static_cast<std::time_t>(judged));
        r.measurements = saved.measurements;
        return true;
    } catch (const std::exception&) {  // a torn or foreign file: compile, and the pass overwrites it
        return false;
    }
}

void keep_compile_verdict(const std::string& dir, const std::string& check_id, const std::string& fingerprint,
                          const CheckResult& r) {
    if (dir.empty()) {
        return;
    }
    std::error_code ec;
    if (r.status != Status::Pass) {
        std::filesystem::remove(verdict_file(dir, check_id), ec);
        return;
    }
    std::filesystem::create_directories(dir, ec);
    nlohmann::json result;
    to_json(result, r);
    const nlohmann::json doc{{"fingerprint", fingerprint},
                             {"judged_at_unix", static_cast<std::int64_t>(std::time(nullptr))},
                             {"result", result}};
    std::string error;
    (void)write_file_atomic(verdict_file(dir, check_id), doc.dump(1), error);
}

CheckRun reuse_while_unchanged(std::function<std::string(const CheckContext&)> fingerprint, CheckRun compile) {
    return [fingerprint = std::move(fingerprint), compile = std::move(compile)](CheckContext& ctx, CheckResult& r) {
        const std::string dir = compile_verdict_dir();
        const std::string print = fingerprint(ctx);
        if (reuse_compile_verdict(dir, r.id, print, r)) {
            return;
        }
        compile(ctx, r);  // a skip (--quick, no compiler, a stop) throws: nothing is kept or removed
        keep_compile_verdict(dir, r.id, print, r);
    };
}

}  // namespace gpuconform
