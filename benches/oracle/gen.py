#!/usr/bin/env python3
"""Generate NEW audit cases (STATS_SPEC §14 format) -> audit.cases.json, and expected values via
oracle.py -> audit.expected.json."""
import json
import sys

import numpy as np

import oracle
import os
OUT = os.environ.get("OUT", "oracle-seed0")

rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 777123)
cases = []


def add(**c):
    cases.append(c)


def likert(n, lo=1, hi=5):
    return [int(v) for v in rng.integers(lo, hi + 1, n)]


def cont(n, loc=0.0, scale=1.0, nd=6):
    return [round(float(v), nd) for v in rng.normal(loc, scale, n)]


def holes(v, p):
    return [None if rng.random() < p else a for a in v]


# ------------------------------------------------------------------ correlation
for n in (2, 3, 4, 5, 7, 12, 25, 60, 150):
    x = cont(n, 0, 3)
    y = [round(a * rng.normal(0.5, 0.5) + float(rng.normal(0, 2)), 6) for a in x]
    add(id=f"c-rand-cont-n{n}", kind="correlation", x=x, y=y,
        kendall_like_thresh=float(round(rng.uniform(0.1, 3), 3)),
        epsilon=float(round(rng.uniform(0, 0.5), 3)))
for n in (3, 8, 30, 33, 34, 100):
    add(id=f"c-likert-n{n}", kind="correlation", x=likert(n), y=likert(n, 1, 7),
        kendall_like_thresh=2, epsilon=1)
# negative & large magnitude values
add(id="c-negative", kind="correlation", x=cont(20, -50, 10), y=cont(20, -1e-3, 1e-3, 9),
    kendall_like_thresh=5)
x = [1e9 + float(i) * 0.5 for i in rng.permutation(30)]
add(id="c-large-offset", kind="correlation", x=x, y=[v * 1e-9 + float(rng.normal(0, 1e-8)) for v in x])
add(id="c-huge-scale", kind="correlation", x=cont(15, 0, 1e150), y=cont(15, 0, 1e-150, 200))
add(id="c-near-constant-4dp", kind="correlation", x=[4.0001, 4.0002, 4.0003, 4.0001, 4.0004, 4.0002],
    y=[4.0002, 4.0001, 4.0003, 4.0002, 4.0004, 4.0003], kendall_like_thresh=0.0001, epsilon=0.0001)
add(id="c-zero-signs", kind="correlation", x=[0.0, -0.0, 1.0, 2.0, -0.0, 3.0], y=[1, 2, 3, 4, 5, 6])
# n = 2, 3 variants
add(id="c-n2-neg", kind="correlation", x=[5.5, -2.0], y=[-1, 7], kendall_like_thresh=0.5)
add(id="c-n2-tied-y", kind="correlation", x=[1, 2], y=[3, 3])
add(id="c-n2-after-deletion", kind="correlation", x=[None, 1, 2, 3, None], y=[1, 2, None, 5, 9])
add(id="c-n3-tie-y", kind="correlation", x=[1, 2, 3], y=[1, 1, 2], kendall_like_thresh=1)
add(id="c-n3-perfect-neg", kind="correlation", x=[2, 4, 8], y=[-1, -2, -3])
add(id="c-n3-linear-decimals", kind="correlation", x=[0.7, 0.8, 0.9], y=[0.35, 0.4, 0.45])
add(id="c-n3-linear-b", kind="correlation", x=[1.1, 2.2, 3.3], y=[3.3, 2.2, 1.1])
add(id="c-n4-perfect-lin", kind="correlation", x=[0.1, 0.2, 0.3, 0.4], y=[1.0, 2.0, 3.0, 4.0])
add(id="c-n4-halfC", kind="correlation", x=[1, 2, 3, 4], y=[3, 1, 4, 2])
add(id="c-n1", kind="correlation", x=[3.0], y=[4.0])
add(id="c-n0-all-null", kind="correlation", x=[None, None], y=[None, 2])
add(id="c-empty", kind="correlation", x=[], y=[], groups=[])
add(id="c-both-const-neg", kind="correlation", x=[-1, -1, -1], y=[-2, -2, -2], kendall_like_thresh=0)
add(id="c-const-y-thresh0", kind="correlation", x=[1, 2, 2, 3], y=[5, 5, 5, 5], kendall_like_thresh=0)
add(id="c-thresh-zero-ties", kind="correlation", x=[1, 1, 2, 3, 3], y=[1, 2, 2, 4, 3], kendall_like_thresh=0)
# Kendall exact / asymptotic boundary
for n in (31, 32, 33, 34, 35):
    x = list(range(n))
    add(id=f"k-perm-n{n}", kind="correlation", x=x, y=[int(v) for v in rng.permutation(n)])
    y = [float(v) for v in range(n)]
    y[10], y[11] = y[11], y[10]
    add(id=f"k-one-disc-n{n}", kind="correlation", x=x, y=y)
    y = [float(v) for v in range(n)]
    y[3], y[4] = y[4], y[3]
    y[20], y[21] = y[21], y[20]
    add(id=f"k-two-disc-n{n}", kind="correlation", x=x, y=y)
    yr = [float(v) for v in reversed(range(n))]
    yr[0], yr[1] = yr[1], yr[0]
    add(id=f"k-rev-one-conc-n{n}", kind="correlation", x=x, y=yr)
    yt = list(range(n))
    yt[-1] = yt[-2]
    add(id=f"k-one-tie-n{n}", kind="correlation", x=x, y=yt)
