#include "acceptance/load_sampler.hpp"

#include <chrono>

#include <fmt/format.h>

#include "nvml/nvml_library.hpp"

namespace gpuconform::acceptance {

namespace {

// NVML by name, as the health reader calls it (https://docs.nvidia.com/deploy/nvml-api/
// group__nvmlDeviceQueries.html: nvmlDeviceGetClockInfo, nvmlDeviceGetMaxClockInfo,
// nvmlDeviceGetTemperature, nvmlDeviceGetPowerUsage, nvmlDeviceGetCurrentClocksEventReasons).
constexpr int k_clock_sm = 1;  // nvmlClockType_t NVML_CLOCK_SM

template <typename... Args>
nvml::Return call(const nvml::Library& lib, const char* name, Args... args) {
    auto f = lib.symbol<nvml::Return (*)(Args...)>(name);
    return f == nullptr ? -1 : f(args...);
}

LoadReader nvml_reader(const std::string& bdf, std::string* why) {
    const nvml::Library& lib = nvml::Library::instance();
    if (!lib.ready()) {
        *why = "NVML: " + lib.error();
        return nullptr;
    }
    nvml::Device dev = nullptr;
    if (const auto r = call(lib, "nvmlDeviceGetHandleByPciBusId_v2", bdf.c_str(), &dev); r != nvml::k_success) {
        *why = fmt::format("NVML has no GPU at {}: {}", bdf, lib.describe(r));
        return nullptr;
    }
    return [&lib, dev](LoadSample* s) -> std::string {
        unsigned int mhz = 0;
        const auto r = call(lib, "nvmlDeviceGetClockInfo", dev, k_clock_sm, &mhz);
        if (r != nvml::k_success) {
            return "nvmlDeviceGetClockInfo: " + lib.describe(r);
        }
        s->sm_clock_mhz = mhz;
        if (call(lib, "nvmlDeviceGetMaxClockInfo", dev, k_clock_sm, &mhz) == nvml::k_success) {
            s->max_sm_clock_mhz = mhz;
        }
        unsigned int value = 0;
        if (call(lib, "nvmlDeviceGetTemperature", dev, nvml::k_temperature_gpu, &value) == nvml::k_success) {
            s->temperature_c = value;
        }
        if (call(lib, "nvmlDeviceGetPowerUsage", dev, &value) == nvml::k_success) {
            s->power_w = value / 1000.0;
        }
        unsigned long long reasons = 0;
        if (call(lib, "nvmlDeviceGetCurrentClocksEventReasons", dev, &reasons) == nvml::k_success ||
            call(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", dev, &reasons) == nvml::k_success) {
            s->clock_event_reasons = reasons;
            s->reasons_read = true;
        }
        return "";
    };
}

}  // namespace

LoadReader load_reader_for(const CheckContext& ctx, std::string* why) {
    const std::string backend = ctx.backend == nullptr ? "" : ctx.backend->name();
    if (backend == "cuda") {
        return nvml_reader(ctx.props.pci_bus_id, why);
    }
    if (backend == "sim") {
        AcceptanceOps* ops = ctx.backend->acceptance();
        const int device = ctx.device;
        if (ops == nullptr) {
            *why = "the sim module has no acceptance operations";
            return nullptr;
        }
        return [ops, device](LoadSample* s) -> std::string {
            const ApiResult r = ops->sample_load(device, s);
            return r.ok() ? "" : r.name + ": " + r.message;
        };
    }
    *why = "clocks under load are read through NVML (NVIDIA) and the simulated device only; not yet on " +
           (backend.empty() ? std::string("this backend") : backend);
    return nullptr;
}

LoadSampler::LoadSampler(LoadReader reader, double period_ms) : m_reader(std::move(reader)) {
    m_thread = std::thread([this, period_ms] {
        while (!m_stop.load()) {
            LoadSample s;
            const std::string error = m_reader(&s);
            if (error.empty()) {
                m_samples.push_back(s);
            } else if (m_error.empty()) {
                m_error = error;
            }
            std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(period_ms));
        }
    });
}

LoadSampler::~LoadSampler() { (void)stop(); }

std::vector<LoadSample> LoadSampler::stop() {
    m_stop = true;
    if (m_thread.joinable()) {
        m_thread.join();
    }
    return m_samples;
}

}  // namespace gpuconform::acceptance
