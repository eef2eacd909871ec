#!/usr/bin/env python3
"""The house's include rules, checked: docs/design.md's layer table is the rule book.

The table under the heading "The house: layers and what each may include" names, per row, a
layer (the first `backticked` word of the first column), the files it holds (the `backticked`
patterns of the second column) and the layers it may include (the `backticked` layer names of
the last column; `*`: every layer above; none: nothing of vmafx). Text outside backticks is prose for the reader and
is not read here. Patterns:
  - `src/base/**` is every file under src/base/; `src/feature/registry.*` uses `*` and `?`
    within one path segment; `**` crosses folders;
  - a pattern with a `*` segment before `/**` (`src/feature/*/**`) is a family of folders:
    each folder is its own unit, which may include itself but never a sibling folder;
  - a pattern without a `/` (`*_test.cpp`) matches a file name anywhere and comes first;
    otherwise a file belongs to the row whose matching pattern has the most literal characters.
Every row may include its own layer. The table is also checked: a row may name only layers
listed above it (arrows run one way, so the layers have no circle), and each name must exist.

Scanned: every C, C++, CUDA and GLSL file under src/, include/ and tools/ (or the folders
given). Each `#include "..."` (and each `#include <...>` that names a file of the tree) is
resolved as the build resolves it: beside the including file, then src/, include/,
include/libvmaf/ and tests/. A broken rule is reported as FILE:LINE: the include, the two
layers and the rule; the exit status is then 1 (2 for an unreadable or malformed table).

Usage: check_includes.py [--root DIR] [--rules FILE] [FOLDER ...]
"""

import argparse
import os
import re
import sys

