// The registry: every layer's table, in run order. A check is added to its layer's table
// (host/host_checks.cpp, health/health_checks.cpp, runtime/runtime_checks.cpp, async/async_checks.cpp).
#include "checks/layer_tables.hpp"

#include "core/check.hpp"

namespace gpuconform {

const std::vector<CheckDef>& all_checks() {
    static const std::vector<CheckDef> checks = [] {
        std::vector<CheckDef> all;
        for (auto* table :
             {&host_checks, &toolchain_checks, &health_checks, &runtime_checks, &async_checks, &acceptance_checks}) {
            for (auto& check : table()) {
                all.push_back(std::move(check));
            }
        }
        return all;
    }();
    return checks;
}

const CheckDef* find_check(const std::string& id) {
    for (const auto& c : all_checks()) {
        if (c.id == id) {
            return &c;
        }
    }
    return nullptr;
}

}  // namespace gpuconform
