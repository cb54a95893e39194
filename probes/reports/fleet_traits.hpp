// What the nodes of one root cause have in common, and whether that sets them apart from the nodes
// without it: the line under each cause on the fleet page and in the acceptance record, e.g.
// "every AMD Instinct MI250X node (197 of 197); on all 5 distros; no other GPU model has it".
// Pure: it counts fingerprints, so 100,000 nodes cost what their few distinct fingerprints cost.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "reports/report_scan.hpp"

namespace gpuconform {

// The fingerprint fields a cause is described by, in the order they are named.
inline constexpr std::array<GroupKey, 5> k_trait_keys{GroupKey::Gpu, GroupKey::Distro, GroupKey::Driver,
                                                      GroupKey::Kernel, GroupKey::Torch};
using Fingerprint = std::array<std::string, k_trait_keys.size()>;  // indexed like k_trait_keys; "" = not known

// Nodes counted by fingerprint: `fleet` nodes have `values`, `cause` of them have the cause.
struct FingerprintCount {
    Fingerprint values;
    std::size_t fleet = 0;
    std::size_t cause = 0;
};

struct Trait {
    std::size_t field = 0;  // into k_trait_keys
    std::string value;
};

struct FieldSpread {
    std::size_t field = 0;
    std::size_t values = 0;        // distinct values among the cause's nodes (more than one)
    std::size_t fleet_values = 0;  // among all nodes
};

// A trait sets a cause apart when at least this share of the nodes that have it have the cause:
// the nodes without the cause then (almost) all lack it.
inline constexpr double k_apart_share = 0.9;

struct CauseTraits {
    std::size_t nodes = 0;            // with the cause
    std::vector<Trait> shared;        // every node of the cause has it; traits every node of the fleet has are left out
    std::vector<Trait> apart;         // the fewest shared traits that set the cause apart; empty when none do
    std::size_t with_traits = 0;      // nodes with all of `apart` (all of `shared` when `apart` is empty)
    std::vector<FieldSpread> varied;  // fields whose value differs among the cause's nodes
};

CauseTraits cause_traits(const std::vector<FingerprintCount>& counts);

// One line for a person: "every AMD Instinct MI250X node (197 of 197), all with driver 6.2.4; on all
// 5 distros and all 5 kernels; no other GPU model has it". "" for a cause without nodes.
std::string traits_line(const CauseTraits& t);

}  // namespace gpuconform
