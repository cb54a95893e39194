// What a root cause's nodes share and whether it sets them apart (fleet_traits.hpp), on fleets
// counted by fingerprint the way build_fleet counts them.
#include <gtest/gtest.h>

#include "reports/fleet_traits.hpp"

namespace gpuconform {
namespace {

struct Gpu {
    const char* name;
    const char* driver;
    const char* torch;
};
const Gpu k_gpus[] = {{"NVIDIA H200", "13.0", "2.11.0+cu130"},
                      {"NVIDIA H100 80GB HBM3", "12.8", "2.7.1+cu126"},
                      {"NVIDIA A100-SXM4-80GB", "12.4", "2.4.1+cu124"},
                      {"AMD Instinct MI300X", "6.4.1", "2.7.1+rocm6.4"},
                      {"AMD Instinct MI250X", "6.2.4", "2.5.1+rocm6.2"}};
const char* const k_distros[][2] = {{"Debian GNU/Linux 12 (bookworm)", "6.1.0-27-amd64"},
                                    {"Debian GNU/Linux 13 (trixie)", "6.12.38+deb13-amd64"},
                                    {"Ubuntu 22.04.5 LTS", "5.15.0-126-generic"},
                                    {"Ubuntu 24.04.3 LTS", "6.8.0-87-generic"},
                                    {"Red Hat Enterprise Linux 9.4 (Plow)", "5.14.0-427.13.1.el9_4.x86_64"}};

// 5 GPU models × 5 distros, `per` nodes each; `cause(gpu, distro)` says how many have the cause.
template <typename F>
std::vector<FingerprintCount> fleet(std::size_t per, F cause) {
    std::vector<FingerprintCount> out;
    for (std::size_t g = 0; g < 5; ++g) {
        for (std::size_t d = 0; d < 5; ++d) {
            out.push_back({{k_gpus[g].name, k_distros[d][0], k_gpus[g].driver, k_distros[d][1], k_gpus[g].torch},
                           per,
                           cause(g, d)});
        }
    }
    return out;
}

TEST(FleetTraits, EveryNodeOfOneGpuModelOnEveryDistro) {
    const CauseTraits t = cause_traits(fleet(8, [](std::size_t g, std::size_t) { return g == 4 ? 8u : 0u; }));
    EXPECT_EQ(t.nodes, 40u);
    ASSERT_EQ(t.apart.size(), 1u);
    EXPECT_EQ(t.apart[0].value, "AMD Instinct MI250X");
    EXPECT_EQ(t.with_traits, 40u);
    EXPECT_EQ(t.shared.size(), 3u);  // GPU model, driver and torch: each names the same 40 nodes
    EXPECT_EQ(traits_line(t),
              "every AMD Instinct MI250X node (40 of 40), all with driver 6.2.4 and torch 2.5.1+rocm6.2; on all 5 "
              "distros and all 5 kernels; no other GPU model has it");
}

TEST(FleetTraits, ACombinationSetsApartWhatNoSingleTraitDoes) {
    const CauseTraits t =
        cause_traits(fleet(8, [](std::size_t g, std::size_t d) { return g == 4 && d == 4 ? 8u : 0u; }));
    ASSERT_EQ(t.apart.size(), 2u);  // the GPU model and the distro, the first two fields that do it
    EXPECT_EQ(t.apart[0].value, "AMD Instinct MI250X");
    EXPECT_EQ(t.apart[1].value, "Red Hat Enterprise Linux 9.4 (Plow)");
    EXPECT_EQ(traits_line(t),
              "every node with AMD Instinct MI250X and Red Hat Enterprise Linux 9.4 (Plow) (8 of 8), all with driver "
              "6.2.4, kernel 5.14.0-427.13.1.el9_4.x86_64 and torch 2.5.1+rocm6.2; no other node has it");
}

TEST(FleetTraits, SharedButNotApartSaysSoWithTheNodesThatLackIt) {
    // 3 of 8 nodes of the NVIDIA models on Debian 13: the distro is shared, but most of its nodes pass.
    const CauseTraits t =
        cause_traits(fleet(8, [](std::size_t g, std::size_t d) { return d == 1 && g < 3 ? 3u : 0u; }));
    EXPECT_TRUE(t.apart.empty());
    EXPECT_EQ(t.with_traits, 40u);
    EXPECT_EQ(traits_line(t),
              "9 of 40 nodes with Debian GNU/Linux 13 (trixie) and kernel 6.12.38+deb13-amd64; on 3 of 5 GPU "
              "models, 3 of 5 drivers and 3 of 5 torch builds; nothing in the fingerprint sets them apart: 31 nodes "
              "with the same do not "
              "have it");
}

TEST(FleetTraits, NineInTenSetApartEightInTenDoNot) {
    const auto line = [](std::size_t n) {
        return traits_line(cause_traits(fleet(2, [n](std::size_t g, std::size_t d) {
            return g == 4 && d < n / 2 ? 2u : g == 4 && d == n / 2 && n % 2 ? 1u : 0u;
        })));
    };
    EXPECT_EQ(line(9),
              "9 of 10 AMD Instinct MI250X nodes, all with driver 6.2.4 and torch 2.5.1+rocm6.2; on all 5 "
              "distros and all 5 kernels; no other GPU model has it");
    EXPECT_EQ(line(8).rfind("8 of 10 nodes with AMD Instinct MI250X, driver 6.2.4 and torch 2.5.1+rocm6.2; on 4 of 5 "
                            "distros and 4 of 5 kernels; nothing in the fingerprint sets them apart",
                            0),
              0u)
        << line(8);
}

TEST(FleetTraits, OneNodeSaysWhoElseHasItsFingerprint) {
    const CauseTraits t =
        cause_traits(fleet(8, [](std::size_t g, std::size_t d) { return g == 0 && d == 0 ? 1u : 0u; }));
    EXPECT_EQ(traits_line(t),
              "one node; 7 nodes with the same GPU model, distro, driver, kernel and torch build do not have it");
}

TEST(FleetTraits, WhatEveryNodeHasIsNotNamed) {
    std::vector<FingerprintCount> counts = {{{"H200", "Debian 12", "13.0", "6.1.0", ""}, 10, 0},
                                            {{"H100", "Debian 12", "13.0", "6.1.0", ""}, 10, 10}};
    const CauseTraits t = cause_traits(counts);
    ASSERT_EQ(t.shared.size(), 1u);  // the GPU model; distro, driver and kernel are the whole fleet's
    EXPECT_EQ(traits_line(t), "every H100 node (10 of 10); no other GPU model has it");
}

TEST(FleetTraits, AnUnknownValueIsNeverShared) {
    std::vector<FingerprintCount> counts = {{{"H200", "Debian 12", "13.0", "6.1.0", "2.11"}, 5, 5},
                                            {{"H200", "Debian 12", "13.0", "6.1.0", ""}, 5, 5},
                                            {{"H100", "Debian 13", "12.8", "6.12", "2.11"}, 10, 0}};
    const CauseTraits t = cause_traits(counts);
    for (const Trait& s : t.shared) {
        EXPECT_NE(k_trait_keys[s.field], GroupKey::Torch);
    }
    EXPECT_EQ(t.apart.size(), 1u);
    EXPECT_EQ(traits_line(t),
              "every H200 node (10 of 10), all with Debian 12, driver 13.0 and kernel 6.1.0; no "
              "other GPU model has it");
}

TEST(FleetTraits, NothingInCommon) {
    const CauseTraits t = cause_traits(fleet(8, [](std::size_t g, std::size_t d) { return g == d ? 1u : 0u; }));
    EXPECT_TRUE(t.shared.empty());
    EXPECT_EQ(traits_line(t),
              "on all 5 GPU models, all 5 distros, all 5 drivers, all 5 kernels and all 5 torch builds; nothing in the "
              "fingerprint sets them apart");
}

TEST(FleetTraits, NoNodesNoLine) {
    EXPECT_EQ(traits_line(cause_traits(fleet(8, [](std::size_t, std::size_t) { return 0u; }))), "");
    EXPECT_EQ(traits_line(cause_traits({})), "");
}

}  // namespace
}  // namespace gpuconform
