#include "runner/device_phase.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "runner/siblings.hpp"

namespace gpuconform {

namespace {
// Loading a runtime and counting devices: CUDA's first call can take seconds on large nodes.
constexpr double k_hello_timeout_s = 60.0;
// Beyond an acceptance check's share: its allocations (most of the GPU's memory) and library start.
constexpr double k_budget_margin_s = 60.0;

// Where the checks that measure nothing begin: isolated ones (faults on purpose), which run last.
std::size_t start_of_quiet_tail(const std::vector<const CheckDef*>& checks) {
    std::size_t k = checks.size();
    while (k > 0 && checks[k - 1]->isolated && !checks[k - 1]->timing_sensitive.value_or(false)) {
        --k;
    }
    return k;
}
}  // namespace

DevicePhase::DevicePhase(const Environment& env, const Profile& profile, const RunOptions& options,
                         const RunRequest& request, Record record)
    : m_env(env),
      m_profile(profile),
      m_options(options),
      m_request(request),
      m_record(std::move(record)),
      m_sampler(OccupancySampler::standard("")) {}

void DevicePhase::add_backend(const std::string& name, const std::string& module_options) {
    Slot slot;
    slot.setup = WorkerSetup{
        name, name == "sim" ? add_cotenant(module_options) : module_options, &m_env, &m_profile, &m_options, m_phases};
    auto hello = Worker::start(slot.setup, k_hello_timeout_s, &slot.info);
    if (hello->alive()) {
        slot.workers[0] = std::move(hello);  // the worker that said hello serves device 0
    }
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

double DevicePhase::timeout_for(const CheckDef& def) const {
    if (m_options.timeout_override_s > 0) {
        return m_options.timeout_override_s;
    }
    if (def.budget_share > 0) {
        // An acceptance check plans to end within its share; the limit only catches a hang.
        return m_options.budget_s * def.budget_share * 1.25 + k_budget_margin_s;
    }
    return def.timeout_s;
}

Worker& DevicePhase::worker_for(Slot& slot, int device) {
    auto& w = slot.workers[device];
    if (!w || !w->alive()) {
        BackendInfo ignored;
        w = Worker::start(slot.setup, k_hello_timeout_s, &ignored);
    }
    return *w;
}

CheckResult DevicePhase::run_one(Slot& slot, const CheckDef& def, int device) {
    CheckResult r;
    r = worker_for(slot, device).run(def, device, timeout_for(def));
    if (def.isolated) {
        // Its faults may leave the context unusable: the worker goes with them, and a later check
        // on this device starts a fresh one (run_device_checks runs isolated checks last).
        slot.workers.erase(device);
    }
    r.backend = slot.info.name;
    if (def.scope == Scope::Node) {
        r.device.reset();
    }
    return r;
}

std::vector<CheckResult> DevicePhase::run_on_devices(Slot& slot, const CheckDef& def, const std::vector<int>& devices) {
    std::vector<CheckResult> out;
    if (!def.parallel_devices || def.isolated || devices.size() < 2) {
        for (int d : devices) {
            if (!g_interrupted) {
                out.push_back(run_one(slot, def, d));
            }
        }
        return out;
    }
    // Every device's worker gets the check at once; each answer has the check's own limit.
    std::vector<bool> sent;
    for (int d : devices) {
        sent.push_back(worker_for(slot, d).send(def, d));
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
        CheckResult r = sent[i] ? slot.workers[devices[i]]->receive(def, devices[i], timeout_for(def))
                                : run_one(slot, def, devices[i]);
        r.backend = slot.info.name;
        out.push_back(std::move(r));
    }
    return out;
}

void DevicePhase::judge_siblings(const Slot& slot, const CheckDef& def, std::vector<CheckResult>& results) const {
    if (def.sibling_keys.empty()) {
        return;
    }
    std::vector<std::string> models;
    for (const auto& p : slot.info.devices) {
        models.push_back(p.name);
    }
    if (!m_request.devices.empty()) {
        // --device left out siblings the rule needs: say so rather than pass unjudged.
        std::vector<CheckResult*> all;
        for (auto& r : results) {
            all.push_back(&r);
        }
        mark_siblings_not_judged(all, models);
    }
    if (results.size() < 3) {
        return;
    }
    const auto shortfall = m_profile.lookup(def.id, "sibling_max_shortfall_ratio", slot.info.vendor, "");
    if (!shortfall) {
        return;
    }
    std::vector<CheckResult*> pointers;
    for (auto& r : results) {
        if (r.disturbance.is_null()) {  // a reading disturbed by another user says nothing of the device
            pointers.push_back(&r);
        }
    }
    apply_sibling_rule(pointers, models, def.sibling_keys, *shortfall);
}

void DevicePhase::run_device_checks(const std::vector<const CheckDef*>& checks,
                                    const std::function<void()>& measuring_done) {
    std::vector<const CheckDef*> device_checks;
    for (const auto* c : checks) {
        if (c->scope == Scope::Device || c->scope == Scope::Node) {
            device_checks.push_back(c);
        }
    }
    // Isolated checks last: the first of them then runs in the worker every other check used,
    // which is thrown away after it, instead of in a worker and context of its own (a start and a
    // context cost about 0.2 s on an H100, on the device phase's critical path).
    std::stable_partition(device_checks.begin(), device_checks.end(), [](const CheckDef* c) { return !c->isolated; });
    const bool any_device = std::any_of(m_slots.begin(), m_slots.end(),
                                        [](const Slot& s) { return s.info.loaded && s.info.device_count > 0; });
    if (!any_device) {
        for (const auto* def : device_checks) {
            CheckResult r;
            r.id = def->id;
            r.layer = def->layer;
            r.status = Status::Skip;
            r.summary = "no GPU device visible to any runtime (" + why_no_devices() +
                        "; see runtime.*.load and runtime.*.devices)";
            m_record(std::move(r));
        }
        return;
    }
    std::vector<std::vector<int>> devices_of;
    std::size_t last_slot = 0;  // the last backend with a device to run on
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        devices_of.emplace_back();
        for (int d = 0; d < m_slots[i].info.device_count; ++d) {
            if (device_selected(d)) {
                devices_of[i].push_back(d);
            }
        }
        if (!devices_of[i].empty()) {
            last_slot = i;
        }
    }
    const std::size_t quiet_from = start_of_quiet_tail(device_checks);
    bool told = !measuring_done;
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        auto& slot = m_slots[i];
        const auto& devices = devices_of[i];
        for (std::size_t k = 0; k < device_checks.size(); ++k) {
            const auto* def = device_checks[k];
            if (g_interrupted || devices.empty()) {
                break;
            }
            if (!told && i == last_slot && k == quiet_from) {
                measuring_done();
                told = true;
            }
            auto results = run_guarded(slot, *def, devices);
            judge_siblings(slot, *def, results);
            for (auto& r : results) {
                m_record(std::move(r));
            }
        }
        slot.workers.clear();
    }
}

}  // namespace gpuconform
