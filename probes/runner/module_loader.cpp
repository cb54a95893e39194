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

std::vector<std::string> module_search_dirs() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("GPUCONFORM_MODULE_DIR"); env != nullptr && *env != '\0') {
        return {env};  // an explicit folder replaces the defaults, so a test or a fleet knows what loads
    }
    const auto exe = executable_dir();
    dirs.push_back(exe + "/backends");
    dirs.push_back(exe + "/../" GPUCONFORM_INSTALL_MODULE_DIR);
    return dirs;
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
    for (const auto& dir :
         {exe + "/share/gpuconform/python_tests", exe + "/../" GPUCONFORM_INSTALL_DATA_DIR "/python_tests"}) {
        if (fs::is_directory(dir)) {
            return fs::path(dir).lexically_normal().string();
        }
    }
    return exe + "/share/gpuconform/python_tests";
}

}  // namespace gpuconform
