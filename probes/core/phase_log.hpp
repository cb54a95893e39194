// Where a run's time goes: one steady-clock stamp at the start and end of each phase (host
// facts, each worker start, the device checks, the framework layer's start-up and tests, the
// report), kept as offsets from the run's start. The report carries them as `run.phases`.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuconform {

struct Phase {
    std::string name;    // dotted, layer first: "host.environment", "worker.cuda.start", "framework.torch_import"
    double start_s = 0;  // from the run's start
    double duration_s = 0;
};

void to_json(nlohmann::json& j, const Phase& p);

class PhaseLog {
public:
    using Clock = std::chrono::steady_clock;

    explicit PhaseLog(Clock::time_point origin = Clock::now()) : m_origin(origin) {}

    void add(const std::string& name, Clock::time_point start, Clock::time_point end);
    // A phase stamped by another process with CLOCK_MONOTONIC seconds (Python's time.monotonic(),
    // the clock steady_clock reads on Linux).
    void add_monotonic(const std::string& name, double start_s, double end_s);
    const std::vector<Phase>& phases() const { return m_phases; }
    Clock::time_point origin() const { return m_origin; }

    // Stamps a phase from construction to destruction (or end()).
    class Scope {
    public:
        Scope(PhaseLog* log, std::string name) : m_log(log), m_name(std::move(name)), m_start(Clock::now()) {}
        ~Scope() { end(); }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;
        void end();

    private:
        PhaseLog* m_log;
        std::string m_name;
        Clock::time_point m_start;
    };

private:
    Clock::time_point m_origin;
    std::vector<Phase> m_phases;
};

// CLOCK_MONOTONIC seconds as a steady_clock time point.
PhaseLog::Clock::time_point monotonic_time_point(double seconds);

}  // namespace gpuconform
