#!/usr/bin/env python3
"""Where the release wasm's bytes go: each file of the split build, and the main module by crate and by Concord module.

First the files `cargo xtask build` (release) leaves in site/pkg-<hash>/: the main module (`concord_bg.wasm`,
what the page loads before anything shows) and every chunk a screen fetches when its tab first
opens (`split_screen_<screen>.wasm`, the shared `chunk_<n>.wasm`), with the JavaScript glue:
bytes as shipped, gzip -9 and the build's brotli (`F.br`). Then, with twiggy, the main module by
crate and by Concord module: the splitter's main module
(target/wasm32-unknown-unknown/wasm-release/concord_web_split.wasm) through the same
wasm-bindgen (`--keep-lld-exports`) and `wasm-opt -Oz` as the build, keeping the function names
(`-g`); the optimized module with names is the shipped one plus its name section, so the sizes
are those of the shipped code. Without twiggy (`cargo install twiggy`) only the first table.

    cargo xtask build && python3 benches/wasm_size.py [--top 25]
"""

import argparse
import collections
import csv
import glob
import gzip
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wasm_features():
    """The feature flags the build passes to wasm-opt, read from xtask/src/build.rs."""
    with open(os.path.join(ROOT, "xtask/src/build.rs")) as f:
        src = f.read()
    block = re.search(r"const WASM_FEATURES: &\[&str\] = &\[(.*?)\];", src, re.S)
    return re.findall(r'"(--enable-[a-z-]+)"', block.group(1))


def crate_of(name):
    paths = re.findall(r"([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::", name)
    if paths:
        return paths[0]
    if name.startswith("data segment"):
        return "(data segments)"
    return "(other: exports, tables, glue)"


def kb(n):
    return f"{n / 1024:,.1f} KB"


def pkg_files(pkg):
    """pkg's shipped files: the main module first, then the chunks by size, then the JS glue."""
    names = [n for n in os.listdir(pkg) if n.endswith((".wasm", ".js"))]
    wasm = sorted((n for n in names if n.endswith(".wasm") and n != "concord_bg.wasm"),
                  key=lambda n: -os.path.getsize(os.path.join(pkg, n)))
    js = sorted(n for n in names if n.endswith(".js"))
    return (["concord_bg.wasm"] if "concord_bg.wasm" in names else []) + wasm + js


def file_table(pkg):
    """Bytes, gzip -9 and brotli (the build's `.br`) of every file pkg ships."""
    print("| file | bytes | gzip -9 | brotli |\n|---|---:|---:|---:|")
    totals = collections.Counter()
    for name in pkg_files(pkg):
        path = os.path.join(pkg, name)
        with open(path, "rb") as f:
            data = f.read()
        gz = len(gzip.compress(data, 9, mtime=0))
        br = os.path.getsize(path + ".br") if os.path.exists(path + ".br") else None
        kind = "main" if name in ("concord_bg.wasm", "concord.js") else "chunk" if name.endswith(".wasm") else "js"
        totals[(kind, "bytes")] += len(data)
        totals[(kind, "gz")] += gz
        totals[(kind, "br")] += br or 0
        label = f"**{name}** (main module)" if name == "concord_bg.wasm" else f"`{name}`"
        print(f"| {label} | {kb(len(data))} | {kb(gz)} | {kb(br) if br is not None else '–'} |")
    for kind, what in (("main", "main module + `concord.js` (before the Data screen)"),
                       ("chunk", "every chunk (fetched when a screen first opens)")):
        print(f"| {what} | {kb(totals[(kind, 'bytes')])} | {kb(totals[(kind, 'gz')])} | "
              f"{kb(totals[(kind, 'br')]) if totals[(kind, 'br')] else '–'} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    built = sorted(glob.glob(os.path.join(ROOT, "site", "pkg-*")))
    ap.add_argument("--pkg", default=built[-1] if built else os.path.join(ROOT, "site", "pkg-<hash>"))
    ap.add_argument("--wasm", default=os.path.join(
        ROOT, "target/wasm32-unknown-unknown/wasm-release/concord_web_split.wasm"),
        help="the splitter's main module, before wasm-bindgen")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.pkg, "concord_bg.wasm")):
        sys.exit(f"missing {args.pkg}/concord_bg.wasm: run `cargo xtask build` first")
    if not any(n.startswith("split_") for n in os.listdir(args.pkg)):
        print(f"note: {args.pkg} holds no chunk: it is a `--dev` build, not the release one\n")
    file_table(args.pkg)
    bindgen = os.path.join(ROOT, "target/tools/bin/wasm-bindgen")
    wasm_opt = os.path.join(ROOT, "node_modules/binaryen/bin/wasm-opt")
    for tool in (args.wasm, bindgen, wasm_opt):
        if not os.path.exists(tool):
            sys.exit(f"\nmissing {tool}: run `cargo xtask build` (release) first")
    if shutil.which("twiggy") is None:
        print("\ntwiggy not found (`cargo install twiggy`): no breakdown by crate")
        return
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([bindgen, "--target", "web", "--keep-lld-exports", "--out-dir", tmp,
                        "--out-name", "concord", args.wasm], check=True)
        named = os.path.join(tmp, "named.wasm")
        subprocess.run([wasm_opt, "-g", "-Oz", "--strip-producers", *wasm_features(),
                        os.path.join(tmp, "concord_bg.wasm"), "-o", named], check=True)
        out = subprocess.run(["twiggy", "top", "-n", "1000000", "-f", "csv", named],
                             check=True, capture_output=True, text=True).stdout
    by_crate = collections.Counter()
    by_module = collections.Counter()
    serde = collections.Counter()
    total = 0
    for row in csv.DictReader(io.StringIO(out)):
        name, size = row["Name"], int(row["ShallowSize"])
        if "subsection" in name or name.startswith("custom section"):
            continue  # the names themselves: not shipped
        total += size
        by_crate[crate_of(name)] += size
        module = re.findall(r"(concord_(?:web|core)(?:::[a-z_0-9]+){0,2})", name)
        if module:
            by_module[module[0]] += size
        for backend in ("serde_json", "postcard", "serde_core"):
            if backend in name:
                serde[backend] += size
                break

    def table(title, counter):
        print(f"\n| {title} | bytes | share |\n|---|---:|---:|")
        for key, size in counter.most_common(args.top):
            print(f"| `{key}` | {size:,} | {100 * size / total:.1f} % |")

    print(f"\nthe main module without names: {total:,} bytes")
    table("crate (first path in the symbol)", by_crate)
    table("Concord module", by_module)
    table("serde back end", serde)


if __name__ == "__main__":
    main()
