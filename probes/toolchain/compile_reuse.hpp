// A compile probe's verdict kept while the toolchain it judged is unchanged, so the host layer
// does not spend seconds compiling the same probe with the same compilers every night.
//
// The fingerprint is every input that can change the verdict, one line each: the compilers
// (nvcc, hipcc, the host compilers nvcc and CMake would pick), the C library, the folders of the
// headers they read (a package upgrade renames files into them, which changes the folder's
// modification time), the GPU driver (the probe runs on the GPU), the variables nvcc and the
// compilers read, and gpuconform's own version. Each path is written with its size, modification
// time and inode after links are followed. Only a pass is reused, for at most a week; anything
// else is judged again on every run, and the report says when and from when a verdict was reused.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/environment.hpp"
#include "core/result.hpp"

namespace gpuconform {

// One line per path ("path size mtime_ns inode", or "path absent") and per word, in order.
std::string fingerprint_lines(const std::vector<std::string>& paths, const std::vector<std::string>& words);

// A compile probe's fingerprint: `tools` (its compilers and their own folders) and what every probe
// shares: the host compilers on PATH, the C library, the header folders, the GPU drivers and GPUs
// on the bus, the variables compilers read, and this gpuconform's version.
std::string compile_fingerprint(const std::vector<std::string>& tools, const Environment& env,
                                const std::string& path_env);

// The folders a host C/C++ compiler reads headers and its own parts from, under `root`:
// /usr/include, /usr/include/c++/*, /usr/include/<multiarch>, /usr/lib/gcc/<multiarch>/*.
std::vector<std::string> host_compiler_folders(const std::string& root);

// Where verdicts are kept: $GPUCONFORM_CACHE_DIR ("off" or empty: nowhere, always compile), else
// $CACHE_DIRECTORY (systemd's CacheDirectory=), else $XDG_CACHE_HOME/gpuconform, else
// $HOME/.cache/gpuconform; "" when none can be named.
std::string compile_verdict_dir();

inline constexpr std::chrono::hours k_max_verdict_age{24 * 7};

// The saved pass of `check_id` for this exact fingerprint, not older than the limit, copied into
// `r` with facts.reused_from (when it was judged) and a summary that says so. False when there is
// none (or `dir` is ""): the caller compiles.
bool reuse_compile_verdict(const std::string& dir, const std::string& check_id, const std::string& fingerprint,
                           CheckResult& r);

// Keeps `r` for the next run when it passed; other statuses remove what was kept. Never fails the
// check: a folder that cannot be written only means the next run compiles again.
void keep_compile_verdict(const std::string& dir, const std::string& check_id, const std::string& fingerprint,
                          const CheckResult& r);

// A compile probe's `run` that reuses a kept pass while `fingerprint` is unchanged (under --quick
// too, where `compile` itself skips), and keeps what `compile` judged for the next run.
using CheckRun = std::function<void(CheckContext&, CheckResult&)>;
CheckRun reuse_while_unchanged(std::function<std::string(const CheckContext&)> fingerprint, CheckRun compile);

}  // namespace gpuconform
