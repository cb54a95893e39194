// Where the JSON report goes. The folder is checked before any check runs, and the file is
// written atomically (temporary file, then rename), so a full disk never leaves half a report.
#pragma once

#include <string>

namespace gpuconform {

struct ReportOutput {
    std::string path;        // final path ("" when to_stdout)
    bool to_stdout = false;  // --json -
    std::string error;       // set by prepare() when the folder is unusable

    // json_path: "" → gpuconform-<host>-<UTC>.json in the current folder; "-" → stdout.
    static ReportOutput prepare(const std::string& json_path, const std::string& host);
    // Writes the text; on failure returns false and sets *message to what went wrong and where
    // the report went instead (write_fallback, else stdout), so a failed target never loses it.
    bool write(const std::string& text, std::string* message) const;
};

// Writes `text` to a new file of our own in $TMPDIR (else /tmp); its path, or "" and `error`.
std::string write_fallback(const std::string& text, std::string& error);

// Keeps a host name safe as part of a file name.
std::string file_safe(const std::string& text);

}  // namespace gpuconform