add(id="k-n33-scrambled-neg", kind="correlation", x=list(range(33)),
    y=[float(v) for v in reversed(list(range(33)))][:16] + [float(v) for v in rng.permutation(17)])
add(id="k-n60-reversed", kind="correlation", x=list(range(60)), y=list(range(60, 0, -1)))
add(id="k-n200-identity", kind="correlation", x=list(range(200)), y=list(range(200)))
add(id="k-n180-one-disc", kind="correlation", x=list(range(180)), y=[1, 0] + list(range(2, 180)))
add(id="k-n6-halfC", kind="correlation", x=list(range(6)), y=[2, 5, 0, 4, 1, 3])
# epsilon ties
add(id="eps-grid", kind="correlation", x=likert(40), y=[round(float(v), 1) for v in rng.uniform(0, 1, 40)],
    epsilon=0.1, kendall_like_thresh=1)
add(id="eps-exact-boundary", kind="correlation", x=[1, 2, 3, 4, 5, 6], y=[0.1, 0.3, 0.2, 0.5, 0.4, 0.7],
    epsilon=0.1, kendall_like_thresh=2)
add(id="eps-large", kind="correlation", x=cont(20), y=cont(20), epsilon=10.0, kendall_like_thresh=0.5)
add(id="eps-with-missing", kind="correlation", x=holes(likert(30), 0.2), y=holes(cont(30, 3, 1, 2), 0.2),
    epsilon=0.25, kendall_like_thresh=1)
# missing values
add(id="c-missing-heavy", kind="correlation", x=holes(cont(80, 50, 20, 1), 0.3), y=holes(cont(80, 0, 1, 3), 0.3))
# groups
G = []
gx, gy = [], []
sizes = [1, 2, 3, 5, 8, 4, 6, 2, 7, 3]
for gi, s in enumerate(sizes):
    for k in range(s):
        G.append(f"doc-{gi}")
xg = likert(sum(sizes))
yg = cont(sum(sizes), 3, 1, 2)
# doc-2 constant human, doc-4 constant metric, doc-5 all missing, doc-6 missing to 1 item
off = np.cumsum([0] + sizes)
for i in range(off[2], off[3]):
    xg[i] = 4
for i in range(off[4], off[5]):
    yg[i] = 2.5
for i in range(off[5], off[6]):
    xg[i] = None
for i in range(off[6] + 1, off[7]):
    yg[i] = None
xg[off[8]] = None
add(id="g-mixed-sizes", kind="correlation", x=xg, y=yg, groups=G, kendall_like_thresh=1, epsilon=0.3)
# interleaved int group ids, negative numbers
n = 45
add(id="g-interleaved-int", kind="correlation", x=cont(n, -5, 3, 2), y=cont(n, 0, 1, 3),
    groups=[int(v) for v in rng.integers(0, 6, n)], kendall_like_thresh=2)
