// The health layer in the parent: one reading per vendor (health/health_reading.hpp), made
// before the device checks and without any GPU runtime, then every health check judged from it:
// a Scope::Gpu check once per GPU read, a Scope::GpuNode check once per reading. The error
// counters are read once more after the device layer: growth during our run is a finding.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/phase_log.hpp"
#include "health/health_reading.hpp"

namespace gpuconform {

// The readers for a run on `backends`: the simulated node's for "sim" (from the sim module's
// options); NVML for "cuda" and amdgpu sysfs for "hip", each where the PCI bus shows that
// vendor's GPUs. With no GPU on the bus, NVML alone, so that a node whose GPUs all vanished is
// still counted against the profile's expected_gpus.
std::vector<std::unique_ptr<HealthReader>> health_readers(const Environment& env,
                                                          const std::vector<std::string>& backends,
                                                          const std::string& sim_options);

// True when `checks` holds a health-layer check (Scope::Gpu or GpuNode).
bool has_health_checks(const std::vector<const CheckDef*>& checks);

// Reads each reader once ("health.read"), then runs the health checks judged from that one
// reading in table order ("health.checks"), handing each result to `record`. Returns the readings,
// for run_health_growth_checks.
std::vector<NodeHealth> run_health_checks(const std::vector<const CheckDef*>& checks,
                                          const std::vector<std::unique_ptr<HealthReader>>& readers,
                                          const Environment& env, const Profile& profile, const RunOptions& options,
                                          PhaseLog* phases, const std::function<void(CheckResult)>& record);

// After the device layer: reads the same `readers` again ("health.reread") and runs the checks
// judged after it (health/health_checks.hpp, after_device_layer) against `before`, what
// run_health_checks returned for them (counters that grew during our own run). Nothing when no
// such check is selected.
void run_health_growth_checks(const std::vector<const CheckDef*>& checks,
                              const std::vector<std::unique_ptr<HealthReader>>& readers,
                              const std::vector<NodeHealth>& before, const Environment& env, const Profile& profile,
                              const RunOptions& options, PhaseLog* phases,
                              const std::function<void(CheckResult)>& record);

}  // namespace gpuconform
