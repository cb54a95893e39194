// PostgreSQL through libpq (https://www.postgresql.org/docs/current/libpq.html). The connection
// string is libpq's own: a URI or key=value pairs, and whatever it leaves out comes from the PG*
// variables (https://www.postgresql.org/docs/current/libpq-envars.html). Built only when CMake
// found libpq; otherwise opening a PostgreSQL store says so.
#include "store/database.hpp"

#ifdef GPUCONFORM_STORE_POSTGRESQL
#include <libpq-fe.h>

#include <cstdlib>
#include <exception>
#endif

namespace gpuconform::store {

#ifdef GPUCONFORM_STORE_POSTGRESQL

namespace {

// `?` placeholders as PostgreSQL's `$1, $2, ...`, outside quoted text.
std::string numbered_placeholders(const std::string& sql) {
    std::string out;
    int n = 0;
    bool quoted = false;
    for (const char c : sql) {
        if (c == '\'') {
            quoted = !quoted;
        }
        if (c == '?' && !quoted) {
            out += '$' + std::to_string(++n);
        } else {
            out += c;
        }
    }
    return out;
}

class PostgresDatabase final : public Database {
public:
    explicit PostgresDatabase(const std::string& conninfo) : m_conn(PQconnectdb(conninfo.c_str())) {
        if (m_conn == nullptr || PQstatus(m_conn) != CONNECTION_OK) {
            const std::string why = m_conn ? PQerrorMessage(m_conn) : "out of memory";
            PQfinish(m_conn);
            throw StoreError("cannot connect to PostgreSQL: " + trimmed(why));
        }
        // "relation already exists, skipping" and the like are not for the operator's terminal.
        PQsetNoticeProcessor(
            m_conn, [](void*, const char*) {}, nullptr);
    }
    ~PostgresDatabase() override { PQfinish(m_conn); }
    PostgresDatabase(const PostgresDatabase&) = delete;
    PostgresDatabase& operator=(const PostgresDatabase&) = delete;

    Dialect dialect() const override { return Dialect::Postgresql; }

    void exec(const std::string& sql) override {
        PGresult* r = PQexec(m_conn, sql.c_str());
        check(r, sql);
        PQclear(r);
    }

    void begin_write() override { exec("BEGIN"); }

    QueryResult query(const std::string& sql, const std::vector<Value>& params) override {
        std::vector<const char*> values;
        values.reserve(params.size());
        for (const Value& v : params) {
            values.push_back(v ? v->c_str() : nullptr);
        }
        PGresult* r = PQexecParams(m_conn, numbered_placeholders(sql).c_str(), static_cast<int>(values.size()), nullptr,
                                   values.data(), nullptr, nullptr, 0);
        check(r, sql);
        QueryResult out;
        const int rows = PQntuples(r);
        const int cols = PQnfields(r);
        out.rows.reserve(static_cast<std::size_t>(rows));
        for (int i = 0; i < rows; ++i) {
            Row row;
            row.reserve(static_cast<std::size_t>(cols));
            for (int c = 0; c < cols; ++c) {
                row.push_back(
                    PQgetisnull(r, i, c)
                        ? Value()
                        : Value(std::string(PQgetvalue(r, i, c), static_cast<std::size_t>(PQgetlength(r, i, c)))));
            }
            out.rows.push_back(std::move(row));
        }
        out.changed = std::atoll(PQcmdTuples(r));
        PQclear(r);
        return out;
    }

    // libpq's single-row mode (https://www.postgresql.org/docs/current/libpq-single-row-mode.html):
    // each row arrives as a result of its own, so the client never holds the whole answer.
    void for_each_row(const std::string& sql, const std::vector<Value>& params,
                      const std::function<void(const RowView&)>& each) override {
        std::vector<const char*> values;
        values.reserve(params.size());
        for (const Value& v : params) {
            values.push_back(v ? v->c_str() : nullptr);
        }
        if (PQsendQueryParams(m_conn, numbered_placeholders(sql).c_str(), static_cast<int>(values.size()), nullptr,
                              values.data(), nullptr, nullptr, 0) == 0) {
            check(nullptr, sql);
        }
        PQsetSingleRowMode(m_conn);
        // Every result is read to the end, whatever happens on the way: the connection is usable
        // only once the last one (nullptr) was taken. The first problem is thrown after that.
        std::exception_ptr problem;
        RowView row;
        while (PGresult* r = PQgetResult(m_conn)) {
            const ExecStatusType status = PQresultStatus(r);
            if (!problem && status != PGRES_SINGLE_TUPLE && status != PGRES_TUPLES_OK) {
                try {
                    check(r, sql);  // throws, and clears r
                } catch (...) {
                    problem = std::current_exception();
                }
                continue;
            }
            if (!problem && status == PGRES_SINGLE_TUPLE) {
                const int cols = PQnfields(r);
                row.assign(static_cast<std::size_t>(cols), std::nullopt);
                for (int c = 0; c < cols; ++c) {
                    if (!PQgetisnull(r, 0, c)) {
                        row[static_cast<std::size_t>(c)] =
                            std::string_view(PQgetvalue(r, 0, c), static_cast<std::size_t>(PQgetlength(r, 0, c)));
                    }
                }
                try {
                    each(row);
                } catch (...) {
                    problem = std::current_exception();
                }
            }
            PQclear(r);
        }
        if (problem) {
            std::rethrow_exception(problem);
        }
    }

private:
    PGconn* m_conn;

    static std::string trimmed(std::string s) {
        while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) {
            s.pop_back();
        }
        return s;
    }
    void check(PGresult* r, const std::string& sql) const {
        const ExecStatusType status = PQresultStatus(r);
        if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
            return;
        }
        const std::string why = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(m_conn));
        const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
        // https://www.postgresql.org/docs/current/errcodes-appendix.html: 40001, 40P01
        const bool conflict = state && (std::string_view(state) == "40001" || std::string_view(state) == "40P01");
        PQclear(r);
        const std::string message = "PostgreSQL: " + why + " (in: " + sql.substr(0, 80) + ")";
        if (conflict) {
            throw StoreConflict(message);
        }
        throw StoreError(message);
    }
};

}  // namespace

std::unique_ptr<Database> open_postgresql(const std::string& conninfo) {
    return std::make_unique<PostgresDatabase>(conninfo);
}

bool postgresql_available() { return true; }

#else

std::unique_ptr<Database> open_postgresql(const std::string&) {
    throw StoreError("this gpuconform was built without PostgreSQL support (libpq was not found at configure time)");
}

bool postgresql_available() { return false; }

#endif

}  // namespace gpuconform::store
