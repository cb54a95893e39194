// What a view asks of the results store instead of reading files: the `--store` value and its
// time window, and the reader that answers it (probes/store provides it, so the roll-up links no
// database client).
#pragma once

#include <functional>
#include <string>

#include "reports/report_set.hpp"

namespace gpuconform {

// The stored reports a view reads instead of files (`--store` and its time window). The results
// store (probes/store) answers it, so this library links no database client.
struct StoreQuery {
    std::string location;  // as `--store` gave it
    std::string since;     // as given: "2026-11-29" or "2026-11-29T15:59:24Z"
    std::string until;
    bool last_night = false;
};
// Throws std::exception saying why the store could not be read.
using StoreReader = std::function<ReportSet(const StoreQuery&, const ReadOptions&)>;

}  // namespace gpuconform
