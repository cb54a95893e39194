// Shared facts for the runtime layer: which GPUs of a backend's vendor the PCI bus shows, and
// the likely reasons a runtime does not see them.
#pragma once

#include <string>
#include <vector>

#include "core/check.hpp"

namespace gpuconform {

// "nvidia" for cuda, "amd" for hip, "" for sim.
std::string pci_vendor_of_backend(const std::string& backend);
std::vector<PciGpu> gpus_on_bus(const Environment& env, const std::string& backend);
// Visible-devices variables, device nodes, packages: what to look at, in words.
std::string likely_causes(const Environment& env, const std::string& backend);
// CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES when set ("" otherwise).
std::string visibility_filter(const Environment& env, const std::string& backend);

// True when a *_VISIBLE_DEVICES value leaves no device visible: empty, or a first entry that is
// neither an index nor a GPU-/MIG- UUID ("devices whose index precedes the invalid index are
// visible", https://docs.nvidia.com/cuda/cuda-c-programming-guide/#cuda-environment-variables).
bool visibility_value_hides_all(const std::string& value);

// The backend's visibility variable (name=value) that hides every device, or "".
std::string hiding_visibility_variable(const Environment& env, const std::string& backend);
std::string display_name(const std::string& backend);  // "CUDA", "HIP", "sim"
// What to install when a runtime library is missing, in words.
std::string install_hint(const std::string& backend);

// The runtime layer's checks for one backend: runtime.<backend>.{load,driver_compat,devices,pci_agreement}.
std::vector<CheckDef> runtime_checks_for(const std::string& backend);

CheckDef make_runtime_load(const std::string& backend);
CheckDef make_runtime_driver_compat(const std::string& backend);
CheckDef make_runtime_devices(const std::string& backend);
CheckDef make_runtime_pci_agreement(const std::string& backend);

}  // namespace gpuconform