add(id="g-single-group", kind="correlation", x=likert(12), y=likert(12), groups=["only"] * 12,
    kendall_like_thresh=1)
add(id="g-all-singletons", kind="correlation", x=[1, 2, 3, 4], y=[4, 3, 2, 1], groups=["a", "b", "c", "d"])
add(id="g-all-constant", kind="correlation", x=[1, 1, 2, 2, 3, 3], y=[5, 6, 7, 7, 1, 2],
    groups=["a", "a", "b", "b", "c", "c"], kendall_like_thresh=1)
add(id="g-all-missing-group-first", kind="correlation", x=[None, None, 1, 2, 3], y=[1, 2, 3, 1, 2],
    groups=["z", "z", "y", "y", "y"])
add(id="g-n2-groups", kind="correlation", x=[1, 2, 2, 1, 3, 3, 0, 5], y=[1, 2, 1, 2, 4, 4, 1, 0],
    groups=[7, 7, 8, 8, 9, 9, 10, 10], kendall_like_thresh=1)
# WMT-DA like
x = [float(v) for v in rng.integers(0, 101, 70)]
add(id="g-wmt-da", kind="correlation", x=x, y=cont(70), groups=[f"s{i % 7}" for i in range(70)],
    kendall_like_thresh=25)

# larger inputs: radix-sort path (n >= 256), > 64 distinct values, many ties
x = cont(300, 0, 1, 4)
add(id="big-cont-300", kind="correlation", x=x, y=[round(v + float(rng.normal(0, 1)), 4) for v in x],
    kendall_like_thresh=0.5, epsilon=0.05)
add(id="big-likert-vs-cont-500", kind="correlation", x=likert(500), y=cont(500, 0, 1, 3),
    kendall_like_thresh=1, epsilon=0.01)
add(id="big-cont-vs-likert-400", kind="correlation", x=cont(400, 0, 1, 3), y=likert(400, 0, 20),
    kendall_like_thresh=0.3, epsilon=2)
add(id="big-100dist-ties-400", kind="correlation", x=[int(v) for v in rng.integers(0, 100, 400)],
    y=[int(v) for v in rng.integers(0, 90, 400)], kendall_like_thresh=10)
xs = cont(600, 0, 1, 2)
add(id="big-groups-600", kind="correlation", x=holes(xs, 0.05), y=holes([round(v + float(rng.normal(0, 2)), 1) for v in xs], 0.05),
    groups=[f"d{int(v)}" for v in rng.integers(0, 40, 600)], kendall_like_thresh=0.5, epsilon=0.1)
# ------------------------------------------------------------------ Williams
for i in range(6):
    r12, r13 = [round(float(v), 4) for v in rng.uniform(-0.9, 0.95, 2)]
    r23 = round(float(rng.uniform(-0.5, 0.95)), 4)
    add(id=f"w-rand-{i}", kind="williams", r12=r12, r13=r13, r23=r23, n=int(rng.integers(4, 2000)))
add(id="w-n4", kind="williams", r12=0.8, r13=0.3, r23=0.4, n=4)
add(id="w-n2", kind="williams", r12=0.8, r13=0.3, r23=0.4, n=2)
add(id="w-equal-perfect", kind="williams", r12=0.7, r13=0.7, r23=1.0, n=20)
add(id="w-r23-neg1", kind="williams", r12=0.5, r13=-0.5, r23=-1.0, n=20)
add(id="w-equal-r", kind="williams", r12=0.45, r13=0.45, r23=0.2, n=100)
add(id="w-negatives", kind="williams", r12=-0.6, r13=-0.2, r23=0.7, n=40)
h = cont(40, 0, 2)
add(id="w-vec-random-missing", kind="williams", human=holes(h, 0.1),
    metric_a=holes([round(v + float(rng.normal(0, 1)), 5) for v in h], 0.1),
    metric_b=holes([round(-v + float(rng.normal(0, 3)), 5) for v in h], 0.1))
