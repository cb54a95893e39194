// Clocks, temperature, power and clock-event reasons of one GPU, read while the acceptance layer
// loads it: NVML for NVIDIA GPUs (dlopen'ed, nvml/nvml_library.hpp; readable from the worker
// while its own kernels run), the module itself for the simulated device. AMD GPUs are not read
// yet (their sysfs clocks need the amdgpu reader's parsers): the check says so.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "backend/acceptance_ops.hpp"
#include "core/check.hpp"

namespace gpuconform::acceptance {

// One reading; "" when it was taken, else why not.
using LoadReader = std::function<std::string(LoadSample*)>;

// The reader for the check's GPU: NVML by PCI address for cuda, the module for sim; nullptr
// with *why set when there is none.
LoadReader load_reader_for(const CheckContext& ctx, std::string* why);

// Samples on a thread every `period_ms` from construction until stop().
class LoadSampler {
public:
    LoadSampler(LoadReader reader, double period_ms);
    ~LoadSampler();
    LoadSampler(const LoadSampler&) = delete;
    LoadSampler& operator=(const LoadSampler&) = delete;
    std::vector<LoadSample> stop();
    const std::string& first_error() const { return m_error; }

private:
    LoadReader m_reader;
    std::atomic<bool> m_stop{false};
    std::vector<LoadSample> m_samples;
    std::string m_error;
    std::thread m_thread;
};

}  // namespace gpuconform::acceptance
