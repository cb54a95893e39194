#include "store/figures.hpp"

#include <cstdio>

#include "checks/declarations.hpp"

namespace gpuconform::store {

namespace {

const char* const k_insert_figures =
    "INSERT INTO figures (run_id, host, started, gpu, driver_branch, link, profile, check_id, device, name, unit, "
    "direction, value) VALUES ";
constexpr const char* k_figure_row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr std::size_t k_figure_columns = 13;
// Rows per statement: a batch's figures in a few statements save a server round trip per figure
// (PostgreSQL), within SQLite's 32,766 parameters per statement.
constexpr std::size_t k_rows_per_insert = 1000;

void insert_rows(Database& db, std::vector<Value>& params) {
    const std::size_t rows = params.size() / k_figure_columns;
    if (rows == 0) {
        return;
    }
    std::string sql = k_insert_figures;
    for (std::size_t i = 0; i < rows; ++i) {
        sql += i == 0 ? "" : ", ";
        sql += k_figure_row;
    }
    db.query(sql, params);
    params.clear();
}

// As diff judges a figure: today's declaration, else what the report stamped.
std::optional<Direction> key_direction(const std::string& check, const ScannedMeasurement& m) {
    if (const auto declared = declared_meaning(check, m.name)) {
        return declared->role == Role::Key ? std::optional(declared->direction) : std::nullopt;
    }
    return role_from_string(m.role) == Role::Key ? direction_from_string(m.direction) : std::nullopt;
}

}  // namespace

std::string driver_branch(const std::string& driver_version) {
    return driver_version.substr(0, driver_version.find('.'));
}

namespace {
void add_figures(Database& db, const ScannedReport& r, std::vector<Value>& params) {
    const auto group = [&](GroupKey key) { return r.groups[static_cast<int>(key)]; };
    const Value started = r.started.empty() ? Value() : Value(r.started);
    for (const ScannedResult& result : r.results) {
        if ((result.status != Status::Pass && result.status != Status::Warn && result.status != Status::Fail) ||
            result.disturbed) {
            continue;  // skipped, errored, informational, or moved by another GPU user: no figure to learn from
        }
        for (const ScannedMeasurement& m : result.measurements) {
            const auto direction = key_direction(result.id, m);
            if (!direction || *direction == Direction::None) {
                continue;
            }
            char value[40];
            std::snprintf(value, sizeof value, "%.17g", m.value);
            params.insert(params.end(), {r.run_id, group(GroupKey::Host), started, group(GroupKey::Gpu),
                                         driver_branch(group(GroupKey::Driver)), r.link, r.profile, result.id,
                                         result.device, m.name, m.unit, to_string(*direction), std::string(value)});
            if (params.size() == k_rows_per_insert * k_figure_columns) {
                insert_rows(db, params);
            }
        }
    }
}
}  // namespace

void insert_figures(Database& db, const ScannedReport& report) { insert_figures(db, {&report}); }

void insert_figures(Database& db, const std::vector<const ScannedReport*>& reports) {
    std::vector<Value> params;
    for (const ScannedReport* r : reports) {
        add_figures(db, *r, params);
    }
    insert_rows(db, params);
}

}  // namespace gpuconform::store