add(id="w-vec-likert", kind="williams", human=likert(25), metric_a=likert(25), metric_b=likert(25))
add(id="w-vec-n4", kind="williams", human=[1, 2, 3, 4], metric_a=[1, 3, 2, 4], metric_b=[2, 1, 4, 3])
add(id="w-vec-n3", kind="williams", human=[1, 2, 3], metric_a=[1, 3, 2], metric_b=[2, 1, 3])
add(id="w-vec-const-human", kind="williams", human=[2, 2, 2, 2, 2], metric_a=[1, 2, 3, 4, 5],
    metric_b=[5, 3, 2, 1, 0])
add(id="w-vec-identical-metrics", kind="williams", human=[1, 2, 3, 4, 5, 6], metric_a=[2, 1, 4, 3, 6, 5],
    metric_b=[2, 1, 4, 3, 6, 5])

# ------------------------------------------------------------------ resampling


def boot(nlen, B):
    return [[int(i) for i in rng.integers(0, nlen, nlen)] for _ in range(B)]


def masks(nlen, K):
    return [[int(i) for i in rng.integers(0, 2, nlen)] for _ in range(K)]


n = 40
h = likert(n)
a = [round(v + float(rng.normal(0, 1)), 3) for v in h]
b = [round(v * 10 + float(rng.normal(0, 25)), 1) for v in h]
h[0] = None; a[5] = None; b[9] = None; b[10] = None
used = n - 4
add(id="r-dataset-all-stats", kind="resampling", human=h, metric_a=a, metric_b=b, level="dataset",
    confidence=0.9, stats=["pearson", "spearman", "kendall_b", "kendall_c"],
    boot_indices=boot(used, 37), perm_masks=masks(used, 29))
n = 12
h = cont(n, 0, 1, 2)
add(id="r-dataset-small-cont", kind="resampling", human=h,
    metric_a=[round(v + float(rng.normal(0, .3)), 3) for v in h],
    metric_b=[round(-v + float(rng.normal(0, 1)), 3) for v in h], level="dataset",
    confidence=0.5, stats=["kendall_b", "pearson", "spearman", "kendall_c"],
    boot_indices=boot(n, 20), perm_masks=masks(n, 20))
# resamples that are degenerate (all same index) -> undefined draws
add(id="r-degenerate-draws", kind="resampling", human=[1, 2, 3, 4], metric_a=[1, 2, 2, 4],
    metric_b=[4, 3, 2, 2], level="dataset", stats=["pearson", "kendall_b", "spearman"],
    boot_indices=[[0, 0, 0, 0], [1, 1, 2, 2], [0, 1, 2, 3], [3, 3, 3, 1], [2, 2, 2, 2]],
    perm_masks=[[0, 0, 0, 0], [1, 1, 1, 1], [1, 0, 0, 1]])
add(id="r-constant-metric-b", kind="resampling", human=[1, 2, 3, 4, 5], metric_a=[2, 1, 4, 3, 5],
    metric_b=[7, 7, 7, 7, 7], level="dataset", stats=["pearson", "kendall_b"],
    boot_indices=[[0, 1, 2, 3, 4], [4, 4, 0, 1, 2]], perm_masks=[[0, 1, 0, 1, 0]])
# group level
sizes = [4, 1, 5, 3, 6, 2, 5, 4]
G = [f"sys{gi}" for gi, s in enumerate(sizes) for _ in range(s)]
n = len(G)
h = likert(n)
a = [round(v + float(rng.normal(0, 1)), 2) for v in h]
b = [round(v + float(rng.normal(0, 2)), 2) for v in h]
off = np.cumsum([0] + sizes)
for i in range(off[2], off[3]):   # group 2 constant human
    h[i] = 3
for i in range(off[3], off[4]):   # group 3 all missing in b
    b[i] = None
a[off[4]] = None                  # one missing in group 4
for i in range(off[5], off[6]):   # group 5 constant metric a
    a[i] = 1.5
used_groups = len(sizes) - 1      # group 3 gone
used_items = n - sizes[3] - 1
add(id="r-group-mixed", kind="resampling", human=h, metric_a=a, metric_b=b, groups=G, level="group",
    confidence=0.9, stats=["pearson", "spearman", "kendall_b", "kendall_c"],
    boot_indices=boot(used_groups, 33), perm_masks=masks(used_items, 25))
