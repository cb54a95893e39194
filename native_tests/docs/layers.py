#!/usr/bin/env python3
"""Holds every folder's `#include "..."` lines to ARCHITECTURE.md's "Layers" table.

A folder is a top-level folder of probes/ with C++ sources; probes/ is the one include root, so
an include names its folder (`core/check.hpp` is probes/core's). Fails when an include names no
folder (a bare one, even of a file beside the includer), when a folder
includes one its row does not name, when a folder has no row, when a row names a folder or file
that does not exist, when the table's arrows make a cycle, and when two files include each other
(a .hpp and its .cpp count as one file).
Usage: layers.py SOURCE_DIR
"""
import os
import re
import sys

SOURCES = (".cpp", ".hpp", ".h", ".cu", ".hip")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ROW = re.compile(r"^\| `([a-z_/]+)` \| ([^|]+) \|")


def folders(root):
    """Every folder the table must have a row for."""
    out = []
    for name in sorted(os.listdir(os.path.join(root, "probes"))):
        path = os.path.join(root, "probes", name)
        if os.path.isdir(path) and any(f.endswith(SOURCES) for _, _, fs in os.walk(path) for f in fs):
            out.append("probes/" + name)
    return out


def table(root):
    """{folder: set of allowed folders or files} from ARCHITECTURE.md's "Layers" section."""
    text = open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8").read()
    start = text.index("## Layers")
    section = text[start : text.index("\n## ", start + 1)]
    rows = {}
    for line in section.splitlines():
        m = ROW.match(line)
        if m:
            allowed = set(re.findall(r"`([^`]+)`", m.group(2)))
            rows[m.group(1)] = allowed
    return rows


def target(root, folder, directory, include):
    """The folder (or file, for a row that allows one file) an include reaches."""
    if "/" in include:
        top = include.split("/")[0]
        if os.path.isdir(os.path.join(root, "probes", top)):
            return "probes/" + top, "probes/" + include
        return None, include
    return None, None  # bare: names no folder


def cycle(rows):
    """A cycle among the rows' folder arrows, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(rows.get(node, ())):
            nxt_folder = nxt if nxt in rows else "/".join(nxt.split("/")[:2])
            if nxt_folder == node:
                continue
            if state.get(nxt_folder) == "open":
                return path + [nxt_folder]
            if nxt_folder not in state:
                found = visit(nxt_folder, path + [nxt_folder])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(rows):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def mutual_includes(root, names):
    """Pairs of files (a .hpp and its .cpp as one) that include each other."""
    arrows = {}
    for folder in names:
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(directory, name)
                stem = os.path.splitext(os.path.relpath(path, root))[0]
                for include in INCLUDE.findall(open(path, encoding="utf-8", errors="replace").read()):
                    for candidate in (os.path.join(directory, include), os.path.join(root, "probes", include)):
                        if os.path.exists(candidate):
                            other = os.path.splitext(os.path.relpath(os.path.normpath(candidate), root))[0]
                            if other != stem:
                                arrows.setdefault(stem, set()).add(other)
                            break
    return [f"{a} and {b} include each other" for a in sorted(arrows) for b in sorted(arrows[a])
            if a < b and a in arrows.get(b, ())]


def main(root):
    rows = table(root)
    problems = []
    names = folders(root)
    for folder in names:
        if folder not in rows:
            problems.append(f"{folder}: no row in ARCHITECTURE.md's Layers table")
    for folder, allowed in rows.items():
        for entry in allowed:
            if entry != "—" and not os.path.exists(os.path.join(root, entry)):
                problems.append(f"{folder}: its row names {entry}, which does not exist")
    for folder in names:
        allowed = rows.get(folder, set())
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(directory, name)
                for include in INCLUDE.findall(open(path, encoding="utf-8", errors="replace").read()):
                    reached, file = target(root, folder, directory, include)
                    if reached == folder:
                        continue
                    if reached is None and file is None:
                        problems.append(f"{os.path.relpath(path, root)}: \"{include}\" names no folder "
                                        "(includes are folder-qualified from probes/)")
                    elif reached is None:
                        problems.append(f"{os.path.relpath(path, root)}: \"{include}\" is no file of the tree")
                    elif reached not in allowed and file not in allowed:
                        problems.append(f"{os.path.relpath(path, root)}: includes {file}, but {folder}'s row "
                                        f"allows only {', '.join(sorted(allowed)) or 'nothing'}")
    problems += mutual_includes(root, names)
    found = cycle(rows)
    if found:
        problems.append("the table's arrows make a cycle: " + " -> ".join(found))
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(names)} folders include only what ARCHITECTURE.md's Layers table allows; no cycle; "
          "no two files include each other")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
