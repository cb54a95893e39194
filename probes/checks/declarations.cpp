#include "checks/declarations.hpp"

#include <fnmatch.h>

#include "checks/layer_tables.hpp"
#include "framework/framework_checks.hpp"

namespace gpuconform {

const std::vector<CheckDef>& declared_checks() {
    static const std::vector<CheckDef> checks = [] {
        std::vector<CheckDef> all = all_checks();
        for (auto& row : framework_checks()) {
            all.push_back(std::move(row));
        }
        return all;
    }();
    return checks;
}

const ProfileCatalogue& profile_catalogue() {
    static const ProfileCatalogue catalogue = [] {
        ProfileCatalogue c;
        for (const CheckDef& check : declared_checks()) {
            c.check_ids.insert(check.id);
            for (const KeySpec& k : check.profile_keys) {
                c.keys.push_back({check.id, k.key, k.min, k.max, k.integer});
            }
        }
        return c;
    }();
    return catalogue;
}

const std::vector<ProfileKey>& declared_profile_keys() { return profile_catalogue().keys; }

const ProfileKey* find_profile_key(const std::string& check, const std::string& key) {
    return profile_catalogue().find(check, key);
}

std::vector<std::string> profile_keys_of(const std::string& check) { return profile_catalogue().keys_of(check); }

std::optional<MeasureMeaning> declared_meaning(std::string_view check_id, std::string_view name) {
    const std::string n(name);
    for (const CheckDef& check : declared_checks()) {
        if (check.id != check_id) {
            continue;
        }
        for (const MeasureSpec& m : check.measurements) {
            if (fnmatch(m.pattern.c_str(), n.c_str(), 0) == 0) {
                return m.meaning;
            }
        }
        return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace gpuconform
