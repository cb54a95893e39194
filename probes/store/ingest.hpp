// Reports into the store: each read and validated by the roll-up's one reader
// (read_report_file / scan_report) before anything is written, so a bad report is rejected
// with its reason and nothing of it is stored. Idempotent by run id.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "store/database.hpp"
#include "reports/report_set.hpp"

namespace gpuconform::store {

struct IngestOutcome {
    std::size_t stored = 0;
    std::size_t already = 0;  // the same report was stored before (same run id, same text)
    std::vector<Rejected> rejected;
};

// `inputs`: report files, folders (searched for *.json as matrix does) and "-" for one report on
// `standard_input`. Writes in transactions of `batch` reports; a database error rolls back the
// open batch and throws StoreError (the batches before it stay, and a rerun skips them).
IngestOutcome ingest_reports(Database& db, const std::vector<std::string>& inputs, std::istream& standard_input,
                             std::size_t batch = 500);

}  // namespace gpuconform::store
