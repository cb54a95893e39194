// The health layer's table, in run order: one line per check (see checks/layer_tables.hpp).
#include "checks/layer_tables.hpp"
#include "health/health_checks.hpp"

namespace gpuconform {

std::vector<CheckDef> health_checks() {
    return {
        make_health_inventory(),   make_health_ecc(),    make_health_memory_remap(), make_health_clocks(),
        make_health_pcie_errors(), make_health_nvlink(), make_health_xid(),          make_health_error_growth(),
    };
}

bool after_device_layer(const CheckDef& def) { return def.id == "health.error_growth"; }

}  // namespace gpuconform
