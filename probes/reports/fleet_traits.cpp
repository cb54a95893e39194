#include "reports/fleet_traits.hpp"

#include <algorithm>
#include <bit>
#include <set>
#include <string_view>

#include <fmt/format.h>

namespace gpuconform {

namespace {

// How each field is named. A GPU model or distro names a node by itself ("AMD Instinct MI250X
// node"); a version needs its field ("node with driver 6.2.4").
struct FieldWords {
    const char* one;
    const char* many;
    const char* prefix;
    bool names_node;
};
constexpr std::array<FieldWords, k_trait_keys.size()> k_words{{
    {"GPU model", "GPU models", "", true},
    {"distro", "distros", "", true},
    {"driver", "drivers", "driver ", false},
    {"kernel", "kernels", "kernel ", false},
    {"torch build", "torch builds", "torch ", false},
}};

std::string trait_text(const Trait& t) { return k_words[t.field].prefix + t.value; }

// "a", "a and b", "a, b and c".
std::string join_and(const std::vector<std::string>& parts) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    }
    return out;
}

std::string nodes_phrase(const std::vector<Trait>& traits, bool plural) {
    const std::string node = plural ? "nodes" : "node";
    if (traits.size() == 1 && k_words[traits[0].field].names_node) {
        return traits[0].value + " " + node;
    }
    std::vector<std::string> texts;
    for (const Trait& t : traits) {
        texts.push_back(trait_text(t));
    }
    return node + " with " + join_and(texts);
}

std::string nodes_count(std::size_t n) { return fmt::format("{} node{}", n, n == 1 ? "" : "s"); }

}  // namespace

CauseTraits cause_traits(const std::vector<FingerprintCount>& counts) {
    CauseTraits t;
    std::size_t fleet = 0;
    for (const FingerprintCount& c : counts) {
        t.nodes += c.cause;
        fleet += c.fleet;
    }
    if (t.nodes == 0) {
        return t;
    }
    for (std::size_t f = 0; f < k_trait_keys.size(); ++f) {
        std::set<std::string_view> in_cause;
        std::set<std::string_view> in_fleet;
        bool cause_unknown = false;  // some node of the cause does not say
        for (const FingerprintCount& c : counts) {
            const std::string& v = c.values[f];
            cause_unknown = cause_unknown || (c.cause > 0 && v.empty());
            if (!v.empty()) {
                in_fleet.insert(v);
                if (c.cause > 0) {
                    in_cause.insert(v);
                }
            }
        }
        if (in_cause.size() > 1) {
            t.varied.push_back({f, in_cause.size(), in_fleet.size()});
        } else if (in_cause.size() == 1 && !cause_unknown) {
            std::size_t with = 0;
            for (const FingerprintCount& c : counts) {
                with += c.values[f] == *in_cause.begin() ? c.fleet : 0;
            }
            if (with < fleet) {  // what every node has tells nothing apart
                t.shared.push_back({f, std::string(*in_cause.begin())});
            }
        }
    }
    // Nodes by which of the shared traits they have (a bit each), then every combination's count.
    const unsigned all = (1u << t.shared.size()) - 1;
    std::vector<std::size_t> exactly(all + 1, 0);
    for (const FingerprintCount& c : counts) {
        unsigned mask = 0;
        for (std::size_t i = 0; i < t.shared.size(); ++i) {
            mask |= c.values[t.shared[i].field] == t.shared[i].value ? 1u << i : 0u;
        }
        exactly[mask] += c.fleet;
    }
    const auto nodes_with = [&](unsigned subset) {
        std::size_t n = 0;
        for (unsigned m = 0; m <= all; ++m) {
            n += (m & subset) == subset ? exactly[m] : 0;
        }
        return n;
    };
    // The fewest traits that set the cause apart; of as few, the one fewest other nodes share.
    unsigned best = 0;
    std::size_t best_with = 0;
    for (unsigned s = 1; s <= all; ++s) {
        const std::size_t with = nodes_with(s);
        if (static_cast<double>(t.nodes) < k_apart_share * static_cast<double>(with)) {
            continue;
        }
        const int size = std::popcount(s);
        const int best_size = std::popcount(best);
        if (best == 0 || size < best_size || (size == best_size && with < best_with)) {
            best = s;
            best_with = with;
        }
    }
    for (std::size_t i = 0; i < t.shared.size(); ++i) {
        if (best & (1u << i)) {
            t.apart.push_back(t.shared[i]);
        }
    }
    t.with_traits = best ? best_with : nodes_with(all);
    return t;
}

std::string traits_line(const CauseTraits& t) {
    if (t.nodes == 0) {
        return "";
    }
    std::vector<std::string> parts;
    const std::size_t others = t.with_traits - t.nodes;  // nodes with the traits named, without the cause
    if (!t.apart.empty()) {
        std::string head =
            others == 0 ? fmt::format("every {} ({} of {})", nodes_phrase(t.apart, false), t.nodes, t.with_traits)
                        : fmt::format("{} of {} {}", t.nodes, t.with_traits, nodes_phrase(t.apart, true));
        std::vector<std::string> rest;
        for (const Trait& s : t.shared) {
            const bool named =
                std::any_of(t.apart.begin(), t.apart.end(), [&](const Trait& a) { return a.field == s.field; });
            if (!named) {
                rest.push_back(trait_text(s));
            }
        }
        parts.push_back(rest.empty() ? head : head + ", all with " + join_and(rest));
    } else if (t.nodes == 1) {
        std::vector<std::string> fields;
        for (const Trait& s : t.shared) {
            fields.emplace_back(k_words[s.field].one);
        }
        parts.push_back(others == 0 ? "the only node"
                                    : fmt::format("one node; {} with the same {} {} not have it", nodes_count(others),
                                                  fields.empty() ? "fingerprint" : join_and(fields),
                                                  others == 1 ? "does" : "do"));
    } else if (!t.shared.empty()) {
        parts.push_back(fmt::format("{} of {} {}", t.nodes, t.with_traits, nodes_phrase(t.shared, true)));
    }
    if (!t.varied.empty()) {
        std::vector<std::string> spread;
        for (const FieldSpread& v : t.varied) {
            spread.push_back(v.values == v.fleet_values
                                 ? fmt::format("all {} {}", v.values, k_words[v.field].many)
                                 : fmt::format("{} of {} {}", v.values, v.fleet_values, k_words[v.field].many));
        }
        parts.push_back("on " + join_and(spread));
    }
    if (!t.apart.empty()) {
        if (t.apart.size() == 1) {
            parts.push_back(fmt::format("no other {} has it", k_words[t.apart[0].field].one));
        } else if (others == 0) {
            parts.emplace_back("no other node has it");
        } else {
            parts.push_back(fmt::format("no node without {} has it", t.apart.size() == 2 ? "both" : "all of them"));
        }
    } else if (t.nodes > 1) {
        parts.push_back(t.shared.empty() ? "nothing in the fingerprint sets them apart"
                                         : fmt::format("nothing in the fingerprint sets them apart: {} with the same "
                                                       "{} not have it",
                                                       nodes_count(others), others == 1 ? "does" : "do"));
    }
    std::string out;
    for (const std::string& p : parts) {
        out += (out.empty() ? "" : "; ") + p;
    }
    return out;
}

}  // namespace gpuconform
