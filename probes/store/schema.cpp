#include "store/schema.hpp"

#include <string>
#include <vector>

#include "store/figures.hpp"

namespace gpuconform::store {

namespace {

// Append only: a released migration is never edited, a change is a new one. Each is plain SQL
// both engines accept (TEXT, INTEGER, DOUBLE PRECISION; no engine-specific types), plus, where
// one engine has a setting the other lacks, that engine's own statement.
// Rewrites what a migration added from the reports already stored (a store made before it).
void backfill_figures(Database& db) {
    for (const Row& row : db.query("SELECT report FROM runs").rows) {
        std::string error;
        if (const auto scanned = scan_report(*row[0], true, error)) {
            insert_figures(db, *scanned);
        }
    }
}

struct Migration {
    std::string sql;  // for both engines ("" none)
    void (*backfill)(Database&) = nullptr;
    std::string postgresql_sql;  // PostgreSQL only, after `sql` ("" none)
};

// PostgreSQL compresses a stored report (about 16 KB of JSON) with pglz by default; lz4 takes a
// fraction of its CPU (https://www.postgresql.org/docs/current/storage-toast.html): measured on 2
// cores, 10,000 reports ingested at 3,111/s against 1,857/s. Only new values are compressed so; a
// server older than 14 or built without lz4 keeps pglz (the error is caught, the store is the same).
constexpr const char* k_pg_reports_lz4 =
    "DO $$ BEGIN"
    " ALTER TABLE runs ALTER COLUMN report SET COMPRESSION lz4;"
    " EXCEPTION WHEN OTHERS THEN NULL;"
    " END $$";

const std::vector<Migration> k_migrations{
    // 1: every report kept whole beside the columns views select on. `started` is run.started,
    // UTC ISO 8601, so it sorts as text; the group columns are the roll-up's --by keys.
    {"CREATE TABLE runs ("
     " run_id TEXT PRIMARY KEY,"
     " started TEXT,"
     " host TEXT NOT NULL, distro TEXT NOT NULL, kernel TEXT NOT NULL, driver TEXT NOT NULL,"
     " runtime TEXT NOT NULL, torch TEXT NOT NULL, gpu TEXT NOT NULL,"
     " interrupted INTEGER NOT NULL,"
     " source TEXT NOT NULL,"
     " ingested TEXT NOT NULL,"
     " report TEXT NOT NULL);"
     "CREATE INDEX runs_started ON runs (started);"
     "CREATE INDEX runs_host_started ON runs (host, started)",
     nullptr, ""},
    // 2: each report's key figures, per device, with the group a baseline is learned for
    // (GPU model x driver branch x link x profile); direction is "higher" or "lower".
    {"CREATE TABLE figures ("
     " run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
     " host TEXT NOT NULL, started TEXT,"
     " gpu TEXT NOT NULL, driver_branch TEXT NOT NULL, link TEXT NOT NULL, profile TEXT NOT NULL,"
     " check_id TEXT NOT NULL, device TEXT NOT NULL, name TEXT NOT NULL, unit TEXT NOT NULL,"
     " direction TEXT NOT NULL, value DOUBLE PRECISION NOT NULL);"
     "CREATE INDEX figures_run ON figures (run_id);"
     "CREATE INDEX figures_started ON figures (started);"
     "CREATE INDEX figures_host ON figures (host, started)",
     backfill_figures, ""},
    // 3: PostgreSQL compresses the stored reports with lz4 where the server can.
    {"", nullptr, k_pg_reports_lz4},
};

// Any 64-bit number, the same for every process that migrates a PostgreSQL store.
constexpr const char* k_pg_migration_lock = "SELECT pg_advisory_xact_lock(7307258031409516340)";

int as_int(const Value& v) { return v ? std::stoi(*v) : 0; }

}  // namespace

int schema_version() { return static_cast<int>(k_migrations.size()); }

int stored_schema_version(Database& db) {
    return as_int(db.query("SELECT max(version) FROM gpuconform_schema").rows.at(0).at(0));
}

void migrate(Database& db) {
    db.begin_write();
    try {
        if (db.dialect() == Dialect::Postgresql) {
            db.query(k_pg_migration_lock);
        }
        db.exec("CREATE TABLE IF NOT EXISTS gpuconform_schema (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)");
        const int at = stored_schema_version(db);
        if (at > schema_version()) {
            throw StoreError("the store's schema is version " + std::to_string(at) + ", newer than this gpuconform's " +
                             std::to_string(schema_version()) + ": use a newer gpuconform");
        }
        for (int v = at + 1; v <= schema_version(); ++v) {
            const Migration& m = k_migrations[static_cast<std::size_t>(v - 1)];
            if (!m.sql.empty()) {
                db.exec(m.sql);
            }
            if (m.backfill != nullptr) {
                m.backfill(db);
            }
            if (db.dialect() == Dialect::Postgresql && !m.postgresql_sql.empty()) {
                db.exec(m.postgresql_sql);
            }
            db.query("INSERT INTO gpuconform_schema (version, applied) VALUES (?, ?)",
                     {std::to_string(v), "migration " + std::to_string(v)});
        }
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
}

std::unique_ptr<Database> open_store(const std::string& location) {
    const StoreLocation where = parse_store_location(location);
    std::unique_ptr<Database> db =
        where.dialect == Dialect::Sqlite ? open_sqlite(where.target) : open_postgresql(where.target);
    migrate(*db);
    return db;
}

}  // namespace gpuconform::store
