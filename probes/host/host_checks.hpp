// The host layer's checks, one `make_host_...()` each. Checks that look at the file system
// again (device nodes, vm settings) take the root to read below, "/" on a real host.
#pragma once

#include <string>

#include "core/check.hpp"

namespace gpuconform {

// Facts of the node, reported as info (info_checks.cpp).
CheckDef make_host_distro();
CheckDef make_host_kernel();
CheckDef make_host_glibc();
CheckDef make_host_cpu();
CheckDef make_host_memory();
CheckDef make_host_container();
CheckDef make_host_vm(const std::string& root = "/");  // vm_check.cpp

CheckDef make_host_memlock();                                    // memlock.cpp
CheckDef make_host_device_nodes(const std::string& root = "/");  // device_nodes.cpp
CheckDef make_host_env();                                        // gpu_env.cpp
CheckDef make_host_kernel_driver();                              // kernel_driver.cpp
CheckDef make_host_pcie_link();                                  // pcie_link.cpp

}  // namespace gpuconform
