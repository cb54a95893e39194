// The busy-GPU policy around timing-sensitive checks (README "Busy GPUs"): read each GPU's other
// users in the parent while our side is idle, before the check and after it; wait (bounded) for a
// busy GPU to go quiet and measure again; a check still disturbed never passes or fails the install.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "core/gpu_turn.hpp"
#include "core/temp_dir.hpp"
#include "runner/device_phase.hpp"
#include "runner/worker_child.hpp"

namespace gpuconform {

namespace {
constexpr double k_poll_s = 1.0;
// A reading this fresh stands for a new one: the reading after one check is the reading before
// the next, taken a millisecond later with nothing of ours running between. Each reading walks
// every process's open files (/proc/*/fd), 2-4 ms on an idle GPU host and more on a busy one.
constexpr std::chrono::milliseconds k_reading_reused_within{50};

std::string key_of(const std::string& backend, int device) { return fmt::format("{}:{}", backend, device); }
}  // namespace

DevicePhase::~DevicePhase() {
    if (!m_cotenant_dir.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(m_cotenant_dir, ignored);
    }
}

std::string DevicePhase::add_cotenant(const std::string& module_options) {
    if (m_request.sim_cotenant_s < 0) {
        m_sampler.add(make_sim_provider(""));  // the sim reads as an idle GPU
        return module_options;
    }
    const std::string dir = make_temp_dir("gpuconform-cotenant");
    if (dir.empty()) {
        return module_options;  // the co-tenant cannot publish itself; the sim runs without one
    }
    m_cotenant_dir = dir;
    m_sampler.add(make_sim_provider(m_cotenant_dir, m_request.sim_cotenant_hidden));
    std::string out = module_options + ";cotenant=" + m_cotenant_dir;
    if (m_request.sim_cotenant_s > 0) {
        const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        out += fmt::format(";cotenant_quiet_at={:.3f}", now + m_request.sim_cotenant_s);
    }
    return out;
}

GpuOccupancy DevicePhase::sample(const Slot& slot, int device, bool look_behind_own) {
    const auto& devs = slot.info.devices;
    const std::string bdf =
        device < static_cast<int>(devs.size()) ? devs[static_cast<std::size_t>(device)].pci_bus_id : "";
    const std::string key = key_of(slot.info.name, device);
    if (const auto last = m_last_reading.find(key);
        !look_behind_own && last != m_last_reading.end() &&
        std::chrono::steady_clock::now() - last->second.at < k_reading_reused_within) {
        return last->second.occupancy;
    }
    const bool seen_before = m_unlisted_tenant.count(key) != 0;
    GpuOccupancy o = m_sampler.sample(slot.info.name, device, bdf, 1.0, look_behind_own || seen_before);
    m_last_reading[key] = {std::chrono::steady_clock::now(), o};
    if (disturbs_timing(o) && o.others.empty()) {
        // Busy with nobody listed (another PID namespace): from now on every reading of this GPU
        // looks behind our own last kernel, so the tenant cannot hide behind our process.
        m_unlisted_tenant.insert(key);
    }
    return o;
}

namespace {
// A result the install would be blamed for: only these need to know whether an unlisted tenant
// was behind them (a settled reading costs a second).
bool needs_look_behind(const CheckResult& r) {
    return r.status == Status::Fail || r.status == Status::Error || r.status == Status::Warn;
}
}  // namespace

double DevicePhase::wait_left(const Slot& slot, int device) const {
    const auto it = m_waited_s.find(key_of(slot.info.name, device));
    return m_request.busy_wait_s - (it == m_waited_s.end() ? 0.0 : it->second);
}

GpuOccupancy DevicePhase::wait_for_quiet(const Slot& slot, int device, GpuOccupancy last, double* waited_s) {
    const auto start = std::chrono::steady_clock::now();
    while (disturbs_timing(last) && wait_left(slot, device) > 0 && !g_interrupted) {
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(k_poll_s, wait_left(slot, device))));
        const double step = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - *waited_s;
        *waited_s += step;
        m_waited_s[key_of(slot.info.name, device)] += step;
        last = sample(slot, device, true);
    }
    return last;
}

std::vector<CheckResult> DevicePhase::run_unguarded(Slot& slot, const CheckDef& def, const std::vector<int>& devices) {
    std::vector<CheckResult> out;
    if (def.in_parent) {
        out = run_in_parent(slot, def, devices);
    } else if (def.scope == Scope::Node) {
        out.push_back(run_one(slot, def, devices.front()));
    } else {
        out = run_on_devices(slot, def, devices);
    }
    for (auto& r : out) {
        r.timing_sensitive = def.timing_sensitive;
    }
    return out;
}

