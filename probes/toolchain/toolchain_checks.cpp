// The toolchain table, run after the host table (checks/all_checks.cpp); its checks are host-layer.
#include "toolchain/toolchain_checks.hpp"

#include "checks/layer_tables.hpp"

namespace gpuconform {

std::vector<CheckDef> toolchain_checks() {
    return {
        make_upgrade_next_boot(),      make_upgrade_cuda_runtimes(), make_upgrade_amd_code_objects(),
        make_toolchain_cuda_compile(), make_toolchain_hip_compile(),
    };
}

}  // namespace gpuconform
