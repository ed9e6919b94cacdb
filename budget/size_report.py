#!/usr/bin/env python3
"""Print the size of the built page's code and fail when it exceeds the budget.

Usage: size_report.py DIST_DIR BUDGET_FILE [WORKER_BUDGET_FILE]

For every .wasm, .js and .css file in DIST_DIR (recursively) prints raw, gzip
(level 9) and brotli (quality 11) bytes, then the totals. Exits 1 when the gzip
total exceeds the budget, the one number in BUDGET_FILE ('#' starts a comment).
The explorer's Web Worker (files named lousa-worker*) is not part of the
reader's first load: its files get a table and a total of their own, held to
WORKER_BUDGET_FILE when given, and count nothing towards the page's total.
Gzip is the budget's measure because every server and browser speaks it;
brotli is shown because it is what most readers actually download.
Brotli comes from the `brotli` command (Debian package `brotli`): Python's
standard library has no brotli module.
"""

import gzip
import pathlib
import shutil
import subprocess
import sys

MEASURED_SUFFIXES = (".wasm", ".js", ".css")
# Trunk names a worker's files after its binary, without a hash
# (index.html, the link with data-type="worker").
WORKER_PREFIX = "lousa-worker"


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


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    dist, budget_file = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    worker_budget_file = pathlib.Path(sys.argv[3]) if len(sys.argv) == 4 else None
    if shutil.which("brotli") is None:
        print("size report: the `brotli` command is missing (apt-get install brotli)", file=sys.stderr)
        return 2
    files = measured_files(dist)
    if not files:
        print(f"size report: no .wasm/.js/.css files in {dist}; build first", file=sys.stderr)
        return 2

    page_rows, worker_rows = [], []
    for path in files:
        data = path.read_bytes()
        row = (str(path.relative_to(dist)), len(data), gzip_bytes(data), brotli_bytes(path))
        (worker_rows if path.name.startswith(WORKER_PREFIX) else page_rows).append(row)
    if not page_rows:
        print(f"size report: only the worker's files in {dist}; build the page first", file=sys.stderr)
        return 2

    ok = check("page", print_table("file", page_rows)[2], budget_file)
    if worker_rows:
        print()
        worker_total = print_table("worker (fetched when a page starts it)", worker_rows)
        if worker_budget_file is not None:
            ok = check("worker", worker_total[2], worker_budget_file) and ok
        else:
            print(f"\nworker: gzip total {worker_total[2]:,} B (no budget given)")
    elif worker_budget_file is not None:
        print(f"size report: no {WORKER_PREFIX}* files in {dist}, but a worker budget was given", file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
