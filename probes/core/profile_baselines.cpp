#include <cmath>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/figure_baseline.hpp"
#include "core/profile.hpp"
#include "core/yaml_document.hpp"

namespace gpuconform {

namespace {

const std::set<std::string> k_text_fields{"check",         "name", "unit",    "direction",     "gpu",
                                          "driver_branch", "link", "profile", "first_started", "last_started"};
const std::set<std::string> k_number_fields{"runs", "values", "median", "spread", "p05", "p25", "p75", "p95"};

double number_at(const YAML::Node& value, const std::string& source, const std::string& field, bool whole) {
    double v = 0;
    try {
        if (!value.IsScalar()) {
            throw YAML::BadConversion(value.Mark());
        }
        v = value.as<double>();
    } catch (const YAML::BadConversion&) {
        throw ProfileError(fmt::format("{}: {}: expected a plain number", yaml_where(source, value), field));
    }
    if (!std::isfinite(v) || std::fabs(v) > 1e15) {
        throw ProfileError(
            fmt::format("{}: {}: {} is not a finite number", yaml_where(source, value), field, value.Scalar()));
    }
    if (whole && (v != std::floor(v) || v < 0)) {
        throw ProfileError(fmt::format("{}: {}: {} must be a whole number, 0 or more", yaml_where(source, value), field,
                                       value.Scalar()));
    }
    return v;
}

FigureBaseline parse_figure(const YAML::Node& node, const std::string& source, const std::string& path) {
    if (!node.IsMap()) {
        throw ProfileError(
            fmt::format("{}: {}: expected a mapping of the figure's fields", yaml_where(source, node), path));
    }
    FigureBaseline b;
    std::set<std::string> seen;
    for (const auto& kv : node) {
        const auto key = kv.first.as<std::string>();
        const auto field = path + "." + key;
        if (!seen.insert(key).second) {
            throw ProfileError(fmt::format("{}: {}: given twice", yaml_where(source, kv.first), field));
        }
        if (k_text_fields.count(key) != 0) {
            if (!kv.second.IsScalar()) {
                throw ProfileError(fmt::format("{}: {}: expected text", yaml_where(source, kv.second), field));
            }
            const std::string text = kv.second.Scalar();
            std::string* target = key == "check"           ? &b.check
                                  : key == "name"          ? &b.name
                                  : key == "unit"          ? &b.unit
                                  : key == "direction"     ? &b.direction
                                  : key == "gpu"           ? &b.gpu
                                  : key == "driver_branch" ? &b.driver_branch
                                  : key == "link"          ? &b.link
                                  : key == "profile"       ? &b.profile
                                  : key == "first_started" ? &b.first_started
                                                           : &b.last_started;
            *target = text;
        } else if (k_number_fields.count(key) != 0) {
            const double v = number_at(kv.second, source, field, key == "runs" || key == "values");
            if (key == "spread" && v < 0) {
                throw ProfileError(
                    fmt::format("{}: {}: a spread is never negative", yaml_where(source, kv.second), field));
            }
            if (key == "runs") {
                b.runs = static_cast<long long>(v);
            } else if (key == "values") {
                b.values = static_cast<long long>(v);
            } else {
                double* target = key == "median"   ? &b.median
                                 : key == "spread" ? &b.spread
                                 : key == "p05"    ? &b.p05
                                 : key == "p25"    ? &b.p25
                                 : key == "p75"    ? &b.p75
                                                   : &b.p95;
                *target = v;
            }
        } else {
            throw ProfileError(
                fmt::format("{}: {}: unknown field (a figure has check, name, unit, direction, gpu, "
                            "driver_branch, link, profile, runs, values, median, spread, p05, p25, "
                            "p75, p95, first_started, last_started)",
                            yaml_where(source, kv.first), field));
        }
    }
    for (const char* required : {"check", "name", "direction", "runs", "median", "spread"}) {
        if (seen.count(required) == 0) {
            throw ProfileError(fmt::format("{}: {}: {} is missing", yaml_where(source, node), path, required));
        }
    }
    if (b.direction != "higher" && b.direction != "lower") {
        throw ProfileError(fmt::format("{}: {}.direction: '{}' is neither higher nor lower", yaml_where(source, node),
                                       path, b.direction));
    }
    if (b.runs < 1) {
        throw ProfileError(
            fmt::format("{}: {}.runs: a baseline comes from one run or more", yaml_where(source, node), path));
    }
    return b;
}

std::string group_key(const FigureBaseline& b) {
    return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", b.check, b.name, b.unit, b.gpu, b.driver_branch,
                       b.link, b.profile);
}

}  // namespace

