// The simulated backend module: construction, shared helpers, device calls and the exported
// entry points. Streams and events: sim_streams.cpp; memory and copies: sim_copies.cpp;
// kernels: sim_kernels.cpp.
#include "backend/sim/sim_backend.hpp"

#include <cstdio>
#include <exception>

#include "backend/sim/sim_cotenant.hpp"
#include "backend/sim/sim_errors.hpp"

namespace gpuconform::sim {

SimBackend::SimBackend(SimOptions options) : m_options(std::move(options)) {
    std::vector<SimNuma::DeviceSeat> seats;
    for (int i = 0; i < m_options.devices; ++i) {
        auto d = std::make_unique<SimDevice>();
        d->faults = m_options.faults[static_cast<std::size_t>(i)];
        d->legacy = m_scheduler.create_stream(i, /*legacy=*/true, /*blocking=*/false);
        seats.push_back({i % k_sim_numa_nodes, d->faults});
        m_devices.push_back(std::move(d));
    }
    m_numa = std::make_unique<SimNuma>(std::move(seats));
    publish_cotenant(m_options);
}

ApiResult SimBackend::fail(ApiResult error) {
    std::lock_guard lock(m_state_mutex);
    m_last_error[std::this_thread::get_id()] = error;
    return error;
}

ApiResult SimBackend::reported(ApiResult result) { return result.ok() ? result : fail(std::move(result)); }

ApiResult SimBackend::failed_sticky() { return m_scheduler.sticky(); }

int SimBackend::current_device() {
    std::lock_guard lock(m_state_mutex);
    const auto it = m_current_device.find(std::this_thread::get_id());
    return it == m_current_device.end() ? 0 : it->second;
}

StreamPtr SimBackend::resolve_stream(StreamHandle handle) {
    const int device = current_device();
    if (device >= static_cast<int>(m_devices.size())) {
        return nullptr;
    }
    if (handle == 0 || handle == k_legacy_stream) {
        return m_devices[static_cast<std::size_t>(device)]->legacy;
    }
    std::lock_guard lock(m_state_mutex);
    if (handle == k_per_thread_stream) {
        auto& s = m_per_thread[{std::this_thread::get_id(), device}];
        if (!s) {
            // Per-thread streams order with the legacy stream, like blocking streams do.
            s = m_scheduler.create_stream(device, /*legacy=*/false, /*blocking=*/true);
        }
        return s;
    }
    const auto it = m_streams.find(handle);
    return it == m_streams.end() ? nullptr : it->second;
}

std::optional<SimEvent> SimBackend::event_snapshot(EventHandle handle) {
    std::lock_guard lock(m_state_mutex);
    const auto it = m_events.find(handle);
    if (it == m_events.end()) {
        return std::nullopt;
    }
    return it->second;
}

SimDevice& SimBackend::device_of(const SimStream& stream) {
    return *m_devices[static_cast<std::size_t>(stream.device)];
}

TaskPtr SimBackend::enqueue(SimStream& stream, TaskSpec spec, std::vector<TaskPtr> deps) {
    const bool legacy_sync = !device_of(stream).faults.has(Fault::DefaultStreamNoSync);
    return m_scheduler.enqueue(stream, std::move(spec), std::move(deps), legacy_sync);
}

ApiResult SimBackend::wait_and_report(const TaskPtr& task) {
    m_scheduler.wait_task(task);
    return reported(failed_sticky());
}

// What cudaFree and friends do implicitly: nothing queued may still use the memory.
ApiResult SimBackend::synchronize_all() {
    for (std::size_t i = 0; i < m_devices.size(); ++i) {
        m_scheduler.wait_device(static_cast<int>(i));
    }
    return m_scheduler.sticky();
}

VersionInfo SimBackend::versions() {
    VersionInfo v;
    v.driver_version = 1000;
    v.runtime_version = 1000;
    return v;
}

ApiResult SimBackend::device_count(int* count) {
    *count = static_cast<int>(m_devices.size());
    if (m_devices.empty()) {
        return fail(sim_error(SimError::NoDevice, "no simulated device (devices=0)"));
    }
    return failed_sticky();
}

ApiResult SimBackend::device_props(int device, DeviceProps* props) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    if (device < 0 || device >= static_cast<int>(m_devices.size())) {
        return fail(sim_error(SimError::InvalidDevice, "no simulated device " + std::to_string(device)));
    }
    props->name = "gpuconform simulated device";
    props->arch = "sim";
    props->pci_bus_id = "";
    props->total_memory = k_sim_device_memory;
    props->async_engine_count = 2;  // one_copy_engine still claims two: the fault is the claim not holding
    props->concurrent_kernels = true;
    props->can_map_host_memory = true;
    props->multiprocessors = 8;
    return sim_ok();
}

ApiResult SimBackend::set_device(int device) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    if (device < 0 || device >= static_cast<int>(m_devices.size())) {
        return fail(sim_error(SimError::InvalidDevice, "no simulated device " + std::to_string(device)));
    }
    std::lock_guard lock(m_state_mutex);
    m_current_device[std::this_thread::get_id()] = device;
    return sim_ok();
}

ApiResult SimBackend::device_synchronize() {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    if (m_devices.empty()) {
        return fail(sim_error(SimError::NoDevice, "no simulated device (devices=0)"));
    }
    m_scheduler.wait_device(current_device());
    return failed_sticky();
}

ApiResult SimBackend::last_error() {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;  // sticky errors are not cleared
    }
    std::lock_guard lock(m_state_mutex);
    const auto it = m_last_error.find(std::this_thread::get_id());
    if (it == m_last_error.end()) {
        return sim_ok();
    }
    ApiResult r = it->second;
    m_last_error.erase(it);
    return r;
}

}  // namespace gpuconform::sim

extern "C" gpuconform::Backend* gpuconform_create_backend(const char* options) {
    std::string error;
    auto parsed = gpuconform::sim::parse_sim_options(options != nullptr ? options : "", &error);
    if (!parsed) {
        std::fprintf(stderr, "gpuconform-sim: %s\n", error.c_str());
        return nullptr;
    }
    try {
        return new gpuconform::sim::SimBackend(std::move(*parsed));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpuconform-sim: could not start: %s\n", e.what());
        return nullptr;
    }
}

extern "C" int gpuconform_backend_abi_version() { return gpuconform::k_backend_abi_version; }
