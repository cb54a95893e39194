#include "nvml/nvml_library.hpp"

#include <unistd.h>

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
    init();
    m_pid.store(getpid(), std::memory_order_release);
}

void Library::init() {
    m_ready = false;
    m_error.clear();
    auto nvml_init = symbol<Return (*)()>("nvmlInit_v2");
    if (nvml_init == nullptr) {
        m_error = "libnvidia-ml.so.1 lacks nvmlInit_v2";
        return;
    }
    if (const Return r = nvml_init(); r != k_success) {
        m_error = "nvmlInit_v2 failed: " + describe(r);
        return;
    }
    m_ready = true;
}

void Library::renew_in_new_process() {
    const pid_t self = getpid();
    if (m_handle == nullptr || m_pid.load(std::memory_order_acquire) == self) {
        return;
    }
    const std::lock_guard<std::mutex> lock(m_renew);
    if (m_pid.load(std::memory_order_acquire) != self) {
        init();
        if (!m_ready) {
            // Seen on driver 580: "Uninitialized" before, NVML_ERROR_OPERATING_SYSTEM on trying again.
            m_error =
                "NVML was initialised by the process this one was forked from, and cannot be used "
                "again after the fork (" +
                m_error + ")";
        }
        m_pid.store(self, std::memory_order_release);
    }
}

const Library& Library::instance() {
    static Library lib;  // thread-safe initialisation: the occupancy sampler reads from threads
    lib.renew_in_new_process();
    return lib;
}

std::string Library::describe(Return r) const {
    return m_error_string != nullptr ? fmt::format("{} ({})", m_error_string(r), r) : fmt::format("NVML error {}", r);
}

}  // namespace gpuconform::nvml
