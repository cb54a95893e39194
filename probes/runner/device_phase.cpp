#include "runner/device_phase.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpuconform {

namespace {
// Loading a runtime and counting devices: CUDA's first call can take seconds on large nodes.
constexpr double k_hello_timeout_s = 60.0;
}  // namespace

DevicePhase::DevicePhase(const Environment& env, const Profile& profile, const RunOptions& options,
                         const RunRequest& request, Record record)
    : m_env(env), m_profile(profile), m_options(options), m_request(request), m_record(std::move(record)) {}

void DevicePhase::add_backend(const std::string& name, const std::string& module_options) {
    Slot slot;
    slot.setup = WorkerSetup{name, module_options, &m_env, &m_profile, &m_options};
    slot.worker = Worker::start(slot.setup, k_hello_timeout_s, &slot.info);
    m_slots.push_back(std::move(slot));
}

std::vector<BackendInfo> DevicePhase::backends() const {
    std::vector<BackendInfo> out;
    for (const auto& s : m_slots) {
        out.push_back(s.info);
    }
    return out;
}

bool DevicePhase::device_selected(int device) const {
    return m_request.devices.empty() ||
           std::find(m_request.devices.begin(), m_request.devices.end(), device) != m_request.devices.end();
}

int DevicePhase::validate_devices() const {
    int most = 0;
    for (const auto& s : m_slots) {
        most = std::max(most, s.info.device_count);
    }
    for (int d : m_request.devices) {
        if (d < 0 || d >= most) {
            return d;
        }
    }
    return -1;
}

std::string DevicePhase::describe_devices() const {
    std::string out;
    for (const auto& s : m_slots) {
        out += fmt::format("{}{}: {} device(s)", out.empty() ? "" : "; ", s.info.name, s.info.device_count);
    }
    return out;
}

std::string DevicePhase::why_no_devices() const {
    std::string out;
    for (const auto& s : m_slots) {
        std::string why;
        if (!s.info.loaded) {
            why = "not loadable";
        } else if (!s.info.count_status.ok()) {
            why = s.info.count_status.name;
        } else {
            why = "0 devices";
        }
        out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", s.info.name, why);
    }
    return out;
}

CheckResult DevicePhase::run_one(Slot& slot, const CheckDef& def, int device) {
    const double timeout = m_options.timeout_override_s > 0 ? m_options.timeout_override_s : def.timeout_s;
    if (def.isolated) {
        // A fresh worker that is thrown away afterwards: sticky errors stay inside it.
        BackendInfo ignored;
        auto fresh = Worker::start(slot.setup, k_hello_timeout_s, &ignored);
        CheckResult r = fresh->run(def, device, timeout);
        r.backend = slot.info.name;
        return r;
    }
    if (!slot.worker || !slot.worker->alive()) {
        BackendInfo ignored;
        slot.worker = Worker::start(slot.setup, k_hello_timeout_s, &ignored);
    }
    CheckResult r = slot.worker->run(def, device, timeout);
    r.backend = slot.info.name;
    return r;
}

void DevicePhase::run_device_checks(const std::vector<const CheckDef*>& checks) {
    std::vector<const CheckDef*> device_checks;
    for (const auto* c : checks) {
        if (c->scope == Scope::Device) {
            device_checks.push_back(c);
        }
    }
    const bool any_device = std::any_of(m_slots.begin(), m_slots.end(), [](const Slot& s) {
        return s.info.loaded && s.info.device_count > 0;
    });
    if (!any_device) {
        for (const auto* def : device_checks) {
            CheckResult r;
            r.id = def->id;
            r.layer = def->layer;
            r.status = Status::Skip;
            r.summary = "no GPU device visible to any runtime (" + why_no_devices() + "; see runtime.*.load and runtime.*.devices)";
            m_record(std::move(r));
        }
        return;
    }
    for (auto& slot : m_slots) {
        for (int d = 0; d < slot.info.device_count && !g_interrupted; ++d) {
            if (!device_selected(d)) {
                continue;
            }
            for (const auto* def : device_checks) {
                if (g_interrupted) {
                    break;
                }
                m_record(run_one(slot, *def, d));
            }
        }
        slot.worker.reset();
    }
}

}  // namespace gpuconform
