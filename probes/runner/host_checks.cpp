#include "runner/host_checks.hpp"

#include "runner/worker.hpp"
#include "runner/worker_child.hpp"

namespace gpuconform {

CheckResult run_host_check(const CheckDef& def, const Environment& env, const Profile& profile,
                           const RunOptions& options, const BackendInfo* info) {
    CheckContext ctx{env, profile, options, nullptr, info, -1, {}};
    CheckResult r = run_check_in_process(def, ctx);
    if (info != nullptr) {
        r.backend = info->name;
    }
    return r;
}

HostChecks::HostChecks(const std::vector<const CheckDef*>& checks, const Environment& env, const Profile& profile,
                       const RunOptions& options)
    : m_env(env), m_profile(profile), m_options(options) {
    for (const auto* def : checks) {
        if (def->scope == Scope::Host) {
            m_checks.push_back(def);
        }
    }
}

HostChecks::~HostChecks() {
    if (m_thread.joinable()) {
        m_thread.join();
    }
}

void HostChecks::run_all() {
    m_start = PhaseLog::Clock::now();
    for (const auto* def : m_checks) {
        if (!g_interrupted) {
            m_results.push_back(run_host_check(*def, m_env, m_profile, m_options, nullptr));
        }
    }
    m_end = PhaseLog::Clock::now();
}

void HostChecks::start() {
    m_started = true;
    m_thread = std::thread([this] { run_all(); });
}

void HostChecks::run_here() { run_all(); }

void HostChecks::finish(PhaseLog* phases, const std::function<void(CheckResult)>& record) {
    if (m_finished) {
        return;
    }
    m_finished = true;
    if (m_thread.joinable()) {
        m_thread.join();
    }
    phases->add("host.checks", m_start, m_end);
    for (auto& r : m_results) {
        record(std::move(r));
    }
    m_results.clear();
}

}  // namespace gpuconform