FrozenBaselines parse_baselines_section(const YAML::Node& node, const std::string& source) {
    if (!node.IsMap()) {
        throw ProfileError(
            fmt::format("{}: baselines: expected a mapping (min_runs, figures)", yaml_where(source, node)));
    }
    FrozenBaselines out;
    std::set<std::string> seen;
    std::set<std::string> groups;
    for (const auto& kv : node) {
        const auto key = kv.first.as<std::string>();
        if (!seen.insert(key).second) {
            throw ProfileError(fmt::format("{}: baselines.{}: given twice", yaml_where(source, kv.first), key));
        }
        if (key == "min_runs") {
            const double v = number_at(kv.second, source, "baselines.min_runs", true);
            if (v < 1) {
                throw ProfileError(
                    fmt::format("{}: baselines.min_runs: must be 1 or more", yaml_where(source, kv.second)));
            }
            out.min_runs = static_cast<long long>(v);
        } else if (key == "figures") {
            if (!kv.second.IsSequence() && !kv.second.IsNull()) {
                throw ProfileError(
                    fmt::format("{}: baselines.figures: expected a list", yaml_where(source, kv.second)));
            }
            for (std::size_t i = 0; i < kv.second.size(); ++i) {
                FigureBaseline b = parse_figure(kv.second[i], source, fmt::format("baselines.figures[{}]", i));
                if (!groups.insert(group_key(b)).second) {
                    throw ProfileError(fmt::format("{}: baselines.figures[{}]: {} {} given twice for one group",
                                                   yaml_where(source, kv.second[i]), i, b.check, b.name));
                }
                out.figures.push_back(std::move(b));
            }
        } else {
            throw ProfileError(fmt::format("{}: baselines.{}: unknown key (expected min_runs, figures)",
                                           yaml_where(source, kv.first), key));
        }
    }
    return out;
}

std::string baselines_profile_yaml(const FrozenBaselines& frozen, const std::string& comment) {
    YAML::Emitter y;
    y.SetDoublePrecision(17);
    y << YAML::Comment(comment) << YAML::BeginMap << YAML::Key << "schema_version" << YAML::Value << 1;
    y << YAML::Key << "baselines" << YAML::Value << YAML::BeginMap;
    if (frozen.min_runs) {
        y << YAML::Key << "min_runs" << YAML::Value << *frozen.min_runs;
    }
    y << YAML::Key << "figures" << YAML::Value << YAML::BeginSeq;
    for (const FigureBaseline& b : frozen.figures) {
        y << YAML::BeginMap;
        for (const auto& [k, v] : {std::pair<const char*, const std::string*>{"check", &b.check},
                                   {"name", &b.name},
                                   {"unit", &b.unit},
                                   {"direction", &b.direction},
                                   {"gpu", &b.gpu},
                                   {"driver_branch", &b.driver_branch},
                                   {"link", &b.link},
                                   {"profile", &b.profile}}) {
            y << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << *v;
        }
        y << YAML::Key << "runs" << YAML::Value << b.runs << YAML::Key << "values" << YAML::Value << b.values;
        for (const auto& [k, v] : {std::pair<const char*, double>{"median", b.median},
                                   {"spread", b.spread},
                                   {"p05", b.p05},
                                   {"p25", b.p25},
                                   {"p75", b.p75},
                                   {"p95", b.p95}}) {
            y << YAML::Key << k << YAML::Value << v;
        }
        y << YAML::Key << "first_started" << YAML::Value << YAML::DoubleQuoted << b.first_started;
        y << YAML::Key << "last_started" << YAML::Value << YAML::DoubleQuoted << b.last_started;
        y << YAML::EndMap;
    }
    y << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
    return std::string(y.c_str()) + "\n";
}

void merge_baselines(FrozenBaselines& into, const FrozenBaselines& over) {
    if (over.min_runs) {
        into.min_runs = over.min_runs;
    }
    for (const FigureBaseline& b : over.figures) {
        bool replaced = false;
        for (FigureBaseline& have : into.figures) {
            if (group_key(have) == group_key(b)) {
                have = b;
                replaced = true;
            }
        }
        if (!replaced) {
            into.figures.push_back(b);
        }
    }
}

}  // namespace gpuconform
