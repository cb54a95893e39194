// PCIe Advanced Error Reporting counters from sysfs, where the kernel has them: aer_dev_correctable,
// aer_dev_fatal and aer_dev_nonfatal under the device's folder, each a list of "NAME count" lines
// ending in TOTAL_ERR_COR / TOTAL_ERR_FATAL / TOTAL_ERR_NONFATAL
// (https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci-devices-aer). Readable
// without root; a kernel without AER, or a VM that hides it, has no such files: not supported.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "health/health_reading.hpp"

namespace gpuconform {

// The count on the line that starts with `name` ("TOTAL_ERR_COR"), or nullopt when there is none.
std::optional<std::uint64_t> aer_total(const std::string& text, const std::string& name);

// The three totals under `device_dir` (/sys/bus/pci/devices/<bdf>): not supported when none of the
// files is there; an error naming the file when one is there but cannot be read or parsed.
Read<AerCounts> read_pcie_aer(const std::string& device_dir);

// NVML's bus id ("00000000:1B:00.0": an 8-digit domain, upper case) as sysfs names the device
// ("0000:1b:00.0"); "" when it is not one.
std::string sysfs_bdf(const std::string& bus_id);

}  // namespace gpuconform