# group level with int ids interleaved
n = 30
G = [int(v) for v in rng.integers(0, 5, n)]
h = cont(n, 0, 1, 1)
a = [round(v + float(rng.normal(0, 1)), 2) for v in h]
b = [round(v + float(rng.normal(0, 1)), 2) for v in h]
ng = len(dict.fromkeys(G))
add(id="r-group-int-ids", kind="resampling", human=h, metric_a=a, metric_b=b, groups=G, level="group",
    stats=["kendall_b", "pearson"], boot_indices=boot(ng, 15), perm_masks=masks(n, 15))
# resampling with tau_23/acc_23 (allowed stats in implementation; oracle from spec)
n = 15
h = likert(n)
add(id="r-tau23", kind="resampling", human=h, metric_a=likert(n), metric_b=h[:], level="dataset",
    stats=["tau_23", "acc_23"], boot_indices=boot(n, 10), perm_masks=masks(n, 10))

# ------------------------------------------------------------------ agreement
add(id="a-likert-4r-missing", kind="agreement",
    ratings=[holes(likert(25), 0.25) for _ in range(4)], categories=[1, 2, 3, 4, 5])
add(id="a-likert-3r-nocats", kind="agreement", ratings=[holes(likert(18, 1, 7), 0.1) for _ in range(3)])
r1 = likert(30, 1, 7)
r2 = [min(7, max(1, v + int(rng.integers(-1, 2)))) for v in r1]
add(id="a-2r-scale-gap", kind="agreement", ratings=[holes(r1, .1), holes(r2, .1)],
    categories=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
add(id="a-2r-no-cats", kind="agreement", ratings=[[1, 3, 5, 5, 3, 1, 5], [1, 3, 5, 3, 3, 3, 5]])
add(id="a-2r-float-cats", kind="agreement", ratings=[[0.5, 1.0, 1.5, 2.0, 1.0], [0.5, 1.5, 1.5, 2.0, 0.5]],
    categories=[0.0, 0.5, 1.0, 1.5, 2.0])
add(id="a-2r-continuous-neg", kind="agreement", ratings=[cont(12, -1, 2, 3), cont(12, -1, 2, 3)])
add(id="a-constant-matrix-3r", kind="agreement", ratings=[[2, 2, 2, 2], [2, 2, 2, 2], [2, None, 2, 2]])
add(id="a-constant-2r-cats", kind="agreement", ratings=[[4, 4, 4], [4, 4, 4]], categories=[1, 2, 3, 4, 5])
add(id="a-single-rater", kind="agreement", ratings=[[1, 2, 3, 4]])
add(id="a-unit-all-missing", kind="agreement", ratings=[[1, None, 3, 2, 2], [1, None, 3, 3, 2], [2, None, None, 3, 2]])
add(id="a-no-complete-unit", kind="agreement", ratings=[[1, 2, None], [None, 2, 3], [1, None, 3]])
add(id="a-ratio-with-zero-neg", kind="agreement", ratings=[[0, 1, -1, 2, 0], [0, -1, 1, 2, 1], [1, 1, -1, 2, 0]])
add(id="a-6-raters", kind="agreement", ratings=[likert(10, 1, 3) for _ in range(6)])
add(id="a-2r-one-pair-only", kind="agreement", ratings=[[1, None, 2], [2, 3, None]])
add(id="a-2r-disagree-all", kind="agreement", ratings=[[1, 2, 1, 2], [2, 1, 2, 1]], categories=[1, 2])

add(id="a-3r-continuous-many-values", kind="agreement", ratings=[holes(cont(40, 5, 2, 2), 0.1) for _ in range(3)])
add(id="a-2r-70-distinct", kind="agreement", ratings=[[int(v) for v in rng.integers(0, 150, 60)], [int(v) for v in rng.integers(0, 150, 60)]])
# ------------------------------------------------------------------ pairwise labels
L = ["A", "B", "tie", None]
add(id="l-random-60", kind="pairwise_labels", judge=[L[i] for i in rng.choice(4, 60, p=[.35, .35, .2, .1])],
    gold=[L[i] for i in rng.choice(4, 60, p=[.4, .3, .25, .05])])
add(id="l-all-A", kind="pairwise_labels", judge=["A", "A", "A"], gold=["A", "A", "A"])
add(id="l-no-nontie-gold", kind="pairwise_labels", judge=["A", "tie", "B"], gold=["tie", "tie", "tie"])
add(id="l-all-null", kind="pairwise_labels", judge=[None, "A"], gold=["B", None])
add(id="l-empty", kind="pairwise_labels", judge=[], gold=[])
add(id="l-opposite", kind="pairwise_labels", judge=["A", "B", "A", "B"], gold=["B", "A", "B", "A"])

# ------------------------------------------------------------------ matches
ms = ["alpha", "beta", "gamma", "delta", "eps"]
mm = []
for _ in range(60):
    i, j = rng.choice(5, 2, replace=False)
    mm.append([ms[i], ms[j], ["a", "b", "tie", None][int(rng.choice(4, p=[.4, .35, .15, .1]))]])
ordr = lambda k: [[int(v) for v in rng.permutation(len(mm))] for _ in range(k)]
add(id="m-random-5", kind="matches", models=ms, matches=mm, orders=ordr(7), k=4, init=1000,
    scale=400, base=10, bt_l2=0.01)
add(id="m-random-5-skip", kind="matches", models=ms, matches=mm, orders=ordr(4), null_outcome="skip",
    bt_l2=0.5)
add(id="m-random-5-params", kind="matches", models=ms, matches=mm, orders=ordr(3), k=32, init=1500,
    scale=173.7178, base=2.718281828459045, bt_l2=0.001)
add(id="m-two-models", kind="matches", models=["p", "q"], matches=[["p", "q", "a"], ["q", "p", "a"],
    ["p", "q", "tie"], ["q", "p", "b"]], orders=[[3, 2, 1, 0], [1, 3, 0, 2]])
add(id="m-undefeated", kind="matches", models=["u", "v", "w", "x"],
    matches=[["u", "v", "a"], ["v", "u", "b"], ["v", "w", "tie"], ["w", "x", "a"], ["x", "v", "a"],
             ["u", "x", "a"]], orders=[[5, 4, 3, 2, 1, 0]], bt_l2=0.01)
add(id="m-winless", kind="matches", models=["u", "v", "w"],
    matches=[["u", "v", "a"], ["v", "u", "a"], ["w", "u", "b"], ["v", "w", "a"]], orders=[[0, 1, 2, 3]])
add(id="m-two-components", kind="matches", models=["a1", "a2", "b1", "b2"],
    matches=[["a1", "a2", "a"], ["a2", "a1", "a"], ["b1", "b2", "tie"], ["b2", "b1", "a"]],
    orders=[[0, 1, 2, 3], [3, 2, 1, 0]])
add(id="m-ties-only-cycle", kind="matches", models=["x", "y", "z"],
    matches=[["x", "y", "tie"], ["y", "z", "tie"], ["z", "x", "tie"], ["x", "y", None]],
    orders=[[3, 0, 1, 2]])
add(id="m-unplayed-model", kind="matches", models=["x", "y", "idle"],
    matches=[["x", "y", "a"], ["y", "x", "a"]], orders=[[1, 0]], bt_l2=0.2)
add(id="m-all-null-tie", kind="matches", models=["p", "q", "r"],
    matches=[["p", "q", None], ["q", "r", None], ["r", "p", None]], orders=[[2, 1, 0]])
add(id="m-no-orders", kind="matches", models=["p", "q"], matches=[["p", "q", "a"], ["q", "p", "a"]],
    orders=[])
add(id="m-lopsided", kind="matches", models=["s", "t", "u"],
    matches=[["s", "t", "a"]] * 40 + [["t", "s", "a"]] + [["t", "u", "a"]] * 30 + [["u", "t", "a"]] * 2
    + [["u", "s", "a"]], orders=[list(range(74))[::-1]])
add(id="m-single-model", kind="matches", models=["solo"], matches=[], orders=[[]])

for c in cases:
    c.setdefault("id", f"case{len(cases)}")

with open(OUT + ".cases.json", "w") as f:
    json.dump({"cases": cases}, f, indent=1)
res = [oracle.compute(c) for c in cases]
with open(OUT + ".expected.json", "w") as f:
    json.dump({"oracle": {"oracle_version": 1, "script": "benches/oracle/oracle.py"}, "results": res},
              f, indent=1)
print("wrote", len(cases), "cases")
