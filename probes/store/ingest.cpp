#include "store/ingest.hpp"

#include <algorithm>
#include <istream>
#include <iterator>
#include <unordered_set>

#include "store/figures.hpp"
#include "store/store_time.hpp"

namespace gpuconform::store {

namespace {

struct Pending {
    std::string source;
    ScannedReport scanned;
    std::string text;
};

const char* const k_insert_runs =
    "INSERT INTO runs (run_id, started, host, distro, kernel, driver, runtime, torch, gpu, interrupted, source, "
    "ingested, report) VALUES ";
constexpr const char* k_run_row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
// Runs per statement: one server round trip for many (PostgreSQL); each holds a whole report.
constexpr std::size_t k_runs_per_insert = 100;

std::string group(const ScannedReport& r, GroupKey key) { return r.groups[static_cast<int>(key)]; }

// The run ids that statements of up to k_runs_per_insert rows stored (RETURNING: a run id stored
// before, or twice in the batch, is not returned).
std::unordered_multiset<std::string> insert_runs(Database& db, const std::vector<Pending>& batch,
                                                 const std::string& now) {
    std::unordered_multiset<std::string> stored;
    for (std::size_t first = 0; first < batch.size(); first += k_runs_per_insert) {
        const std::size_t last = std::min(batch.size(), first + k_runs_per_insert);
        std::string sql = k_insert_runs;
        std::vector<Value> params;
        for (std::size_t i = first; i < last; ++i) {
            const Pending& p = batch[i];
            const ScannedReport& r = p.scanned;
            sql += i == first ? "" : ", ";
            sql += k_run_row;
            params.insert(params.end(),
                          {r.run_id, r.started.empty() ? Value() : Value(r.started), group(r, GroupKey::Host),
                           group(r, GroupKey::Distro), group(r, GroupKey::Kernel), group(r, GroupKey::Driver),
                           group(r, GroupKey::Runtime), group(r, GroupKey::Torch), group(r, GroupKey::Gpu),
                           r.interrupted ? "1" : "0", p.source, now, p.text});
        }
        sql += " ON CONFLICT (run_id) DO NOTHING RETURNING run_id";
        for (const Row& row : db.query(sql, params).rows) {
            stored.insert(row.at(0).value_or(""));
        }
    }
    return stored;
}

void write_batch_once(Database& db, std::vector<Pending>& batch, IngestOutcome& out) {
    const std::string now = utc_now();
    std::size_t stored = 0;
    std::size_t already = 0;
    std::vector<Rejected> conflicts;
    db.begin_write();
    try {
        std::unordered_multiset<std::string> inserted = insert_runs(db, batch, now);
        std::vector<const ScannedReport*> new_reports;
        for (const Pending& p : batch) {
            const ScannedReport& r = p.scanned;
            if (const auto it = inserted.find(r.run_id); it != inserted.end()) {
                inserted.erase(it);  // a second report under the same id in this batch is not this one
                new_reports.push_back(&r);
                ++stored;
                continue;
            }
            // The run id is there already: the same report again is fine, another is refused.
            const auto rows = db.query("SELECT report, source FROM runs WHERE run_id = ?", {r.run_id}).rows;
            if (!rows.empty() && rows[0][0] == p.text) {
                ++already;
            } else {
                conflicts.push_back({p.source, "run id '" + r.run_id +
                                                   "' is already stored with another report (from " +
                                                   (rows.empty() ? std::string("?") : rows[0][1].value_or("?")) + ")"});
            }
        }
        insert_figures(db, new_reports);
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
    out.stored += stored;
    out.already += already;
    out.rejected.insert(out.rejected.end(), conflicts.begin(), conflicts.end());
}

constexpr int k_conflict_attempts = 5;

// In run id order, so that nodes ingesting overlapping sets take row locks in one order; a
// transaction the server still aborted for another's sake runs again.
void write_batch(Database& db, std::vector<Pending>& batch, IngestOutcome& out) {
    std::sort(batch.begin(), batch.end(),
              [](const Pending& a, const Pending& b) { return a.scanned.run_id < b.scanned.run_id; });
    for (int attempt = 1; !batch.empty(); ++attempt) {
        try {
            write_batch_once(db, batch, out);
            break;
        } catch (const StoreConflict&) {
            if (attempt == k_conflict_attempts) {
                throw;
            }
        }
    }
    batch.clear();
}

// One report on standard input, within the bound every report file has.
void read_standard_input(std::istream& in, std::vector<Pending>& batch, IngestOutcome& out) {
    std::string text;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (text.size() > k_max_report_bytes) {
            out.rejected.push_back({"-", "standard input holds more than a report may (" +
                                             std::to_string(k_max_report_bytes >> 20) + " MiB)"});
            return;
        }
    }
    std::string error;
    auto scanned = scan_report(text, true, error);
    if (!scanned) {
        out.rejected.push_back({"-", error});
        return;
    }
    batch.push_back({"-", std::move(*scanned), std::move(text)});
}

}  // namespace

IngestOutcome ingest_reports(Database& db, const std::vector<std::string>& inputs, std::istream& standard_input,
                             std::size_t batch_size) {
    IngestOutcome out;
    std::vector<std::string> files;
    bool from_stdin = false;
    for (const std::string& input : inputs) {
        if (input == "-") {
            from_stdin = true;
        } else {
            files.push_back(input);
        }
    }
    std::vector<Pending> batch;
    if (from_stdin) {
        read_standard_input(standard_input, batch, out);
    }
    for (const std::string& path : collect_report_paths(files, out.rejected)) {
        std::string text;
        std::string error;
        auto scanned = read_report_file(path, true, text, error);
        if (!scanned) {
            out.rejected.push_back({path, error});
            continue;
        }
        batch.push_back({path, std::move(*scanned), std::move(text)});
        if (batch.size() >= batch_size) {
            write_batch(db, batch, out);
        }
    }
    write_batch(db, batch, out);
    return out;
}

}  // namespace gpuconform::store
