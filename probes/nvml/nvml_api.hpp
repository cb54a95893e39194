// The part of NVML's C API that gpuconform calls, declared here with the layout of NVML's own
// nvml.h, so that a build without the CUDA toolkit (CI, packages) compiles and the library is
// found at run time (nvml_library.hpp). Names, values and structs as the NVML API reference gives
// them: https://docs.nvidia.com/deploy/nvml-api/ (Device Queries, Device Enums, Device Structs,
// NvLink Methods, NvmlClocksEventReasons). Only what a caller here uses is declared.
#pragma once

#include <cstdint>

namespace gpuconform::nvml {

using Return = int;  // nvmlReturn_t
constexpr Return k_success = 0;
constexpr Return k_error_invalid_argument = 2;
constexpr Return k_error_not_supported = 3;
constexpr Return k_error_no_permission = 4;
constexpr Return k_error_not_found = 6;
constexpr Return k_error_insufficient_size = 7;
constexpr Return k_error_gpu_is_lost = 15;

using Device = void*;  // nvmlDevice_t, an opaque handle

// nvmlEnableState_t
constexpr unsigned int k_disabled = 0;
constexpr unsigned int k_enabled = 1;

// nvmlMemoryErrorType_t and nvmlEccCounterType_t (nvmlDeviceGetTotalEccErrors)
constexpr int k_memory_error_corrected = 0;
constexpr int k_memory_error_uncorrected = 1;
constexpr int k_volatile_ecc = 0;
constexpr int k_aggregate_ecc = 1;

// nvmlPageRetirementCause_t
constexpr int k_retired_multiple_single_bit = 0;
constexpr int k_retired_double_bit = 1;

// nvmlTemperatureSensors_t and nvmlTemperatureThresholds_t
constexpr int k_temperature_gpu = 0;
constexpr int k_threshold_shutdown = 0;
constexpr int k_threshold_slowdown = 1;

// nvmlComputeMode_t
constexpr unsigned int k_compute_default = 0;
constexpr unsigned int k_compute_exclusive_thread = 1;
constexpr unsigned int k_compute_prohibited = 2;
constexpr unsigned int k_compute_exclusive_process = 3;

// nvmlNvLinkErrorCounter_t; NVML_NVLINK_MAX_LINKS
constexpr int k_nvlink_error_dl_replay = 0;
constexpr int k_nvlink_error_dl_recovery = 1;
constexpr int k_nvlink_error_dl_crc_flit = 2;
constexpr int k_nvlink_error_dl_crc_data = 3;
constexpr unsigned int k_nvlink_max_links = 18;

// Clock event reasons (nvmlClocksEventReason*, the former nvmlClocksThrottleReason* bits).
constexpr std::uint64_t k_reason_gpu_idle = 0x1;
constexpr std::uint64_t k_reason_applications_clocks = 0x2;
constexpr std::uint64_t k_reason_sw_power_cap = 0x4;
constexpr std::uint64_t k_reason_hw_slowdown = 0x8;
constexpr std::uint64_t k_reason_sync_boost = 0x10;
constexpr std::uint64_t k_reason_sw_thermal = 0x20;
constexpr std::uint64_t k_reason_hw_thermal = 0x40;
constexpr std::uint64_t k_reason_hw_power_brake = 0x80;
constexpr std::uint64_t k_reason_display_clocks = 0x100;

// Buffer sizes (NVML_DEVICE_*_BUFFER_SIZE, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE).
constexpr unsigned int k_name_buffer = 96;
constexpr unsigned int k_uuid_buffer = 80;
constexpr unsigned int k_vbios_buffer = 32;
constexpr unsigned int k_inforom_buffer = 16;
constexpr unsigned int k_driver_version_buffer = 80;

struct PciInfo {  // nvmlPciInfo_t, as nvmlDeviceGetPciInfo_v3 fills it
    char bus_id_legacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id;
    unsigned int pci_subsystem_id;
    char bus_id[32];
};

struct RowRemapperHistogram {  // nvmlRowRemapperHistogramValues_t: banks by spare rows left
    unsigned int max;
    unsigned int high;
    unsigned int partial;
    unsigned int low;
    unsigned int none;
};

struct ProcessInfo {  // nvmlProcessInfo_t as the _v3 process queries fill it
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
};

struct Utilization {  // nvmlUtilization_t
    unsigned int gpu;
    unsigned int memory;
};

struct Memory {  // nvmlMemory_t
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

// NVML reports "not available" memory as this value (NVML_VALUE_NOT_AVAILABLE).
constexpr unsigned long long k_value_not_available = ~0ull;

}  // namespace gpuconform::nvml
