#include "tolerance.hpp"

#include <fnmatch.h>

#include <array>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

namespace gpuconform {

Better better_from_unit(const std::string& unit) {
    constexpr std::array<const char*, 7> higher{"GB/s", "GiB/s", "MB/s", "MiB/s", "ops/s", "ratio", "x"};
    constexpr std::array<const char*, 4> lower{"ms", "s", "us", "ns"};
    for (const char* u : higher) {
        if (unit == u) {
            return Better::Higher;
        }
    }
    for (const char* u : lower) {
        if (unit == u) {
            return Better::Lower;
        }
    }
    return Better::Either;
}

std::pair<double, Better> ToleranceTable::resolve(const std::string& check_id, const std::string& name,
                                                  const std::string& unit) const {
    const std::string qualified = check_id + "/" + name;
    for (const ToleranceRule& rule : rules) {
        if (fnmatch(rule.match.c_str(), qualified.c_str(), 0) == 0 || fnmatch(rule.match.c_str(), name.c_str(), 0) == 0) {
            return {rule.relative, rule.better.value_or(better_from_unit(unit))};
        }
    }
    return {default_relative, better_from_unit(unit)};
}

ToleranceTable load_tolerances(const std::string& path) {
    ToleranceTable table;
    try {
        const YAML::Node root = YAML::LoadFile(path);
        if (root["default"]) {
            table.default_relative = root["default"].as<double>();
        }
        for (const YAML::Node& n : root["measurements"]) {
            ToleranceRule rule;
            rule.match = n["match"].as<std::string>();
            rule.relative = n["tolerance"].as<double>();
            if (n["better"]) {
                const std::string b = n["better"].as<std::string>();
                if (b != "higher" && b != "lower" && b != "either") {
                    throw std::runtime_error("better must be higher, lower or either, not '" + b + "'");
                }
                rule.better = b == "higher" ? Better::Higher : b == "lower" ? Better::Lower : Better::Either;
            }
            table.rules.push_back(rule);
        }
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    return table;
}

}  // namespace gpuconform
