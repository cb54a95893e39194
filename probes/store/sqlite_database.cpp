// SQLite through its C API (https://www.sqlite.org/cintro.html): prepared statements kept per
// SQL text, WAL so that views read while a node ingests, and a busy timeout so that concurrent
// writers wait their turn (https://www.sqlite.org/wal.html).
#include <sqlite3.h>

#include <array>
#include <charconv>
#include <unordered_map>
#include <vector>

#include "store/database.hpp"

namespace gpuconform::store {

namespace {

constexpr int k_busy_timeout_ms = 60'000;

class SqliteDatabase final : public Database {
public:
    explicit SqliteDatabase(const std::string& path) {
        const int rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
        if (rc != SQLITE_OK) {
            const std::string why = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
            sqlite3_close(m_db);
            throw StoreError("cannot open SQLite store " + path + ": " + why);
        }
        sqlite3_busy_timeout(m_db, k_busy_timeout_ms);
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON");
    }
    ~SqliteDatabase() override {
        for (auto& [sql, stmt] : m_statements) {
            sqlite3_finalize(stmt);
        }
        sqlite3_close(m_db);
    }
    SqliteDatabase(const SqliteDatabase&) = delete;
    SqliteDatabase& operator=(const SqliteDatabase&) = delete;

    Dialect dialect() const override { return Dialect::Sqlite; }

    void exec(const std::string& sql) override {
        char* message = nullptr;
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
            const std::string why = message ? message : sqlite3_errmsg(m_db);
            sqlite3_free(message);
            throw StoreError("SQLite: " + why);
        }
    }

    void begin_write() override { exec("BEGIN IMMEDIATE"); }

    QueryResult query(const std::string& sql, const std::vector<Value>& params) override {
        QueryResult out;
        for_each_row(sql, params, [&](const RowView& view) {
            Row row;
            row.reserve(view.size());
            for (const auto& column : view) {
                row.push_back(column ? Value(std::string(*column)) : Value());
            }
            out.rows.push_back(std::move(row));
        });
        out.changed = sqlite3_changes(m_db);
        return out;
    }

    void for_each_row(const std::string& sql, const std::vector<Value>& params,
                      const std::function<void(const RowView&)>& each) override {
        sqlite3_stmt* stmt = prepared(sql);
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
        for (std::size_t i = 0; i < params.size(); ++i) {
            const int at = static_cast<int>(i + 1);
            const int rc = params[i] ? sqlite3_bind_text(stmt, at, params[i]->data(),
                                                         static_cast<int>(params[i]->size()), SQLITE_TRANSIENT)
                                     : sqlite3_bind_null(stmt, at);
            check(rc, sql);
        }
        // The statement is reset however this ends: a callback that throws leaves no read open.
        struct Reset {
            sqlite3_stmt* stmt;
            ~Reset() { sqlite3_reset(stmt); }
        } reset{stmt};
        RowView row;
        std::vector<std::array<char, 32>> numbers;
        for (;;) {
            const int rc = sqlite3_step(stmt);
            if (rc == SQLITE_DONE) {
                break;
            }
            if (rc != SQLITE_ROW) {
                check(rc, sql);
            }
            const int n = sqlite3_column_count(stmt);
            row.assign(static_cast<std::size_t>(n), std::nullopt);
            numbers.resize(static_cast<std::size_t>(n));
            for (int c = 0; c < n; ++c) {
                if (sqlite3_column_type(stmt, c) == SQLITE_FLOAT) {
                    // SQLite's own text of a REAL has 15 digits; the shortest text that reads back
                    // as the same double keeps every figure exact, as PostgreSQL's does.
                    auto& buffer = numbers[static_cast<std::size_t>(c)];
                    const auto end =
                        std::to_chars(buffer.data(), buffer.data() + buffer.size(), sqlite3_column_double(stmt, c)).ptr;
                    row[static_cast<std::size_t>(c)] =
                        std::string_view(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
                    continue;
                }
                const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
                if (text != nullptr) {
                    row[static_cast<std::size_t>(c)] =
                        std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)));
                }
            }
            each(row);
        }
    }

private:
    sqlite3* m_db = nullptr;
    std::unordered_map<std::string, sqlite3_stmt*> m_statements;

    void check(int rc, const std::string& sql) const {
        if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) {
            throw StoreError("SQLite: " + std::string(sqlite3_errmsg(m_db)) + " (in: " + sql.substr(0, 80) + ")");
        }
    }
    sqlite3_stmt* prepared(const std::string& sql) {
        if (const auto it = m_statements.find(sql); it != m_statements.end()) {
            return it->second;
        }
        sqlite3_stmt* stmt = nullptr;
        check(sqlite3_prepare_v2(m_db, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr), sql);
        m_statements.emplace(sql, stmt);
        return stmt;
    }
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path) { return std::make_unique<SqliteDatabase>(path); }

}  // namespace gpuconform::store
