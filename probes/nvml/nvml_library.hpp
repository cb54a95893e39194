// NVML, opened once per process with dlopen("libnvidia-ml.so.1") and never linked, so the
// executable runs on nodes without the NVIDIA driver. The occupancy sampler and the health layer
// both read through it; each resolves the entry points it calls with `symbol`.
#pragma once

#include <dlfcn.h>
#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <string>

#include "nvml/nvml_api.hpp"

namespace gpuconform::nvml {

class Library {
public:
    // Opened and nvmlInit_v2'd on first use; NVML stays initialised until exit. NVML's state
    // does not survive fork(): in a forked process its calls answer "Uninitialized" although the
    // copied object says ready. The first use in a forked process therefore initialises it again,
    // which on driver 580 fails where the parent had initialised it (then error() says so). So
    // the runner forks its workers before it first opens NVML itself (runner/runner.cpp).
    static const Library& instance();

    bool ready() const { return m_ready; }
    const std::string& error() const { return m_error; }  // why it is not ready

    // The entry point `name`, or null when this driver's NVML lacks it.
    template <typename F>
    F symbol(const char* name) const {
        return m_handle == nullptr ? nullptr : reinterpret_cast<F>(dlsym(m_handle, name));
    }
    // "NVML_ERROR_NOT_SUPPORTED-like text (3)" from nvmlErrorString.
    std::string describe(Return r) const;

private:
    Library();
    void init();
    void renew_in_new_process();
    void* m_handle = nullptr;
    const char* (*m_error_string)(Return) = nullptr;
    bool m_ready = false;
    std::string m_error;
    std::atomic<pid_t> m_pid{0};  // the process that initialised NVML
    std::mutex m_renew;           // taken only in a forked process, never in the one that forked
};

}  // namespace gpuconform::nvml
