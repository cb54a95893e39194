// Where gpuconform makes its temporary folders and files: $TMPDIR when it is set and usable,
// else /tmp. An unusable TMPDIR (a missing folder, a full or read-only disk) is the host's
// setting, never a reason for a check to end in error; every temporary path is made here.
#pragma once

#include <string>

namespace gpuconform {

// A new private folder (mkdtemp, mode 0700) named <stem>-XXXXXX; empty when neither place
// takes one, with `error` saying why for both.
std::string make_temp_dir(const std::string& stem, std::string* error = nullptr);

// A new private file (mkstemps, O_EXCL, mode 0600) named <stem>-XXXXXX<suffix>; returns its
// path with the open descriptor in `fd`, or empty (fd -1) with `error`.
std::string make_temp_file(const std::string& stem, const std::string& suffix, int& fd, std::string* error = nullptr);

}  // namespace gpuconform
