#include "nvml/nvml_library.hpp"

#include <fmt/format.h>

namespace gpuconform::nvml {

Library::Library() {
    m_handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (m_handle == nullptr) {
        const char* why = dlerror();
        m_error = fmt::format("NVML not loadable: {}", why != nullptr ? why : "dlopen failed");
        return;
    }
    m_error_string = symbol<const char* (*)(Return)>("nvmlErrorString");
    auto init = symbol<Return (*)()>("nvmlInit_v2");
    if (init == nullptr) {
        m_error = "libnvidia-ml.so.1 lacks nvmlInit_v2";
        return;
    }
    if (const Return r = init(); r != k_success) {
        m_error = "nvmlInit_v2 failed: " + describe(r);
        return;
    }
    m_ready = true;
}

const Library& Library::instance() {
    static const Library lib;  // thread-safe initialisation: the occupancy sampler reads from threads
    return lib;
}

std::string Library::describe(Return r) const {
    return m_error_string != nullptr ? fmt::format("{} ({})", m_error_string(r), r) : fmt::format("NVML error {}", r);
}

}  // namespace gpuconform::nvml
