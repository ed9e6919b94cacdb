#!/usr/bin/env python3
"""Print the size of the built page's code and fail when it exceeds the budget.

Usage: size_report.py DIST_DIR BUDGET_FILE [WORKER_BUDGET_FILE [WORKSHOP_BUDGET_FILE]]

For every .wasm, .js and .css file in DIST_DIR (recursively) prints raw, gzip
(level 9) and brotli (quality 11) bytes, then the totals. Exits 1 when the gzip
total exceeds the budget, the one number in BUDGET_FILE ('#' starts a comment).
Two sets of files are not part of the reader's first load, and each gets a
table and a total of its own, held to its budget file when given, counting
nothing towards the page's total: the explorer's Web Worker (files named
lousa-worker*, WORKER_BUDGET_FILE) and the workshop view, which only
?modo=oficina fetches (files named lousa-workshop* and the workshop's
stylesheet, copied into DIST_DIR/workshop/; WORKSHOP_BUDGET_FILE). A
wasm-bindgen snippet (snippets/...) counts where the glue that imports it
does, and with the page when no glue names it.
Gzip is the budget's measure because every server and browser speaks it;
brotli is shown because it is what most readers actually download.
Brotli comes from the `brotli` command (Debian package `brotli`): Python's
standard library has no brotli module.
"""

import gzip
import pathlib
import re
import shutil
import subprocess
import sys

MEASURED_SUFFIXES = (".wasm", ".js", ".css")
# Trunk names a worker's files after its binary, without a hash
# (index.html, the links with data-type="worker": the explorer's worker and
# the workshop view).
WORKER_PREFIX = "lousa-worker"
WORKSHOP_PREFIX = "lousa-workshop"
# Where index.html's copy-file link puts workshop/style.css (data-target-path).
WORKSHOP_DIR = "workshop"
# How a wasm-bindgen glue names the snippets it imports.
SNIPPET_IMPORT = re.compile(r"""\bsnippets/[^"'`]+""")


def read_budget_bytes(budget_file: pathlib.Path) -> int:
    """The single integer in the budget file, ignoring comments and blank lines."""
    numbers = []
    for line in budget_file.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            numbers.append(int(text))
    if len(numbers) != 1:
        raise SystemExit(f"{budget_file}: expected exactly one number, found {numbers}")
    return numbers[0]


def gzip_bytes(data: bytes) -> int:
    # mtime=0 keeps the size independent of when the report runs.
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def brotli_bytes(path: pathlib.Path) -> int:
    compressed = subprocess.run(
        ["brotli", "--stdout", "--quality=11", str(path)],
        check=True,
        capture_output=True,
    ).stdout
    return len(compressed)


def measured_files(dist: pathlib.Path) -> list[pathlib.Path]:
    # Skips hidden folders such as Trunk's .stage/, left behind by a failed build.
    return sorted(
        p
        for p in dist.rglob("*")
        if p.is_file() and p.suffix in MEASURED_SUFFIXES and not any(part.startswith(".") for part in p.relative_to(dist).parts)
    )


def print_table(title: str, rows: list[tuple[str, int, int, int]]) -> tuple[str, int, int, int]:
    """Prints `rows` under `title`, then their total, and returns the total."""
    total = ("total", *(sum(row[i] for row in rows) for i in (1, 2, 3)))
    name_width = max(len(row[0]) for row in rows + [total, (title,)])
    header = f"{title:<{name_width}}  {'raw':>10}  {'gzip':>10}  {'brotli':>10}"
    print(header)
    print("-" * len(header))
    for name, raw, gz, br in rows + [total]:
        if name == "total":
            print("-" * len(header))
        print(f"{name:<{name_width}}  {raw:>10,}  {gz:>10,}  {br:>10,}")
    return total


def check(what: str, total_gzip_bytes: int, budget_file: pathlib.Path) -> bool:
    """Prints the total against the budget in `budget_file`; False when over."""
    budget_gzip_bytes = read_budget_bytes(budget_file)
    share = 100 * total_gzip_bytes / budget_gzip_bytes
    print(f"\n{what}: gzip total {total_gzip_bytes:,} B of budget {budget_gzip_bytes:,} B ({share:.0f}%), budget from {budget_file}")
    if total_gzip_bytes > budget_gzip_bytes:
        print(f"{what}: OVER BUDGET by {total_gzip_bytes - budget_gzip_bytes:,} B", file=sys.stderr)
        return False
    return True


def part_of(relative: pathlib.PurePath) -> str:
    """Which table a file of dist/ (a path relative to it) belongs to, by its name."""
    if relative.name.startswith(WORKER_PREFIX):
        return "worker"
    if relative.name.startswith(WORKSHOP_PREFIX) or relative.parts[0] == WORKSHOP_DIR:
        return "workshop"
    return "page"


def snippet_owners(dist: pathlib.Path, files: list[pathlib.Path]) -> dict[str, set[str]]:
    """For each snippet a glue imports (its path relative to dist), the parts whose glue does."""
    owners: dict[str, set[str]] = {}
    for path in files:
        relative = path.relative_to(dist)
        if path.suffix != ".js" or relative.parts[0] == "snippets":
            continue
        for name in SNIPPET_IMPORT.findall(path.read_text(encoding="utf-8", errors="replace")):
            owners.setdefault(name, set()).add(part_of(relative))
    return owners


def main() -> int:
    if len(sys.argv) not in (3, 4, 5):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    dist, budget_file = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    worker_budget_file = pathlib.Path(sys.argv[3]) if len(sys.argv) >= 4 else None
    workshop_budget_file = pathlib.Path(sys.argv[4]) if len(sys.argv) == 5 else None
    if shutil.which("brotli") is None:
        print("size report: the `brotli` command is missing (apt-get install brotli)", file=sys.stderr)
        return 2
    files = measured_files(dist)
    if not files:
        print(f"size report: no .wasm/.js/.css files in {dist}; build first", file=sys.stderr)
        return 2

    owners = snippet_owners(dist, files)
    rows: dict[str, list[tuple[str, int, int, int]]] = {"page": [], "worker": [], "workshop": []}
    for path in files:
        relative = path.relative_to(dist)
        data = path.read_bytes()
        row = (str(relative), len(data), gzip_bytes(data), brotli_bytes(path))
        parts = owners.get(relative.as_posix(), {"page"}) if relative.parts[0] == "snippets" else {part_of(relative)}
        for part in sorted(parts):
            rows[part].append(row)
    if not rows["page"]:
        print(f"size report: only the worker's and the workshop's files in {dist}; build the page first", file=sys.stderr)
        return 2

    ok = check("page", print_table("file", rows["page"])[2], budget_file)
    others = [
        ("worker", "worker (fetched when a page starts it)", WORKER_PREFIX, worker_budget_file),
        ("workshop", "workshop (fetched with ?modo=oficina)", WORKSHOP_PREFIX, workshop_budget_file),
    ]
    for part, title, prefix, part_budget_file in others:
        if rows[part]:
            print()
            total = print_table(title, rows[part])
            if part_budget_file is not None:
                ok = check(part, total[2], part_budget_file) and ok
            else:
                print(f"\n{part}: gzip total {total[2]:,} B (no budget given)")
        elif part_budget_file is not None:
            print(f"size report: no {prefix}* files in {dist}, but a {part} budget was given", file=sys.stderr)
            return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
