#include "core/profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/input_file.hpp"
#include "core/nearest_name.hpp"
#include "core/profile_keys.hpp"
#include "core/yaml_document.hpp"

namespace gpuconform {

extern const char* const k_builtin_profile_yaml;  // generated from probes/profiles/default.yaml

namespace {

constexpr double k_max_profile_value = 1e12;

// A vendor must be one we know; an arch must look like one (sm_90, gfx90a), so a typo is an
// error rather than a section that silently never applies.
std::string group_name_problem(const std::string& section, const std::string& name) {
    if (section == "vendors") {
        static const std::vector<std::string> k_vendors{"amd", "nvidia", "sim"};
        if (std::find(k_vendors.begin(), k_vendors.end(), name) != k_vendors.end()) {
            return "";
        }
        std::string nearest = k_vendors.front();
        for (const auto& v : k_vendors) {
            nearest = edit_distance(name, v) < edit_distance(name, nearest) ? v : nearest;
        }
        return fmt::format("unknown vendor (amd, nvidia, sim; did you mean '{}'?)", nearest);
    }
    const auto digits_after = [&](std::size_t from, const char* allowed) {
        return name.size() > from && name.find_first_not_of(allowed, from) == std::string::npos;
    };
    if ((name.rfind("sm_", 0) == 0 && digits_after(3, "0123456789af")) ||
        (name.rfind("gfx", 0) == 0 && digits_after(3, "0123456789abcdef")) || name == "sim") {
        return "";
    }
    return "unknown arch (an NVIDIA sm_NN, an AMD gfxNNN, or sim)";
}

// Why a key is refused: the nearest key this check reads, or the whole (short) list.
std::string unknown_key_problem(const ProfileCatalogue& catalogue, const std::string& check, const std::string& key) {
    const auto keys = catalogue.keys_of(check);
    if (keys.empty()) {
        return "unknown key: this check reads no profile keys";
    }
    if (const std::string hint = did_you_mean(key, keys); !hint.empty()) {
        return "unknown key" + hint;
    }
    std::string list;
    for (const auto& k : keys) {
        list += (list.empty() ? "" : ", ") + k;
    }
    return "unknown key (this check reads: " + list + ")";
}

void parse_table(const YAML::Node& node, const std::string& source, const std::string& path,
                 const ProfileCatalogue& catalogue, std::map<std::string, std::map<std::string, double>>& out) {
    if (node.IsNull()) {
        return;
    }
    if (!node.IsMap()) {
        throw ProfileError(fmt::format("{}: {}: expected a mapping of check ids", yaml_where(source, node), path));
    }
    std::set<std::string> seen;
    for (const auto& check : node) {
        const auto id = check.first.as<std::string>();
        if (path.compare(0, 6, "archs.") == 0 && id.compare(0, 10, "framework.") == 0) {
            throw ProfileError(
                fmt::format("{}: {}.{}: the framework checks take defaults, vendors and quick, not archs",
                            yaml_where(source, check.first), path, id));
        }
        if (!seen.insert(id).second) {
            throw ProfileError(fmt::format("{}: {}.{}: given twice", yaml_where(source, check.first), path, id));
        }
        const std::set<std::string>& known = catalogue.check_ids;
        if (!known.empty() && known.count(id) == 0) {
            throw ProfileError(fmt::format("{}: {}.{}: unknown check id{} (see `gpuconform list`)",
                                           yaml_where(source, check.first), path, id,
                                           did_you_mean(id, std::vector<std::string>(known.begin(), known.end()))));
        }
        if (!check.second.IsMap()) {
            throw ProfileError(fmt::format("{}: {}.{}: expected a mapping of expectation keys",
                                           yaml_where(source, check.second), path, id));
        }
        for (const auto& kv : check.second) {
            const auto key = kv.first.as<std::string>();
            const auto field = fmt::format("{}.{}.{}", path, id, key);
            const ProfileKey* declared = catalogue.find(id, key);
            if (declared == nullptr) {
                throw ProfileError(fmt::format("{}: {}: {}", yaml_where(source, kv.first), field,
                                               unknown_key_problem(catalogue, id, key)));
            }
            double value = 0;
            try {
                if (!kv.second.IsScalar()) {
                    throw YAML::BadConversion(kv.second.Mark());
                }
                value = kv.second.as<double>();
            } catch (const YAML::BadConversion&) {
                throw ProfileError(fmt::format("{}: {}: expected a plain number (the unit is in the key's name)",
                                               yaml_where(source, kv.second), field));
            }
            if (!std::isfinite(value) || value < 0 || value > k_max_profile_value) {
                throw ProfileError(fmt::format("{}: {}: {} is not a threshold (a finite number from 0 to {:g})",
                                               yaml_where(source, kv.second), field, kv.second.Scalar(),
                                               k_max_profile_value));
            }
            if (value < declared->min || value > declared->max) {
                throw ProfileError(fmt::format("{}: {}: {} is outside the sensible range {:g} to {:g}",
                                               yaml_where(source, kv.second), field, kv.second.Scalar(), declared->min,
                                               declared->max));
            }
            if (declared->integer && value != std::floor(value)) {
                throw ProfileError(fmt::format("{}: {}: {} must be a whole number", yaml_where(source, kv.second),
                                               field, kv.second.Scalar()));
            }
            if (out[id].count(key) != 0) {
                throw ProfileError(fmt::format("{}: {}: given twice", yaml_where(source, kv.first), field));
            }
            out[id][key] = value;
        }
    }
}

}  // namespace

Profile Profile::parse(const std::string& text, const std::string& source, const ProfileCatalogue& catalogue) {
    const auto read = [&]() -> Profile {
        YAML::Node root;
        try {
            root = load_one_yaml_document(text, source);
        } catch (const YamlDocumentError& e) {
            throw ProfileError(e.what());
        }
        Profile p;
        p.m_declared = catalogue.keys;
        p.m_sources.push_back(source);
        Layer& layer = p.m_layers.emplace_back();
        layer.source = source;
        if (root.IsNull()) {
            return p;
        }
        if (!root.IsMap()) {
            throw ProfileError(fmt::format("{}: expected a mapping at the top level", yaml_where(source, root)));
        }
        std::set<std::string> sections;
        for (const auto& section : root) {
            const auto name = section.first.as<std::string>();
            if (!sections.insert(name).second) {
                throw ProfileError(fmt::format("{}: {}: given twice", yaml_where(source, section.first), name));
            }
            if (name == "schema_version") {
                if (!section.second.IsScalar() || section.second.as<std::string>() != "1") {
                    throw ProfileError(
                        fmt::format("{}: schema_version: unsupported version '{}' (this build reads 1)",
                                    yaml_where(source, section.second),
                                    section.second.IsScalar() ? section.second.Scalar() : "not a number"));
                }
            } else if (name == "defaults" || name == "quick") {
                parse_table(section.second, source, name, catalogue, name == "quick" ? layer.quick : layer.defaults);
            } else if (name == "vendors" || name == "archs") {
                auto& target = name == "vendors" ? layer.vendors : layer.archs;
                if (!section.second.IsMap()) {
                    throw ProfileError(
                        fmt::format("{}: {}: expected a mapping", yaml_where(source, section.second), name));
                }
                for (const auto& group : section.second) {
                    const auto key = group.first.as<std::string>();
                    if (const std::string problem = group_name_problem(name, key); !problem.empty()) {
                        throw ProfileError(
                            fmt::format("{}: {}.{}: {}", yaml_where(source, group.first), name, key, problem));
                    }
                    if (target.count(key) != 0) {
                        throw ProfileError(
                            fmt::format("{}: {}.{}: given twice", yaml_where(source, group.first), name, key));
                    }
                    parse_table(group.second, source, name + "." + key, catalogue, target[key]);
                }
            } else if (name == "baselines") {
                p.m_baselines = parse_baselines_section(section.second, source);
            } else {
                throw ProfileError(fmt::format(
                    "{}: {}: unknown section (expected schema_version, defaults, vendors, archs, quick, baselines)",
                    yaml_where(source, section.first), name));
            }
        }
        return p;
    };
    try {
        return read();
    } catch (const YAML::Exception& e) {  // a key or value of a shape no branch above expected
        throw ProfileError(fmt::format("{}:{}: {}", source, e.mark.line + 1, e.msg));
    }
}

namespace {
// A whole number as one (4194304, not 4194304.0): readers that count trials get an integer.
nlohmann::json json_number(double value) {
    constexpr double k_exact_below = 9007199254740992.0;  // 2^53: every whole double below is exact
    if (value == std::floor(value) && std::fabs(value) < k_exact_below) {
        return static_cast<std::int64_t>(value);
    }
    return value;
}
}  // namespace

nlohmann::json Profile::layers_json(const std::string& prefix) const {
    const auto table_json = [&](const Table& table) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [check, keys] : table) {
            if (check.compare(0, prefix.size(), prefix) == 0) {
                for (const auto& [key, value] : keys) {
                    out[check][key] = json_number(value);
                }
            }
        }
        return out;
    };
    const auto groups_json = [&](const std::map<std::string, Table>& groups) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [name, table] : groups) {
            if (auto t = table_json(table); !t.empty()) {
                out[name] = std::move(t);
            }
        }
        return out;
    };
    nlohmann::json layers = nlohmann::json::array();
    for (const auto& layer : m_layers) {
        layers.push_back({{"source", layer.source},
                          {"defaults", table_json(layer.defaults)},
                          {"vendors", groups_json(layer.vendors)},
                          {"archs", groups_json(layer.archs)},
                          {"quick", table_json(layer.quick)}});
    }
    return {{"schema_version", 1}, {"layers", layers}};
}

