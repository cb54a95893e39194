// What every health check shares: its CheckDef's common fields, the GPU it judges, readings as
// measurements (null when unread, never zero) and the verdict put into the result.
#pragma once

#include <cstdint>
#include <string>

#include "core/check.hpp"
#include "health/health_reading.hpp"
#include "health/judges.hpp"

namespace gpuconform {

// layer "health", the scope given, a time limit far above the milliseconds a reading takes.
CheckDef health_check(std::string id, std::string description, Scope scope = Scope::Gpu);

// The reading of the GPU this Scope::Gpu check runs for.
const GpuHealth& gpu_of(const CheckContext& ctx);

// The verdict into the result; a finding goes to facts.finding, which the hardware cause names.
void apply(CheckResult& r, const HealthVerdict& v);

// The GPU's identity in facts: gpu ("cuda:0"), pci_bus_id, name, uuid.
void add_identity(CheckResult& r, const GpuHealth& g);

// One reading that was made.
Measurement measured(const std::string& name, double value, const std::string& unit);

template <typename T>
void add_reading(CheckResult& r, const std::string& name, const Read<T>& read, const std::string& unit) {
    Measurement m;
    m.name = name;
    m.unit = unit;
    if (read.ok()) {
        m.value = static_cast<double>(*read.value);
    } else {
        r.facts["unread"][name] = read.why();
    }
    r.measurements.push_back(std::move(m));
}

}  // namespace gpuconform
