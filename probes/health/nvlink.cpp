// health.nvlink: every NVLink's state and error counters where the GPU has NVLink
// (docs/gpu-health.md, "Links").
#include "health/health_check_common.hpp"

namespace gpuconform {

CheckDef make_health_nvlink() {
    CheckDef d = health_check("health.nvlink", "NVLink state of every link and its error counters (where present)");
    d.measurements = {
        measure::diagnostic("*", Direction::None, 0.00),
    };
    d.run = [](CheckContext& ctx, CheckResult& r) {
        const GpuHealth& g = gpu_of(ctx);
        add_identity(r, g);
        if (g.nvlinks.ok()) {
            nlohmann::json links = nlohmann::json::array();
            for (const auto& l : *g.nvlinks.value) {
                nlohmann::json j = {{"link", l.link}, {"active", l.active}};
                for (const auto& [name, read] :
                     {std::pair{"replay", &l.replay}, std::pair{"recovery", &l.recovery},
                      std::pair{"crc_flit", &l.crc_flit}, std::pair{"crc_data", &l.crc_data}}) {
                    j[name] = read->ok() ? nlohmann::json(*read->value) : nlohmann::json(nullptr);
                }
                links.push_back(std::move(j));
            }
            r.facts["links"] = std::move(links);
            r.measurements.push_back(measured("links", static_cast<double>(g.nvlinks.value->size()), "links"));
        }
        apply(r, judge_nvlink(g));
    };
    return d;
}

}  // namespace gpuconform
