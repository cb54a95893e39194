// The host layer's table, in run order: one line per check (see layer_tables.hpp).
#include "checks/layer_tables.hpp"
#include "host/host_checks.hpp"

namespace gpuconform {

std::vector<CheckDef> host_checks() {
    return {
        make_host_distro(), make_host_kernel(),        make_host_glibc(),
        make_host_cpu(),    make_host_memory(),        make_host_memlock(),
        make_host_vm(),     make_host_device_nodes(),  make_host_container(),
        make_host_env(),    make_host_kernel_driver(), make_host_pcie_link(),
    };
}

}  // namespace gpuconform
