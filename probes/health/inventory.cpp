// health.inventory: the vendor's GPUs as a set, against the PCI bus and the profile's
// expected_gpus, with model, VBIOS, InfoROM and modes per GPU (docs/gpu-health.md, "Inventory").
#include "health/health_check_common.hpp"

namespace gpuconform {

namespace {

nlohmann::json text_or_null(const Read<std::string>& r) { return r.ok() ? nlohmann::json(*r.value) : nlohmann::json(); }

template <typename T>
nlohmann::json value_or_null(const Read<T>& r) {
    return r.ok() ? nlohmann::json(*r.value) : nlohmann::json();
}

}  // namespace

CheckDef make_health_inventory() {
    CheckDef d = health_check("health.inventory",
                              "GPU count against the PCI bus and expected_gpus; one model, VBIOS and InfoROM among "
                              "siblings; persistence, compute and MIG modes",
                              Scope::GpuNode);
    d.profile_keys = {
        keys::range("expected_gpus", 0, 1024, true),
    };
    d.measurements = {
        measure::diagnostic("*", Direction::None, 0.00),
    };
    d.caught_by = {"gpu_missing", "vbios_odd"};
    d.run = [](CheckContext& ctx, CheckResult& r) {
        if (ctx.health == nullptr) {
            throw std::logic_error("health.inventory ran without a reading");
        }
        const NodeHealth& node = *ctx.health;
        const auto expected = ctx.expect_optional(r, "expected_gpus");
        r.facts["source"] = node.source;
        r.facts["driver_version"] = node.driver_version;
        nlohmann::json gpus = nlohmann::json::array();
        for (const auto& g : node.gpus) {
            gpus.push_back({{"gpu", gpu_label(g)},
                            {"pci_bus_id", g.pci_bus_id},
                            {"name", g.name},
                            {"uuid", g.uuid},
                            {"vbios", text_or_null(g.vbios)},
                            {"inforom", text_or_null(g.inforom)},
                            {"persistence", value_or_null(g.persistence)},
                            {"compute_mode", value_or_null(g.compute_mode)},
                            {"mig_enabled", value_or_null(g.mig_current)},
                            {"mig_pending", value_or_null(g.mig_pending)}});
        }
        r.facts["gpus"] = std::move(gpus);
        r.measurements.push_back(measured("gpus_seen", static_cast<double>(node.gpus.size()), "GPUs"));
        r.measurements.push_back(measured("pci_gpus", static_cast<double>(node.pci_gpus), "GPUs"));
        const std::optional<int> want = expected ? std::optional<int>(static_cast<int>(*expected)) : std::nullopt;
        apply(r, judge_inventory(node, want));
    };
    return d;
}

}  // namespace gpuconform
