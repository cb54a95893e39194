#include "health/health_check_common.hpp"

#include <stdexcept>

namespace gpuconform {

CheckDef health_check(std::string id, std::string description, Scope scope) {
    CheckDef d;
    d.id = std::move(id);
    d.layer = "health";
    d.description = std::move(description);
    d.scope = scope;
    d.timeout_s = 5.0;
    d.quick = true;
    return d;
}

const GpuHealth& gpu_of(const CheckContext& ctx) {
    if (ctx.health == nullptr || ctx.device < 0 || static_cast<std::size_t>(ctx.device) >= ctx.health->gpus.size()) {
        throw std::logic_error("a health check ran without the GPU's reading");
    }
    return ctx.health->gpus[static_cast<std::size_t>(ctx.device)];
}

void apply(CheckResult& r, const HealthVerdict& v) {
    r.status = v.status;
    r.summary = v.summary;
    r.remediation = v.remediation;
    if (!v.finding.empty()) {
        r.facts["finding"] = v.finding;
    }
}

Measurement measured(const std::string& name, double value, const std::string& unit) {
    Measurement m;
    m.name = name;
    m.value = value;
    m.unit = unit;
    return m;
}

void add_identity(CheckResult& r, const GpuHealth& g) {
    r.facts["gpu"] = gpu_label(g);
    r.facts["pci_bus_id"] = g.pci_bus_id;
    r.facts["name"] = g.name;
    r.facts["uuid"] = g.uuid;
}

}  // namespace gpuconform
