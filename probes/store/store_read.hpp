// Reports out of the store for the roll-up's views: the stored texts, chosen by time window,
// read back by the same reader as files (read_report_texts), so a view cannot tell the two apart.
#pragma once

#include <string>
#include <vector>

#include "store/database.hpp"
#include "reports/report_set.hpp"

namespace gpuconform::store {

struct Window {
    std::string since;        // run.started >= since (stored form; "" no bound)
    std::string until;        // run.started < until
    bool last_night = false;  // each host's newest run of the 24 h ending at the newest run in the window
};

struct StoredRun {
    std::string run_id;
    std::string host;
    std::string started;
    std::string source;
    std::string report;  // empty unless asked for
};
// The runs the window selects, in no particular order.
std::vector<StoredRun> selected_runs(Database& db, const Window& window, bool with_report);

// The stored reports in the window, ordered by where they were read from (as files are, by
// path), each named by that source. A run without run.started is outside every bounded window.
std::vector<NamedReport> stored_reports(Database& db, const Window& window);

}  // namespace gpuconform::store
