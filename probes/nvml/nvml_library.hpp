// NVML, opened once per process with dlopen("libnvidia-ml.so.1") and never linked, so the
// executable runs on nodes without the NVIDIA driver. The occupancy sampler and the health layer
// both read through it; each resolves the entry points it calls with `symbol`.
#pragma once

#include <dlfcn.h>

#include <string>

#include "nvml/nvml_api.hpp"

namespace gpuconform::nvml {

class Library {
public:
    // Opened and nvmlInit_v2'd on first use; NVML stays initialised until exit.
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
    void* m_handle = nullptr;
    const char* (*m_error_string)(Return) = nullptr;
    bool m_ready = false;
    std::string m_error;
};

}  // namespace gpuconform::nvml