HEADING = "## The house: layers and what each may include"
EXTENSIONS = (".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".inc", ".inl", ".def", ".comp", ".glsl")
SEARCH_PATH = ("src", "include", "include/libvmaf", "tests")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
TICKED = re.compile(r"`([^`]+)`")


class RulesError(Exception):
    """The rule book cannot be read: no table, a malformed row, an unknown or upward layer."""


class Pattern:
    """One `backticked` file pattern of a layer row."""

    def __init__(self, text):
        self.text = text
        self.by_name = "/" not in text
        self.literal = len(re.sub(r"[*?]", "", text))
        out, families = "", 0
        parts = text.split("/")
        for i, seg in enumerate(parts):
            if i:
                out += "/"
            if seg == "**":
                out += ".*"
            elif seg == "*" and i + 1 < len(parts):
                out += "([^/]+)"  # a family: each folder its own unit
                families += 1
            else:
                out += "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in seg)
        self.regex = re.compile(out + r"\Z")
        self.family = families > 0

    def match(self, path):
        """None, or the unit `path` is in: the folder a family pattern matched ('' otherwise)."""
        m = self.regex.match(os.path.basename(path) if self.by_name else path)
        if not m:
            return None
        return "/".join(m.groups()) if self.family else ""


class Layer:
    def __init__(self, name, patterns, allowed, row):
        self.name, self.patterns, self.allowed, self.row = name, patterns, allowed, row


def read_rules(path):
    """The layers of the table under HEADING in `path`, in table order."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise RulesError(f"{path}: {e.strerror}") from e
    try:
        start = lines.index(HEADING)
    except ValueError:
        raise RulesError(f'{path}: no heading "{HEADING}"') from None
    layers, in_table = [], False
    for n in range(start + 1, len(lines)):
        line = lines[n].strip()
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            if in_table:
                break
            continue
        in_table = True
        cells = [c.strip() for c in line.strip("|").split("|")]
        if set("".join(cells)) <= set("-: ") or cells[0] == "Layer":
            continue  # the header row and its rule
        where = f"{path}:{n + 1}"
        if len(cells) < 3:
            raise RulesError(f"{where}: a layer row needs a layer, its files and what it may include")
        name = TICKED.findall(cells[0])
        patterns = TICKED.findall(cells[1])
        if not name or not patterns:
            raise RulesError(f"{where}: the row names no `layer` or no `file pattern`")
        allowed = TICKED.findall(cells[-1])
        if "*" in allowed:  # every layer above
            allowed = [l.name for l in layers] + [a for a in allowed if a != "*"]
        layers.append(Layer(name[0], [Pattern(p) for p in patterns], allowed, where))
    if not layers:
        raise RulesError(f"{path}: no layer table under \"{HEADING}\"")
    seen = {}
    for i, layer in enumerate(layers):
        if layer.name in seen:
            raise RulesError(f"{layer.row}: layer `{layer.name}` is already the row at {seen[layer.name].row}")
        seen[layer.name] = layer
        for other in layer.allowed:
            if other == layer.name:
                continue
            if other not in {l.name for l in layers}:
                raise RulesError(f"{layer.row}: `{layer.name}` may include `{other}`, which is no layer of the table")
            if other not in {l.name for l in layers[:i]}:
                raise RulesError(f"{layer.row}: `{layer.name}` may include `{other}`, a layer listed below it "
                                 "(arrows run one way: a layer includes only layers listed above it)")
    return layers


def layer_of(layers, path):
    """(layer, unit, pattern) of the repository path `path`, or None when no row holds it."""
    best = None
    for layer in layers:
        for p in layer.patterns:
            unit = p.match(path)
            if unit is None:
                continue
            rank = (p.by_name, p.literal)
            if best is None or rank > best[0]:
                best = (rank, layer, unit, p)
    return None if best is None else best[1:]


# The one kind of include the tree holds no file for: a Vulkan twin's embedded SPIR-V words
# (`#include "NAME_vulkan.spv.inc"`), which the build writes from NAME_vulkan.comp
# (CMakeLists.txt, tools/spirv_strict.py). Only a bare file name with this suffix.
GENERATED_SUFFIX = ".spv.inc"


def resolve(root, including, kind, name):
    """The repository path `name` (#include "name" or <name>) of `including` reaches, or None."""
    candidates = ([os.path.dirname(including)] if kind == '"' else []) + list(SEARCH_PATH)
    for base in candidates:
        rel = os.path.normpath(os.path.join(base, name))
        if not rel.startswith("..") and os.path.isfile(os.path.join(root, rel)):
            return rel.replace(os.sep, "/")
    return None


def scan(root, folders):
    """Every file to check under `folders` of `root`, as sorted repository paths."""
    out = []
    for folder in folders:
        for base, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for f in files:
                if f.endswith(EXTENSIONS):
                    out.append(os.path.relpath(os.path.join(base, f), root).replace(os.sep, "/"))
    return sorted(out)


def check(root, rules, folders):
    """The broken rules in the tree at `root`, one message each ("FILE:LINE: ...")."""
    layers = read_rules(rules)
    problems = []
    for path in scan(root, folders):
        home = layer_of(layers, path)
        if home is None:
            problems.append(f"{path}:1: the file is in no layer of the table ({rules}): add its folder to a row")
            continue
        layer, unit, _ = home
        try:
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as e:
            problems.append(f"{path}:1: unreadable: {e.strerror}")
            continue
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            shown = f'"{name}"' if kind == '"' else f"<{name}>"
            target = resolve(root, path, kind, name)
            if target is None and kind == '"' and name.endswith(GENERATED_SUFFIX) and "/" not in name:
                continue  # a Vulkan twin's SPIR-V words, written at build time beside no source
            if target is None:
                if kind == '"':
                    problems.append(f"{path}:{n}: #include {shown} names no file of the tree "
                                    f"(looked beside the file and in {', '.join(SEARCH_PATH)})")
                continue  # a system header
            there = layer_of(layers, target)
            if there is None:
                problems.append(f"{path}:{n}: #include {shown}: {target} is in no layer of the table ({rules})")
                continue
            other, other_unit, other_pattern = there
            if other is layer:
                if unit != other_unit:
                    problems.append(f"{path}:{n}: #include {shown}: `{layer.name}` folder {unit} includes another "
                                    f"`{layer.name}` folder, {other_unit} (each folder of "
                                    f"{other_pattern.text} includes only itself and the layers its row names; "
                                    f"what two share goes to a layer both may include)")
                continue
            if other.name not in layer.allowed:
                may = ", ".join(f"`{a}`" for a in layer.allowed) or "nothing of vmafx"
                problems.append(f"{path}:{n}: #include {shown}: layer `{layer.name}` may not include layer "
                                f"`{other.name}` ({target}); `{layer.name}` may include {may} "
                                f"({layer.row})")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        help="the repository (default: this script's parent folder)")
    parser.add_argument("--rules", help="the rule book (default: ROOT/docs/design.md)")
    parser.add_argument("folders", nargs="*", default=["src", "include", "tools"],
                        help="folders of ROOT to check (default: src include tools)")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    rules = args.rules or os.path.join(root, "docs", "design.md")
    try:
        problems = check(root, rules, args.folders)
    except RulesError as e:
        print(f"check_includes: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"check_includes: {len(problems)} include(s) break the house's rules ({rules})", file=sys.stderr)
        return 1
    print(f"check_includes: {len(scan(root, args.folders))} files follow the house's rules ({rules})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
