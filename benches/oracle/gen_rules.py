#!/usr/bin/env python3
"""Random cases for the four reporting rules STATS_SPEC states plainly (issue 20, "Correct tables").

    python benches/oracle/gen_rules.py crates/core/tests/fixtures/stats

writes `rules.cases.json` and `rules.expected.json` there; the expected values come from
oracle.py (scipy / krippendorff / scikit-learn / statsmodels), the versions in the `oracle`
block. Seeded (`numpy.random.default_rng(20261126)`), so a rerun writes the same files.

The cases are built so every rule decides part of the output:
* §6: correlation cases with groups whose items are all missing (x, y, or alternately one of
  the two), placed first, last, interleaved, with int and string ids, and groups that only
  appear with missing items — each must be listed with size 0 and null values;
* §8: group-level resampling where some groups lose every used item (missing in human, A or
  B), so `group_ids` is a strict subset of the input's groups, in first-appearance order;
* §10: agreement matrices whose α is null for each reason the package gives — constant
  matrices (also with declared categories and missing ratings), no pairable unit, an empty
  matrix, constant pairable values beside a different unpairable one (D_e = 0, NaN in the
  package), labels at the ordinal / interval / ratio levels — next to defined ones;
* §11: continuous ratings (2 and 3 raters, with missing values) with no declared categories
  (every κ null), the same ratings with declared categories (κ computed), and integral floats
  (2.0, 3.0: categorical, κ computed).
"""
import json
import os
import sys

import numpy as np

import oracle

rng = np.random.default_rng(20261126)
cases = []


def add(**c):
    cases.append(c)


def likert(n, lo=1, hi=5):
    return [int(v) for v in rng.integers(lo, hi + 1, n)]


def cont(n, loc=0.0, scale=1.0, nd=3):
    return [round(float(v), nd) for v in rng.normal(loc, scale, n)]


def holes(v, p):
    return [None if rng.random() < p else a for a in v]


# ------------------------------------------------------------------ §6 all-missing groups
for i in range(12):
    n_groups = int(rng.integers(2, 8))
    ids = [f"d{g}" for g in range(n_groups)] if i % 2 == 0 else [int(g) * 7 - 3 for g in range(n_groups)]
    sizes = [int(rng.integers(1, 6)) for _ in ids]
    if i % 3 == 0:  # interleave the groups' items
        groups = [g for g, s in zip(ids, sizes) for _ in range(s)]
        groups = [groups[j] for j in rng.permutation(len(groups))]
    else:
        groups = [g for g, s in zip(ids, sizes) for _ in range(s)]
    n = len(groups)
    x = likert(n) if i % 4 < 2 else cont(n, 3, 1)
    y = cont(n, 0, 1) if i % 4 < 2 else likert(n, 1, 7)
    x, y = holes(x, 0.1), holes(y, 0.1)
    # one to three groups lose every pair: x missing, y missing, or one of the two per item
    dead = {ids[int(j)] for j in rng.choice(n_groups, int(rng.integers(1, min(3, n_groups) + 1)),
                                           replace=False)}
    if i == 0:
        dead.add(groups[0])  # the input's first group
    how = int(rng.integers(0, 3))
    for k, g in enumerate(groups):
        if g in dead:
            if how == 0 or (how == 2 and k % 2 == 0):
                x[k] = None
            else:
                y[k] = None
    add(id=f"g6-rand-{i}", kind="correlation", x=x, y=y, groups=groups,
        kendall_like_thresh=float(round(rng.uniform(0.5, 2), 2)), epsilon=float(round(rng.uniform(0, 0.3), 2)))
add(id="g6-only-group-missing", kind="correlation", x=[None, None, None], y=[1, 2, 3], groups=["a", "a", "a"])
add(id="g6-every-group-missing", kind="correlation", x=[1, None, 2, None], y=[None, 3, None, 4],
    groups=["a", "a", "b", "b"])
add(id="g6-missing-last", kind="correlation", x=[1, 2, 3, 4, 5, None], y=[2, 1, 4, 3, 5, 1],
    groups=["p", "p", "p", "q", "q", "r"], kendall_like_thresh=1)
add(id="g6-int-vs-string-ids", kind="correlation", x=[1, 2, None, None, 3, 4], y=[1, 3, 2, 2, 5, 4],
    groups=[1, 1, "1", "1", 2, 2], kendall_like_thresh=1)

# ------------------------------------------------------------------ §8 group_ids of resampling


def boot(nlen, B):
    return [[int(i) for i in rng.integers(0, nlen, nlen)] for _ in range(B)] if nlen else []


def masks(nlen, K):
    return [[int(i) for i in rng.integers(0, 2, nlen)] for _ in range(K)]


for i in range(8):
    n_groups = int(rng.integers(3, 8))
    ids = [f"sys{g}" for g in range(n_groups)] if i % 2 else [int(g) for g in range(n_groups)]
    sizes = [int(rng.integers(1, 6)) for _ in ids]
    groups = [g for g, s in zip(ids, sizes) for _ in range(s)]
    if i % 3 == 2:
        groups = [groups[j] for j in rng.permutation(len(groups))]
    n = len(groups)
    h = likert(n)
    a = [round(v + float(rng.normal(0, 1)), 2) for v in h]
    b = [round(v + float(rng.normal(0, 2)), 2) for v in h]
    h, a, b = holes(h, 0.05), holes(a, 0.05), holes(b, 0.05)
    dead = {ids[int(j)] for j in rng.choice(n_groups, int(rng.integers(1, n_groups)), replace=False)}
    which = [h, a, b][i % 3]
    for k, g in enumerate(groups):
        if g in dead:
            which[k] = None
    used = [k for k in range(n) if h[k] is not None and a[k] is not None and b[k] is not None]
    used_groups = len(dict.fromkeys(json.dumps(groups[k]) for k in used))
    add(id=f"r8-rand-{i}", kind="resampling", human=h, metric_a=a, metric_b=b, groups=groups,
        level="group", confidence=0.9, stats=["pearson", "kendall_b", "spearman"],
        boot_indices=boot(used_groups, 12), perm_masks=masks(len(used), 9))
