// Expectations as data: a profile per vendor and GPU architecture, overridable by a file the
// user passes (--profile). Keys carry their unit in their name (`_ratio`, `_ms`, `_gbps`).
//
//   schema_version: 1
//   defaults:   { <check id>: { <key>: <number> } }
//   vendors:    { nvidia|amd|sim: { <check id>: { <key>: <number> } } }
//   archs:      { sm_90|gfx90a|...: { <check id>: { <key>: <number> } } }
//   quick:      { <check id>: { <key>: <number> } }   what `--quick` changes: fewer trials, less data
//   baselines:  { min_runs: N, figures: [...] }        a fleet's learned normal, frozen
//               (core/figure_baseline.hpp; `store baselines --export-profile` writes it,
//               `store outliers --profile` judges by it; a run validates it and reads no more)
//
// Resolution, later wins: defaults, vendor, arch, and with --quick the quick section; then the
// same from each user file.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/figure_baseline.hpp"
#include "core/profile_keys.hpp"

namespace gpuconform {

class ProfileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Profile {
public:
    // Parses YAML text; `source` names it in errors ("file:line: field: problem"). Every check id
    // must be in the catalogue's ids (when it has any), every key one it declares for that check,
    // within its range.
    static Profile parse(const std::string& text, const std::string& source, const ProfileCatalogue& catalogue);
    static Profile load_file(const std::string& path, const ProfileCatalogue& catalogue);
    // The built-in profile compiled into the executable (probes/profiles/default.yaml).
    static Profile builtin(const ProfileCatalogue& catalogue);

    // Whether the catalogue it was read against declares `key` for `check`.
    bool declares(const std::string& check, const std::string& key) const;

    // Layers `over` on top of this profile.
    void merge(const Profile& over);

    std::optional<double> lookup(const std::string& check, const std::string& key, const std::string& vendor,
                                 const std::string& arch, bool quick = false) const;

    const std::vector<std::string>& sources() const { return m_sources; }

    // Every file's `baselines` section, later files winning for the same figure and group.
    const FrozenBaselines& baselines() const { return m_baselines; }

    // Every layer as it was read, in order, keeping only checks whose id starts with `prefix`:
    // {"schema_version": 1, "layers": [{"source", "defaults", "vendors", "archs", "quick"}, ...]}.
    // A reader that resolves them in lookup()'s order gets lookup()'s values; the framework layer
    // (pytest) reads its values this way, so the profile is its only source (`gpuconform profile`).
    nlohmann::json layers_json(const std::string& prefix) const;

private:
    using Table = std::map<std::string, std::map<std::string, double>>;  // check -> key -> value
    struct Layer {
        std::string source;
        Table defaults;
        std::map<std::string, Table> vendors;
        std::map<std::string, Table> archs;
        Table quick;
    };
    std::vector<Layer> m_layers;  // later layers win
    std::vector<ProfileKey> m_declared;
    std::vector<std::string> m_sources;
    FrozenBaselines m_baselines;
};

}  // namespace gpuconform