std::vector<CheckResult> DevicePhase::run_in_parent(Slot& slot, const CheckDef& def, const std::vector<int>& devices) {
    std::vector<CheckResult> out;
    for (int d : devices) {
        CheckContext ctx{m_env, m_profile, m_options, nullptr, &slot.info, d, {}};
        if (d < static_cast<int>(slot.info.devices.size())) {
            ctx.props = slot.info.devices[static_cast<std::size_t>(d)];
        }
        ctx.occupancy = &m_sampler;
        CheckResult r = run_check_in_process(def, ctx);
        r.backend = slot.info.name;
        r.device = d;
        if (r.facts.contains("occupancy")) {
            m_first_occupancy.push_back(sample(slot, d, true));
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<CheckResult> DevicePhase::run_guarded(Slot& slot, const CheckDef& def, const std::vector<int>& devices) {
    std::unique_lock<std::mutex> turn(gpu_timing_turn(), std::defer_lock);
    if (def.timing_sensitive.value_or(false)) {
        turn.lock();  // a host check's GPU probe waits until this measurement is done
    }
    if (!def.timing_sensitive.value_or(false) || m_sampler.empty()) {
        return run_unguarded(slot, def, devices);
    }
    const WhenBusy policy = m_request.when_busy;
    // Node checks (peers) use every device: one busy GPU disturbs the whole measurement.
    const bool node = def.scope == Scope::Node;
    std::map<int, GpuOccupancy> busy;  // device -> who was on it before the measurement
    std::map<int, double> waited;
    std::vector<CheckResult> out;
    std::vector<int> to_run;
    // The acceptance layer waits for nobody: its time is the operator's budget. A busy GPU is
    // refused at once (error naming the other user) unless --when-busy measure.
    const bool may_wait = def.budget_share <= 0;
    for (int d : devices) {
        GpuOccupancy o = sample(slot, d);
        if (before_check(policy, disturbs_timing(o), may_wait ? wait_left(slot, d) : 0) == BeforeAction::WaitForQuiet) {
            o = wait_for_quiet(slot, d, o, &waited[d]);
        }
        if (disturbs_timing(o)) {
            busy[d] = o;
        }
        if (!disturbs_timing(o) || policy == WhenBusy::Measure) {
            to_run.push_back(d);
        } else if (!node) {
            out.push_back(busy_not_run(def.id, def.layer, policy, o, waited[d]));
        }
    }
    if (node && !busy.empty() && policy != WhenBusy::Measure) {
        CheckResult r = busy_not_run(def.id, def.layer, policy, busy.begin()->second, waited[busy.begin()->first]);
        r.device.reset();
        return {r};
    }
    if (to_run.empty()) {
        return out;
    }
    auto ran = run_unguarded(slot, def, node ? devices : to_run);
    for (auto& r : ran) {
        const int d = r.device.value_or(devices.front());
        if (r.facts.contains("out_of_range") && !node) {
            // An impossible figure: measure once more; a second one stays `error` with its timings.
            const nlohmann::json first = r.facts["out_of_range"];
            r = run_one(slot, def, d);
            r.timing_sensitive = def.timing_sensitive;
            r.facts["first_attempt_out_of_range"] = first;
        }
        GpuOccupancy after = sample(slot, d, needs_look_behind(r));
        if (disturbs_timing(after) && policy == WhenBusy::Wait && may_wait && wait_left(slot, d) > 0 && !node) {
            // Disturbed during the measurement: wait for quiet and measure once more.
            after = wait_for_quiet(slot, d, after, &waited[d]);
            if (!disturbs_timing(after)) {
                r = run_one(slot, def, d);
                r.timing_sensitive = def.timing_sensitive;
                after = sample(slot, d, needs_look_behind(r));
            }
        }
        if (disturbs_timing(after)) {
            mark_disturbed(r, policy, after, waited[d]);
        } else if (busy.count(d) != 0) {
            mark_disturbed(r, policy, busy[d], waited[d]);
        }
        out.push_back(std::move(r));
    }
    std::stable_sort(out.begin(), out.end(), [](const CheckResult& a, const CheckResult& b) {
        return a.device.value_or(-1) < b.device.value_or(-1);
    });
    return out;
}

}  // namespace gpuconform
