#include "reports/tolerance.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/input_file.hpp"
#include "core/nearest_name.hpp"
#include "core/yaml_document.hpp"

namespace gpuconform {

const ToleranceRule* ToleranceTable::find(const std::string& check_id, const std::string& name) const {
    const std::string qualified = check_id + "/" + name;
    for (const ToleranceRule& rule : rules) {
        if (fnmatch(rule.match.c_str(), qualified.c_str(), 0) == 0 ||
            fnmatch(rule.match.c_str(), name.c_str(), 0) == 0) {
            return &rule;
        }
    }
    return nullptr;
}

namespace {

[[noreturn]] void fail_at(const std::string& file, const YAML::Node& n, const std::string& why) {
    throw std::runtime_error(file + ":" + std::to_string(n.Mark().line + 1) + ": " + why);
}

// The key as text; a key that is a list or a map is refused (yaml-cpp would throw without a line).
std::string key_of(const std::string& file, const YAML::Node& key) {
    if (!key.IsScalar()) {
        fail_at(file, key, "a key must be a plain word");
    }
    return key.Scalar();
}

// Refuses a key seen before in the same map (yaml-cpp keeps both and the later would win).
void once(const std::string& file, const YAML::Node& key, std::vector<std::string>& seen) {
    if (std::find(seen.begin(), seen.end(), key.Scalar()) != seen.end()) {
        fail_at(file, key, "'" + key.Scalar() + "' given twice");
    }
    seen.push_back(key.Scalar());
}

[[noreturn]] void unknown_key(const std::string& file, const YAML::Node& key, const std::vector<std::string>& known) {
    std::string list;
    for (const auto& k : known) {
        list += (list.empty() ? "" : ", ") + k;
    }
    fail_at(file, key,
            "unknown key '" + key.Scalar() + "'" + did_you_mean(key.Scalar(), known) + " (known: " + list + ")");
}

// A floor is relative: a plain number is a fraction (0.15), `15%` a percent. A floor of 1 (100 %)
// or more puts a higher-is-better figure's band at zero, hiding every drop, and a plain 15 is
// nearly always 15 % meant: both are refused, the plain one with what was probably meant.
double read_floor(const std::string& file, const YAML::Node& n, const char* key) {
    const std::string text = n.IsScalar() ? n.Scalar() : "?";
    const bool percent = text.size() > 1 && text.back() == '%';
    double v = 0;
    try {
        v = percent ? YAML::Node(text.substr(0, text.size() - 1)).as<double>() : n.as<double>();
    } catch (const YAML::Exception&) {
        fail_at(file, n, std::string(key) + " must be a number (0.15) or a percent (15%), not '" + text + "'");
    }
    if (!std::isfinite(v) || v < 0) {
        fail_at(file, n,
                std::string(key) + " must be a finite number from 0 to below 1 (0.15) or a percent (15%), not '" +
                    text + "'");
    }
    if (percent) {
        if (v >= 100) {
            fail_at(file, n,
                    std::string(key) + " must be below 100%, not '" + text +
                        "': a floor of 100% puts a higher-is-better figure's band at zero and hides every drop");
        }
        return v / 100;
    }
    if (v >= 1) {
        fail_at(file, n,
                fmt::format("{} {:g} means {:g} %; write {:g} or {:g}% (a floor of 1 or more hides every drop)", key, v,
                            v * 100, v / 100, v));
    }
    return v;
}

std::string scalar_of(const std::string& file, const YAML::Node& n, const char* key) {
    if (!n.IsScalar()) {
        fail_at(file, n, std::string(key) + " must be a single word");
    }
    return n.as<std::string>();
}

ToleranceRule read_rule(const std::string& file, const YAML::Node& n) {
    if (!n.IsMap()) {
        fail_at(file, n, "each measurements entry is a map {match, tolerance, better, role}");
    }
    ToleranceRule rule;
    rule.line = n.Mark().line + 1;
    std::vector<std::string> seen;
    for (const auto& kv : n) {
        const std::string key = key_of(file, kv.first);
        once(file, kv.first, seen);
        if (key == "match") {
            rule.match = scalar_of(file, kv.second, "match");
        } else if (key == "tolerance") {
            rule.floor = read_floor(file, kv.second, "tolerance");
        } else if (key == "better") {
            const std::string b = scalar_of(file, kv.second, "better");
            rule.direction = b == "either" ? std::optional(Direction::None) : direction_from_string(b);
            if (!rule.direction) {
                fail_at(file, kv.second, "better must be higher, lower or none, not '" + b + "'");
            }
        } else if (key == "role") {
            const std::string r = scalar_of(file, kv.second, "role");
            rule.role = role_from_string(r);
            if (!rule.role) {
                fail_at(file, kv.second, "role must be key or diagnostic, not '" + r + "'");
            }
        } else {
            unknown_key(file, kv.first, {"match", "tolerance", "better", "role"});
        }
    }
    if (rule.match.empty()) {
        fail_at(file, n, "a measurements entry needs match");
    }
    return rule;
}

}  // namespace

ToleranceTable parse_tolerances(const std::string& text, const std::string& file) {
    ToleranceTable table;
    const YAML::Node root = load_one_yaml_document(text, file);
    if (root.IsNull()) {
        return table;
    }
    if (!root.IsMap()) {
        fail_at(file, root, "a tolerance file is a map with default and measurements");
    }
    std::vector<std::string> seen;
    for (const auto& kv : root) {
        const std::string key = key_of(file, kv.first);
        once(file, kv.first, seen);
        if (key == "default") {
            table.default_floor = read_floor(file, kv.second, "default");
        } else if (key == "measurements") {
            if (!kv.second.IsSequence()) {
                fail_at(file, kv.second, "measurements must be a list");
            }
            for (const YAML::Node& n : kv.second) {
                table.rules.push_back(read_rule(file, n));
            }
        } else {
            unknown_key(file, kv.first, {"default", "measurements"});
        }
    }
    return table;
}

ToleranceTable load_tolerances(const std::string& path) {
    std::string error;
    const std::optional<std::string> text = read_input_file(path, k_max_config_bytes, error);
    if (!text) {
        throw std::runtime_error(path + ": cannot read: " + error);
    }
    return parse_tolerances(*text, path);
}

}  // namespace gpuconform
