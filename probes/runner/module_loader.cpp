#include "runner/module_loader.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

namespace gpuconform {

namespace fs = std::filesystem;

std::string executable_dir() {
    std::error_code ec;
    const auto exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : exe.parent_path().string();
}

bool is_build_tree(const std::string& exe_dir) {
    std::error_code ec;
    return fs::is_regular_file(fs::path(exe_dir) / "CMakeCache.txt", ec);
}

std::vector<std::string> module_search_dirs_for(const std::string& exe_dir) {
    const std::string beside = exe_dir + "/backends";
    const std::string installed =
        (fs::path(exe_dir) / ".." / GPUCONFORM_INSTALL_MODULE_DIR).lexically_normal().string();
    std::error_code ec;
    // An installed executable never looks beside itself (/usr/bin/backends): a stray folder there
    // must not shadow the packaged modules. A build's executable copied out with its backends/
    // (no CMakeCache.txt, no installed folder) still finds them.
    if (is_build_tree(exe_dir) || (!fs::is_directory(installed, ec) && fs::is_directory(beside, ec))) {
        return {beside};
    }
    return {installed};
}

std::vector<std::string> module_search_dirs() {
    if (const char* env = std::getenv("GPUCONFORM_MODULE_DIR"); env != nullptr && *env != '\0') {
        return {env};  // an explicit folder replaces the defaults, so a test or a fleet knows what loads
    }
    return module_search_dirs_for(executable_dir());
}

LoadedBackend load_backend(const std::string& name, const std::string& options) {
    LoadedBackend out;
    const std::string file = "libgpuconform-" + name + ".so";
    std::string searched;
    for (const auto& dir : module_search_dirs()) {
        const auto candidate = fs::path(dir) / file;
        searched += (searched.empty() ? "" : ", ") + candidate.lexically_normal().string();
        if (fs::exists(candidate)) {
            out.path = candidate.lexically_normal().string();
            break;
        }
    }
    if (out.path.empty()) {
        out.error = fmt::format("module {} not found (searched {}); this build of gpuconform has no {} backend", file,
                                searched, name);
        return out;
    }
    void* handle = dlopen(out.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* e = dlerror();
        out.error = e != nullptr ? e : "dlopen failed";
        return out;
    }
    auto abi = reinterpret_cast<AbiVersionFn>(dlsym(handle, "gpuconform_backend_abi_version"));
    auto create = reinterpret_cast<CreateBackendFn>(dlsym(handle, "gpuconform_create_backend"));
    if (abi == nullptr || create == nullptr) {
        out.error = fmt::format("{} is not a gpuconform backend module (missing entry points)", out.path);
        return out;
    }
    if (abi() != k_backend_abi_version) {
        out.error =
            fmt::format("{} was built for backend interface {}, this executable needs {}; rebuild both together",
                        out.path, abi(), k_backend_abi_version);
        return out;
    }
    out.backend.reset(create(options.c_str()));
    if (!out.backend) {
        out.error = fmt::format("{} refused the options '{}'", out.path, options);
    }
    return out;
}

}  // namespace gpuconform

namespace gpuconform {

std::string find_python_tests_dir() {
    const auto exe = executable_dir();
    const std::string beside = exe + "/share/gpuconform/python_tests";
    const std::string installed =
        (fs::path(exe) / ".." / GPUCONFORM_INSTALL_DATA_DIR / "python_tests").lexically_normal().string();
    const bool build = is_build_tree(exe);  // as for modules: an installed one prefers its own
    for (const auto& dir : build ? std::vector{beside, installed} : std::vector{installed, beside}) {
        if (fs::is_directory(dir)) {
            return dir;
        }
    }
    return build ? beside : installed;  // where it should have been, for the message
}

}  // namespace gpuconform
