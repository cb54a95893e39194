// health.memory_remap: row remapping (Ampere and later) or page retirement (earlier GPUs)
// (docs/gpu-health.md, "Memory").
#include "health/health_check_common.hpp"

namespace gpuconform {

CheckDef make_health_memory_remap() {
    CheckDef d = health_check("health.memory_remap",
                              "row remapping (pending, failure, spare rows per bank) or retired pages (pending)");
    d.profile_keys = {
        keys::range("max_retired_pages", 1, 1024, true),
    };
    d.measurements = {
        measure::diagnostic("*", Direction::Lower, 0.00),
    };
    d.caught_by = {"row_remap_pending", "row_remap_failure"};
    d.run = [](CheckContext& ctx, CheckResult& r) {
        const GpuHealth& g = gpu_of(ctx);
        add_identity(r, g);
        const auto max_pages = static_cast<unsigned int>(ctx.expect(r, "max_retired_pages"));
        if (g.remapped_rows.ok()) {
            const RemappedRows rows = *g.remapped_rows.value;
            r.measurements.push_back(measured("remapped_rows_correctable", rows.correctable, "rows"));
            r.measurements.push_back(measured("remapped_rows_uncorrectable", rows.uncorrectable, "rows"));
            r.facts["remap_pending"] = rows.pending;
            r.facts["remap_failure"] = rows.failure;
        } else {
            r.facts["remapped_rows"] = g.remapped_rows.why();
        }
        if (g.remap_histogram.ok()) {
            const BankHistogram h = *g.remap_histogram.value;
            r.facts["banks_by_spare_rows"] = {
                {"max", h.max}, {"high", h.high}, {"partial", h.partial}, {"low", h.low}, {"none", h.none}};
            r.measurements.push_back(measured("banks_without_spare_rows", h.none, "banks"));
        }
        if (g.retired_pages.ok()) {
            const RetiredPages p = *g.retired_pages.value;
            r.measurements.push_back(measured("retired_pages_double_bit", p.double_bit, "pages"));
            r.measurements.push_back(measured("retired_pages_single_bit", p.single_bit, "pages"));
            r.facts["retirement_pending"] = p.pending;
        } else {
            r.facts["retired_pages"] = g.retired_pages.why();
        }
        apply(r, judge_memory_remap(g, max_pages));
    };
    return d;
}

}  // namespace gpuconform
