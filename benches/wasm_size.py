#!/usr/bin/env python3
"""Where the release wasm's bytes go, by crate and by Concord module.

Reads the wasm32 `wasm-release` build that `cargo xtask build --release` leaves in
target/wasm32-unknown-unknown/wasm-release/, runs the same wasm-bindgen and `wasm-opt -Oz` as
the build but keeps the function names (`-g`), and groups twiggy's per-item sizes. Needs
`cargo install twiggy`. The optimized module with names is the shipped one plus its name
section: the sizes are those of the shipped code.

    cargo xtask build --release && python3 benches/wasm_size.py [--top 25]
"""

import argparse
import collections
import csv
import io
import os
import re
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wasm", default=os.path.join(
        ROOT, "target/wasm32-unknown-unknown/wasm-release/concord_web.wasm"))
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    bindgen = os.path.join(ROOT, "target/tools/bin/wasm-bindgen")
    wasm_opt = os.path.join(ROOT, "node_modules/binaryen/bin/wasm-opt")
    for tool in (args.wasm, bindgen, wasm_opt):
        if not os.path.exists(tool):
            sys.exit(f"missing {tool}: run `cargo xtask build --release` first")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([bindgen, "--target", "web", "--out-dir", tmp, "--out-name", "concord",
                        args.wasm], check=True)
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

    print(f"shipped module without names: {total:,} bytes")
    table("crate (first path in the symbol)", by_crate)
    table("Concord module", by_module)
    table("serde back end", serde)


if __name__ == "__main__":
    main()