add(id="r8-dataset-level-has-no-group-ids", kind="resampling", human=[1, 2, 3, 4, 5],
    metric_a=[1, 3, 2, 5, 4], metric_b=[2, 1, 3, 4, 5], groups=["a", "a", "b", "b", "b"],
    level="dataset", stats=["pearson"], boot_indices=[[0, 1, 2, 3, 4], [4, 4, 3, 2, 1]],
    perm_masks=[[0, 1, 0, 1, 0]])
add(id="r8-first-group-gone", kind="resampling", human=[None, None, 1, 2, 3, 4, 5, 6],
    metric_a=[1, 2, 2, 1, 3, 4, 6, 5], metric_b=[2, 1, 1, 3, 2, 4, 5, 6],
    groups=["z", "z", "y", "y", "y", "x", "x", "x"], level="group", stats=["pearson", "kendall_b"],
    boot_indices=[[0, 1], [1, 1], [0, 0]], perm_masks=[[0, 1, 0, 1, 0, 1]])

# ------------------------------------------------------------------ §10 null α with a reason
for i in range(6):
    r, u = int(rng.integers(2, 5)), int(rng.integers(2, 9))
    v = int(rng.integers(1, 6))
    m = [[v] * u for _ in range(r)]
    m = [holes(row, 0.2) for row in m]
    add(id=f"a10-constant-{i}", kind="agreement", ratings=m,
        **({"categories": [1, 2, 3, 4, 5]} if i % 2 else {}))
add(id="a10-constant-float", kind="agreement", ratings=[[2.5, 2.5, 2.5], [2.5, 2.5, 2.5]])
add(id="a10-no-pairable", kind="agreement", ratings=[[1, None, 3], [None, 2, None]])
add(id="a10-no-pairable-one-value", kind="agreement", ratings=[[4, None], [None, 4]])
add(id="a10-all-missing", kind="agreement", ratings=[[None, None], [None, None]])
add(id="a10-empty", kind="agreement", ratings=[[], []])
add(id="a10-de-zero", kind="agreement", ratings=[[3, 3, 3, None], [3, 3, 3, 1]])
add(id="a10-de-zero-3r", kind="agreement", ratings=[[2, 2, None], [2, 2, None], [None, None, 5]])
# Three raters: with two, the weighted κ of labels differs (Concord: null, labels have no order;
# scikit-learn: index weights over the sorted labels) — outside the four rules, left as it is.
add(id="a10-labels", kind="agreement", ratings=[["good", "bad", "good", None], ["good", "ok", "bad", "ok"],
                                                 ["good", "ok", "good", "ok"]])
add(id="a10-labels-constant", kind="agreement", ratings=[["ok", "ok"], ["ok", "ok"]])
for i in range(4):
    add(id=f"a10-defined-{i}", kind="agreement", ratings=[holes(likert(10), 0.2) for _ in range(3)])

# ------------------------------------------------------------------ §11 κ on continuous ratings
for i in range(6):
    r = 2 if i < 4 else 3
    base = cont(10, 3, 1, 2)
    m = [holes([round(v + float(rng.normal(0, 0.3)), 2) for v in base], 0.1) for _ in range(r)]
    add(id=f"k11-continuous-{i}", kind="agreement", ratings=m)
add(id="k11-continuous-declared", kind="agreement", ratings=[[0.5, 1.0, 1.5, 1.0], [0.5, 1.5, 1.5, 0.5]],
    categories=[0.5, 1.0, 1.5])
add(id="k11-one-half-value", kind="agreement", ratings=[[1, 2, 3, 4, 5], [1, 2, 3, 4, 4.5]])
add(id="k11-integral-floats", kind="agreement", ratings=[[1.0, 2.0, 3.0, 3.0], [1.0, 2.0, 2.0, 3.0]])
add(id="k11-continuous-one-rater-of-three", kind="agreement",
    ratings=[[1, 2, 3, 4], [1, 2, 3, 3], [1.25, 2, 3, 4]])
add(id="k11-continuous-constant", kind="agreement", ratings=[[0.3, 0.3], [0.3, 0.3]])


def main(out_dir):
    for c in cases:
        c.setdefault("id", f"case{len(cases)}")
    results = [oracle.compute(c) for c in cases]
    from importlib.metadata import version
    header = {"oracle_version": 1, "python": sys.version.split()[0],
              **{p: version(p) for p in ("numpy", "scipy", "krippendorff", "scikit-learn",
                                         "statsmodels")},
              "script": "benches/oracle/gen_rules.py (values: benches/oracle/oracle.py)"}
    with open(os.path.join(out_dir, "rules.cases.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, "rules.expected.json"), "w") as f:
        json.dump({"oracle": header, "results": results}, f, indent=1)
        f.write("\n")
    print("wrote", len(cases), "cases to", out_dir)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
