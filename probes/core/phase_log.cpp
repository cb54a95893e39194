#include "core/phase_log.hpp"

#include <algorithm>

namespace gpuconform {

void to_json(nlohmann::json& j, const Phase& p) {
    j = {{"name", p.name}, {"start_s", p.start_s}, {"duration_s", p.duration_s}};
}

void PhaseLog::add(const std::string& name, Clock::time_point start, Clock::time_point end) {
    using Seconds = std::chrono::duration<double>;
    // A stamp from before the run (a clock step cannot happen: steady) is clamped, not negative.
    const double start_s = std::max(0.0, Seconds(start - m_origin).count());
    const double duration_s = std::max(0.0, Seconds(end - start).count());
    m_phases.push_back({name, start_s, duration_s});
}

void PhaseLog::add_monotonic(const std::string& name, double start_s, double end_s) {
    add(name, monotonic_time_point(start_s), monotonic_time_point(end_s));
}

void PhaseLog::Scope::end() {
    if (m_log != nullptr) {
        m_log->add(m_name, m_start, Clock::now());
        m_log = nullptr;
    }
}

PhaseLog::Clock::time_point monotonic_time_point(double seconds) {
    return PhaseLog::Clock::time_point(
        std::chrono::duration_cast<PhaseLog::Clock::duration>(std::chrono::duration<double>(seconds)));
}

}  // namespace gpuconform
