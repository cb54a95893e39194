// The acceptance layer's table, in run order: opt-in (`run --layer acceptance`), never part of the
// default run or --quick. Each check plans its work to fit its share of `--budget`
// (CheckDef::budget_share; the shares add up to 0.95, the rest is start-up and allocation).
// Every figure they record is declared a diagnostic: repeat runs on one GPU model are too few yet
// to take a noise floor from, and each check judges its own floor against the device's peak.
#include "checks/layer_tables.hpp"

namespace gpuconform {

CheckDef make_acceptance_hbm_bandwidth();           // hbm_bandwidth.cpp
CheckDef make_acceptance_compute_checked_matmul();  // matmul_checked.cpp
CheckDef make_acceptance_load_clocks();             // load_clocks.cpp
CheckDef make_acceptance_memory_pattern_test();     // memory_test.cpp
CheckDef make_acceptance_copy_soak();               // copy_soak.cpp

std::vector<CheckDef> acceptance_checks() {
    std::vector<CheckDef> checks{
        make_acceptance_hbm_bandwidth(), make_acceptance_compute_checked_matmul(),
        make_acceptance_load_clocks(),   make_acceptance_memory_pattern_test(),
        make_acceptance_copy_soak(),
    };
    for (auto& c : checks) {
        c.quick = false;  // never in --quick
    }
    return checks;
}

}  // namespace gpuconform
