// The results store's one database interface: SQLite (a file, nothing to set up) and PostgreSQL
// (a fleet's server) behind the same few calls, so the schema, the ingest and the views are
// written once. Statements use `?` placeholders; values travel as text (NULL as nullopt).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuconform::store {

// A database call that failed, with the server's or the library's message.
struct StoreError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// A transaction the server gave up on because of another one (PostgreSQL's deadlock or
// serialization failure): rolled back, it can simply run again.
struct StoreConflict : StoreError {
    using StoreError::StoreError;
};

using Value = std::optional<std::string>;
using Row = std::vector<Value>;
// A row while a streaming query hands it over: each column's text, nullopt for NULL. Valid only
// during the call that receives it.
using RowView = std::vector<std::optional<std::string_view>>;

struct QueryResult {
    std::vector<Row> rows;
    long long changed = 0;  // rows inserted, updated or deleted by the statement
};

enum class Dialect { Sqlite, Postgresql };

class Database {
public:
    virtual ~Database() = default;
    virtual Dialect dialect() const = 0;
    // Statements without parameters, separated by ';'.
    virtual void exec(const std::string& sql) = 0;
    // One statement; `?` placeholders take `params` in order.
    virtual QueryResult query(const std::string& sql, const std::vector<Value>& params = {}) = 0;
    // One statement whose rows go to `each` one at a time, never all held at once: a million
    // reports' key figures are ten million rows.
    virtual void for_each_row(const std::string& sql, const std::vector<Value>& params,
                              const std::function<void(const RowView&)>& each) = 0;
    // Opens a write transaction. SQLite takes its write lock at once (BEGIN IMMEDIATE), so two
    // writers queue on the busy timeout instead of failing half-way.
    virtual void begin_write() = 0;
    void commit() { exec("COMMIT"); }
    void rollback() noexcept;
};

// Where a store is: "postgresql://..." or "postgres://..." (a libpq URI), "pg:" followed by a
// libpq key=value string (empty: the PG* variables alone), anything else an SQLite file path.
struct StoreLocation {
    Dialect dialect = Dialect::Sqlite;
    std::string target;  // the file path, or libpq's connection string
};
StoreLocation parse_store_location(const std::string& text);

// The raw connections (no schema work): each in its own file.
std::unique_ptr<Database> open_sqlite(const std::string& path);
std::unique_ptr<Database> open_postgresql(const std::string& conninfo);  // throws when built without libpq

// Is the PostgreSQL client compiled in (libpq found at configure time)?
bool postgresql_available();

}  // namespace gpuconform::store