Profile Profile::load_file(const std::string& path, const ProfileCatalogue& catalogue) {
    std::string error;
    const std::optional<std::string> text = read_input_file(path, k_max_config_bytes, error);
    if (!text) {
        throw ProfileError(fmt::format("{}: cannot read profile: {}", path, error));
    }
    return parse(*text, path, catalogue);
}

Profile Profile::builtin(const ProfileCatalogue& catalogue) {
    return parse(k_builtin_profile_yaml, "built-in profile", catalogue);
}

bool Profile::declares(const std::string& check, const std::string& key) const {
    return std::any_of(m_declared.begin(), m_declared.end(),
                       [&](const ProfileKey& k) { return k.check == check && k.key == key; });
}

void Profile::merge(const Profile& over) {
    m_layers.insert(m_layers.end(), over.m_layers.begin(), over.m_layers.end());
    m_sources.insert(m_sources.end(), over.m_sources.begin(), over.m_sources.end());
    merge_baselines(m_baselines, over.m_baselines);
}

std::optional<double> Profile::lookup(const std::string& check, const std::string& key, const std::string& vendor,
                                      const std::string& arch, bool quick) const {
    std::optional<double> found;
    auto look = [&](const Table& t) {
        const auto c = t.find(check);
        if (c != t.end()) {
            const auto k = c->second.find(key);
            if (k != c->second.end()) {
                found = k->second;
            }
        }
    };
    for (const auto& layer : m_layers) {
        look(layer.defaults);
        if (const auto v = layer.vendors.find(vendor); v != layer.vendors.end()) {
            look(v->second);
        }
        if (const auto a = layer.archs.find(arch); a != layer.archs.end()) {
            look(a->second);
        }
        if (quick) {
            look(layer.quick);
        }
    }
    return found;
}

}  // namespace gpuconform
