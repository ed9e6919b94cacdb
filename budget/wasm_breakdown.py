#!/usr/bin/env python3
"""Print what each crate costs in a wasm file: code bytes per crate.

Usage: wasm_breakdown.py WASM [TOP]

Reads the function bodies of the code section and the function names of the
"name" section (legacy-mangled Rust names), and sums the
body sizes by the crate each name starts with (`<tachys::… as …>::build` is
tachys). Run it on the wasm cargo builds, before wasm-bindgen and wasm-opt
strip the names: the figures are raw bytes before `wasm-opt -Oz`, so they
rank the crates rather than give the shipped size, which the size report
prints. Standard library only, no tool to install.
"""

import pathlib
import re
import sys


def leb(data: bytes, at: int) -> tuple[int, int]:
    """An unsigned LEB128 number at `at`, and the offset after it."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def name(data: bytes, at: int) -> tuple[str, int]:
    length, at = leb(data, at)
    return data[at : at + length].decode("utf-8", "replace"), at + length


def sections(data: bytes):
    at = 8  # magic and version
    while at < len(data):
        kind = data[at]
        size, start = leb(data, at + 1)
        yield kind, data[start : start + size]
        at = start + size


def imported_functions(body: bytes) -> int:
    count, at = leb(body, 0)
    functions = 0
    for _ in range(count):
        _, at = name(body, at)
        _, at = name(body, at)
        kind = body[at]
        at += 1
        if kind == 0:  # function: a type index
            _, at = leb(body, at)
            functions += 1
        elif kind == 1:  # table: element type, limits
            at += 1
            flags, at = leb(body, at + 0)
            _, at = leb(body, at)
            if flags & 1:
                _, at = leb(body, at)
        elif kind == 2:  # memory: limits
            flags, at = leb(body, at)
            _, at = leb(body, at)
            if flags & 1:
                _, at = leb(body, at)
        elif kind == 3:  # global: type, mutability
            at += 2
        else:
            raise SystemExit(f"unknown import kind {kind}")
    return functions


def function_sizes(body: bytes) -> list[int]:
    count, at = leb(body, 0)
    sizes = []
    for _ in range(count):
        size, start = leb(body, at)
        sizes.append(size + (start - at))
        at = start + size
    return sizes


def function_names(body: bytes) -> dict[int, str]:
    _, at = name(body, 0)  # the custom section's own name
    names = {}
    while at < len(body):
        sub = body[at]
        size, start = leb(body, at + 1)
        if sub == 1:
            count, pos = leb(body, start)
            for _ in range(count):
                index, pos = leb(body, pos)
                text, pos = name(body, pos)
                names[index] = text
        at = start + size
    return names


IDENT = re.compile(r"[a-z_][a-z0-9_]*")
STD = ("core", "alloc", "std", "dlmalloc", "__rustc")
# Functions that only describe types to the wasm-bindgen command, which runs
# them and removes them: not shipped.
DESCRIBE = "(wasm-bindgen descriptors)"


def crate_of(function: str) -> str:
    """The crate a mangled Rust name belongs to: the first path that names
    a crate (for `<T as tachys::view::Render>::build`, the trait's crate)."""
    if "wbindgen_describe" in function:
        return DESCRIBE
    if function.startswith("__wbindgen") or function.startswith("__wbg"):
        return "wasm_bindgen"
    if function.startswith("_R"):  # v0 mangling: crate roots are C<disambiguator>_<len><name>
        match = re.search(r"C(?:s[0-9A-Za-z]*_)?(\d+)", function)
        crate = function[match.end() : match.end() + int(match.group(1))] if match else ""
    elif function.startswith("_ZN"):  # legacy: length-prefixed parts, `..` for `::`
        match = re.match(r"_ZN(\d+)", function)
        first = function[match.end() : match.end() + int(match.group(1))]
        first = first.replace("$u20$", " ").replace("..", "::")
        if "::" in first:  # `<A as B>` or `<&T>`: the first path in it
            paths = [m.group(0) for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*(?=::)", first)]
            crate = paths[0] if paths else ""
        else:
            crate = first
    else:
        return "(other)"
    crate = crate.lstrip("_") if crate.startswith("__rustc") else crate
    if crate in STD or crate.startswith("rustc"):
        return "std"
    return crate if IDENT.fullmatch(crate) else "(other)"


def main() -> None:
    path = pathlib.Path(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    data = path.read_bytes()
    imports, sizes, names = 0, [], {}
    for kind, body in sections(data):
        if kind == 2:
            imports = imported_functions(body)
        elif kind == 10:
            sizes = function_sizes(body)
        elif kind == 0 and body[1 : 1 + body[0]] == b"name":
            names = function_names(body)
    by_crate: dict[str, int] = {}
    for i, size in enumerate(sizes):
        crate = crate_of(names.get(imports + i, ""))
        by_crate[crate] = by_crate.get(crate, 0) + size
    removed = by_crate.pop(DESCRIBE, 0)
    total = sum(by_crate.values())
    print(
        f"code by crate, raw bytes before wasm-bindgen and wasm-opt ({path.name}: {total:,} bytes, "
        f"besides {removed:,} of descriptors wasm-bindgen removes):"
    )
    ranked = sorted(by_crate.items(), key=lambda kv: -kv[1])
    for crate, size in ranked[:top]:
        print(f"  {crate:<22} {size:>9,}  {100 * size / total:5.1f}%")
    rest = sum(size for _, size in ranked[top:])
    if rest:
        print(f"  {'(' + str(len(ranked) - top) + ' more)':<22} {rest:>9,}  {100 * rest / total:5.1f}%")


if __name__ == "__main__":
    main()
