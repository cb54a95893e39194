// ECC, row remapping and page retirement, judged by NVIDIA's GPU memory error management guide
// (https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/) and the NVML reference
// (https://docs.nvidia.com/deploy/nvml-api/): docs/gpu-health.md, "Memory".
#include <fmt/format.h>

#include "health/judges.hpp"

namespace gpuconform {

std::string gpu_label(const GpuHealth& g) { return fmt::format("{}:{}", g.backend, g.index); }

namespace {

std::string count_text(const Read<std::uint64_t>& r) { return r.ok() ? std::to_string(*r.value) : "unread"; }

}  // namespace

HealthVerdict judge_ecc(const GpuHealth& g, std::uint64_t max_uncorrected) {
    const std::string who = gpu_label(g);
    if (!g.ecc_mode.ok()) {
        if (g.ecc_mode.not_supported) {
            return {Status::Skip, "ECC is not supported on this GPU: no error counts to judge", "", ""};
        }
        return {Status::Error, "ECC mode could not be read: " + g.ecc_mode.error, "", ""};
    }
    const EccMode mode = *g.ecc_mode.value;
    if (!mode.current) {
        const std::string pending = mode.pending ? " (enabling is pending: it takes effect at the next GPU reset)" : "";
        return {Status::Warn, "ECC is disabled on a GPU that supports it" + pending,
                "enable ECC (nvidia-smi -e 1, then reset the GPU or reboot): without it memory errors go undetected",
                "ECC disabled"};
    }
    if (!g.ecc.volatile_uncorrected.ok()) {
        return {Status::Error,
                "ECC is enabled but its error counts could not be read: " + g.ecc.volatile_uncorrected.why(), "", ""};
    }
    const std::uint64_t uncorrected = *g.ecc.volatile_uncorrected.value;
    const std::string counts =
        fmt::format("{} uncorrectable and {} correctable since the driver loaded; {} and {} over the GPU's life",
                    uncorrected, count_text(g.ecc.volatile_corrected), count_text(g.ecc.aggregate_uncorrected),
                    count_text(g.ecc.aggregate_corrected));
    if (uncorrected > max_uncorrected) {
        return {Status::Fail,
                fmt::format("{} uncorrectable ECC error(s) since the driver loaded, more than the {} allowed ({})",
                            uncorrected, max_uncorrected, counts),
                "drain the GPU; where it remaps rows, a reset applies the remap (see health.memory_remap); "
                "recurring uncorrectable errors are grounds for RMA (NVIDIA's memory error management guide)",
                fmt::format("{} uncorrectable ECC error(s)", uncorrected)};
    }
    if (!mode.pending) {
        return {Status::Warn, "ECC is enabled now but disabling it is pending (at the next GPU reset); " + counts,
                "keep ECC enabled (nvidia-smi -e 1) before the GPU is next reset", "ECC disable pending"};
    }
    return {Status::Pass, "ECC enabled; " + counts, "", ""};
}

namespace {

HealthVerdict judge_retired_pages(const GpuHealth& g, unsigned int max_retired_pages) {
    if (!g.retired_pages.ok()) {
        if (g.retired_pages.not_supported) {
            return {Status::Skip,
                    "this GPU neither remaps rows nor retires pages (NVML: not supported): nothing to judge", "", ""};
        }
        return {Status::Error, "retired pages could not be read: " + g.retired_pages.error, "", ""};
    }
    const RetiredPages p = *g.retired_pages.value;
    const unsigned int total = p.single_bit + p.double_bit;
    const std::string counts = fmt::format(
        "{} page(s) retired ({} for a double-bit error, {} for repeated single-bit "
        "errors)",
        total, p.double_bit, p.single_bit);
    if (total >= max_retired_pages) {
        return {Status::Fail, fmt::format("{}: at or past the limit of {}", counts, max_retired_pages),
                "replace the GPU (RMA): it is out of pages to retire (NVIDIA's dynamic page retirement guide)",
                fmt::format("{} retired pages — the GPU needs replacing", total)};
    }
    if (p.pending) {
        return {Status::Warn, counts + "; a retirement is pending until the GPU is reset or the driver reloaded",
                "reset the GPU (nvidia-smi -r with nothing on it) or reboot to retire the pending page(s)",
                "page retirement pending — reset the GPU"};
    }
    return {Status::Pass, counts + "; none pending", "", ""};
}

}  // namespace

HealthVerdict judge_memory_remap(const GpuHealth& g, unsigned int max_retired_pages) {
    if (!g.remapped_rows.ok()) {
        if (g.remapped_rows.not_supported) {
            return judge_retired_pages(g, max_retired_pages);
        }
        return {Status::Error, "remapped rows could not be read: " + g.remapped_rows.error, "", ""};
    }
    const RemappedRows rows = *g.remapped_rows.value;
    std::string counts = fmt::format("rows remapped: {} for correctable, {} for uncorrectable errors", rows.correctable,
                                     rows.uncorrectable);
    if (g.remap_histogram.ok()) {
        const BankHistogram h = *g.remap_histogram.value;
        counts += fmt::format("; banks by spare rows left: {} max, {} high, {} partial, {} low, {} none", h.max, h.high,
                              h.partial, h.low, h.none);
    }
    if (rows.failure) {
        return {Status::Fail, "a row remapping failed: " + counts,
                "replace the GPU (RMA): a remap failure is NVIDIA's replacement criterion (memory error management "
                "guide, RMA policy)",
                "row remap failure — the GPU needs replacing"};
    }
    if (rows.pending) {
        // NVIDIA: work runs on unaffected, but the remap takes effect only at the next reset.
        return {Status::Warn, "a row remapping is pending until the next GPU reset; " + counts,
                "reset the GPU (nvidia-smi -r with nothing on it) or reboot to apply the remap",
                "row remap pending — reset the GPU"};
    }
    if (g.remap_histogram.ok() && g.remap_histogram.value->none > 0) {
        return {
            Status::Warn,
            fmt::format("{} bank(s) have no spare rows left: the next uncorrectable error there cannot be remapped; "
                        "{}",
                        g.remap_histogram.value->none, counts),
            "plan to replace the GPU: a further error in such a bank is a remap failure",
            "memory banks out of spare rows"};
    }
    return {Status::Pass, counts + "; none pending, no failure", "", ""};
}

}  // namespace gpuconform
