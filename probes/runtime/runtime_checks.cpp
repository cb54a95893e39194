// The runtime layer's table: the same four checks for each backend module.
#include "checks/layer_tables.hpp"
#include "runtime/runtime_common.hpp"

namespace gpuconform {

std::vector<CheckDef> runtime_checks_for(const std::string& backend) {
    return {
        make_runtime_load(backend),
        make_runtime_driver_compat(backend),
        make_runtime_devices(backend),
        make_runtime_pci_agreement(backend),
    };
}

std::vector<CheckDef> runtime_checks() {
    std::vector<CheckDef> all;
    for (const char* backend : {"cuda", "hip", "sim"}) {
        for (auto& c : runtime_checks_for(backend)) {
            all.push_back(std::move(c));
        }
    }
    return all;
}

}  // namespace gpuconform
