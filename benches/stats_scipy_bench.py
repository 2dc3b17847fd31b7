#!/usr/bin/env python3
"""scipy reference timings for `cargo xtask bench-stats`, on the inputs the native bench wrote.

    python3 benches/stats_scipy_bench.py --dir DIR --sizes 1600,100000,1000000 [--reps 5]
        prints one JSON object per line: {"case", "n", "seconds" (best of reps), "value"}
    python3 benches/stats_scipy_bench.py --process CASES.json
        the "whole process" reference: json.load + pearsonr, spearmanr, kendalltau (b and c)
        on the first correlation case (time the process from outside)

Case names match concord_core::stats::BenchCase::name. Inputs are raw little-endian f64 files
(NaN = missing) named <array>_<n>.f64.
"""

import argparse
import json
import os
import sys
import time
import warnings


def process(path):
    from scipy import stats
    with open(path) as f:
        case = json.load(f)["cases"][0]
    x, y = case["x"], case["y"]
    out = [stats.pearsonr(x, y)[0], stats.spearmanr(x, y)[0],
           stats.kendalltau(x, y, variant="b")[0], stats.kendalltau(x, y, variant="c")[0]]
    print(json.dumps(out))


def best_of(reps, fn):
    best, value = float("inf"), None
    for _ in range(reps):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir")
    ap.add_argument("--sizes", default="1600,100000,1000000")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--process")
    ap.add_argument("--group-resamples", type=int, default=10,
                    help="group bootstrap resamples actually run (time is scaled to 1,000)")
    args = ap.parse_args()
    if args.process:
        process(args.process)
        return
    import krippendorff
    import numpy as np
    from scipy import stats
    warnings.simplefilter("ignore")

    def load(name, n):
        return np.fromfile(os.path.join(args.dir, f"{name}_{n}.f64"), dtype="<f8")

    sizes = [int(s) for s in args.sizes.split(",")]
    for n in sizes:
        x, y, z = load("x", n), load("y", n), load("z", n)
        xl, yl = load("x_likert", n), load("y_likert", n)
        ratings = load("ratings", n).reshape(3, n)
        reps = min(args.reps, 3) if n >= 1_000_000 else args.reps
        cases = [
            ("pearson", lambda: stats.pearsonr(x, y)[0]),
            ("spearman", lambda: stats.spearmanr(x, y)[0]),
            ("kendall_b", lambda: stats.kendalltau(x, y)[0]),
            ("kendall_b_likert", lambda: stats.kendalltau(xl, yl)[0]),
            ("kendall_c", lambda: stats.kendalltau(x, y, variant="c")[0]),
            ("kripp_nominal", lambda: krippendorff.alpha(reliability_data=ratings,
                                                         level_of_measurement="nominal")),
            ("kripp_ordinal", lambda: krippendorff.alpha(reliability_data=ratings,
                                                         level_of_measurement="ordinal")),
            ("kripp_interval", lambda: krippendorff.alpha(reliability_data=ratings,
                                                          level_of_measurement="interval")),
        ]
        for name, fn in cases:
            seconds, value = best_of(reps, fn)
            print(json.dumps({"case": name, "n": n, "seconds": seconds, "value": float(value)}),
                  flush=True)
        if n != sizes[0]:
            continue
        m = min(n, 1600)
        rng = np.random.default_rng(7)
        h, a, b = x[:m], y[:m], z[:m]

        def boot():
            acc = 0.0
            for _ in range(1000):
                i = rng.integers(0, m, m)
                hi = h[i]
                acc += stats.pearsonr(hi, a[i])[0] - stats.pearsonr(hi, b[i])[0]
                acc += stats.kendalltau(hi, a[i])[0] - stats.kendalltau(hi, b[i])[0]
            return acc

        seconds, value = best_of(1, boot)
        print(json.dumps({"case": "bootstrap_1000x1600", "n": m, "seconds": seconds,
                          "value": None}), flush=True)
        docs = [np.arange(d * 16, (d + 1) * 16) for d in range(m // 16)]

        def group_boot():
            # The naive loop of §13: recompute every drawn document's correlations.
            acc = 0.0
            for _ in range(args.group_resamples):
                draw = rng.integers(0, len(docs), len(docs))
                for stat in (lambda p, q: stats.pearsonr(p, q)[0],
                             lambda p, q: stats.kendalltau(p, q)[0]):
                    va = np.mean([stat(h[docs[d]], a[docs[d]]) for d in draw])
                    vb = np.mean([stat(h[docs[d]], b[docs[d]]) for d in draw])
                    acc += va - vb
            return acc

        seconds, value = best_of(1, group_boot)
        print(json.dumps({"case": "group_bootstrap_1000x100x16", "n": m,
                          "seconds": seconds * 1000 / args.group_resamples, "value": None,
                          "extrapolated_from": args.group_resamples}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
