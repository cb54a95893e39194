#!/usr/bin/env python3
"""clang-tidy over the given files, skipping a file whose exact input already passed.

Usage: tidy_cached.py TOOL BUILD_DIR SOURCE_DIR [--checks=...] -- FILE...

A file's input is what clang-tidy would read: its preprocessed text (every header it includes,
with their paths relative to the checkout), its compile flags, the .clang-tidy configuration, the
checks argument and the tool's version. Only a pass is remembered (a marker file under
$XDG_CACHE_HOME/gpuconform/tidy named by the hash of that input), so a finding is reported on
every run, and any change to the file, a header, a flag, the configuration or the tool re-runs it
(flags that only make warnings errors are left out of the input: they change no finding).
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys


def compile_args(entry):
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c" or a.startswith("-o"):
            continue
        out.append(a)
    return out


def input_key(entry, tool_version, config, checks, roots):
    args = compile_args(entry)
    pre = subprocess.run(args + ["-E"], cwd=entry["directory"], capture_output=True)
    if pre.returncode != 0:
        return None  # cannot preprocess: let clang-tidy run and say why
    text = pre.stdout
    for root in roots:  # another clone of the same tree hashes the same
        text = text.replace(root.encode() + b"/", b"")
    # Whether a warning stops a build changes nothing clang-tidy reports (a pass means no
    # diagnostic at all, .clang-tidy making every one an error), so a tree built with -Werror
    # (.ci/run) and one without (ci/run-tests.sh) share their passes.
    flags = " ".join(a for a in args[1:] if not a.startswith(("-Werror", "-Wno-error")))
    for root in roots:
        flags = flags.replace(root + "/", "")
    h = hashlib.sha256()
    for part in (tool_version, config, checks, flags):
        h.update(part.encode() + b"\0")
    h.update(text)
    return h.hexdigest()


def main():
    if "--" not in sys.argv:
        print(__doc__, file=sys.stderr)
        return 2
    sep = sys.argv.index("--")
    tool, build, src = sys.argv[1:4]
    extra = sys.argv[4:sep]
    files = sys.argv[sep + 1:]
    src, build = os.path.realpath(src), os.path.realpath(build)
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = {os.path.realpath(os.path.join(e["directory"], e["file"])): e for e in json.load(f)}
    with open(os.path.join(src, ".clang-tidy")) as f:
        config = f.read()
    version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "gpuconform", "tidy")
    os.makedirs(cache, exist_ok=True)

    def one(path):
        full = os.path.realpath(os.path.join(src, path))
        entry = entries.get(full)
        if entry is None:
            return path, False, f"{path}: not in {build}/compile_commands.json\n", False
        key = input_key(entry, version, config, " ".join(extra), [src, build])
        marker = os.path.join(cache, key) if key else None
        if marker and os.path.exists(marker):
            return path, True, "", True
        r = subprocess.run([tool, "-p", build, "--quiet", *extra, full], capture_output=True, text=True)
        if r.returncode == 0 and marker:
            with open(marker, "w") as m:
                m.write(path + "\n")
        return path, r.returncode == 0, r.stdout, False

    failed, reused = [], 0
    jobs = os.cpu_count() or 2
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, ok, output, hit in pool.map(one, files):
            reused += hit
            if not ok:
                failed.append(path)
                sys.stdout.write(output)
    print(f"{len(files) - reused} files checked, {reused} unchanged since they last passed")
    if failed:
        print("clang-tidy findings in: " + " ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
