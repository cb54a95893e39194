// The health table: stable ids, one layer, run in the parent (no worker, no GPU runtime), and
// every per-GPU check judged from a reading.
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "checks/declarations.hpp"
#include "checks/layer_tables.hpp"
#include "health/health_checks.hpp"
#include "health/health_reading.hpp"

namespace gpuconform {
namespace {

TEST(HealthTable, HasEveryCheckOnceInTheParent) {
    const std::set<std::string> want{"health.inventory", "health.ecc",         "health.memory_remap",
                                     "health.clocks",    "health.pcie_errors", "health.nvlink",
                                     "health.xid",       "health.error_growth"};
    std::set<std::string> ids;
    const std::regex id_pattern("^[a-z]+(\\.[a-z0-9_]+)+$");
    for (const auto& c : health_checks()) {
        ids.insert(c.id);
        EXPECT_TRUE(std::regex_match(c.id, id_pattern)) << c.id;
        EXPECT_EQ(c.layer, "health") << c.id;
        EXPECT_TRUE(c.scope == Scope::Gpu || c.scope == Scope::GpuNode) << c.id;
        EXPECT_FALSE(c.description.empty()) << c.id;
        EXPECT_TRUE(static_cast<bool>(c.run)) << c.id;
    }
    EXPECT_EQ(ids, want);
}

TEST(HealthTable, EveryCheckGivesAStatusOnAHealthySimulatedGpu) {
    const Environment env;
    const Profile profile = Profile::builtin(profile_catalogue());
    const RunOptions options;
    const auto reader = make_sim_health_reader("devices=1");
    const auto node = reader->read();
    auto again = reader->read();  // the reading after the device layer, for the checks judged then
    again.before = &node;
    for (const auto& def : health_checks()) {
        CheckContext ctx{env, profile, options, nullptr, nullptr, 0, {}};
        ctx.health = after_device_layer(def) ? &again : &node;
        ctx.device = 0;
        CheckResult r;
        r.id = def.id;
        r.layer = def.layer;
        def.run(ctx, r);
        EXPECT_TRUE(r.status == Status::Pass || r.status == Status::Info || r.status == Status::Skip)
            << def.id << ": " << r.summary;
        EXPECT_FALSE(r.summary.empty()) << def.id;
    }
}

}  // namespace
}  // namespace gpuconform
