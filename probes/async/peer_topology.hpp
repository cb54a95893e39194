// How two GPUs are connected on the PCI tree, read from sysfs, in the labels `nvidia-smi topo -m`
// uses: PIX (one switch/bridge apart), PXB (several bridges, same root port), PHB (through the
// host bridge), SYS (across host bridges / sockets), or "unknown" when sysfs does not say.
#pragma once

#include <string>
#include <vector>

namespace gpuconform::async {

// The device's full sysfs path ("/sys/devices/pci0000:00/0000:00:01.0/.../0000:05:00.0"), or "".
std::string pci_sysfs_path(const std::string& bdf);
// Pure: the label for two such paths.
std::string pci_link_label(const std::string& path_a, const std::string& path_b);

}  // namespace gpuconform::async
