#!/usr/bin/env python3
"""gen_audit.py OUT_DIR -- the judge-audit fixtures of STATS_SPEC §15 from independent code.

Writes OUT_DIR/audit.cases.json (the case format of §14) and OUT_DIR/audit.expected.json,
every expected value computed by a package that is not Concord:

* wilson, and the intervals of flip_rate: statsmodels `proportion_confint(method="wilson")`;
* gwet_ac1: irrCAC `CAC(...).gwet()` (identity weights, unrounded: digits=20);
* ppi_mean: ppi-python `ppi_mean_pointestimate` / `ppi_mean_ci` (lam=1 for PPI, lam=None
  for PPI++ with its λ from `_calc_lam_glm` exactly as `ppi_mean_ci` calls it),
  `classical_mean_ci` for the human-only and judge-only figures; the standard errors with
  numpy (and checked against the package's interval);
* paired_shift: numpy (`mean`, `quantile` with its default linear method);
* judge_agreement (§15.6): krippendorff `alpha`, scikit-learn `cohen_kappa_score`, irrCAC,
  scipy `pearsonr`, numpy `nanmean` / `nanmedian`, Williams' t from §7 with scipy's t.

The spec's edge rules (§15: n = 0 → null, q < 2 → null, n < 2 or N < 1 → null, λ = 0/0 →
null) are applied here before calling the packages, which return NaN or raise there.
Install: pip install ppi-python statsmodels irrCAC krippendorff scikit-learn numpy
"""
import json
import math
import os
import sys
import warnings
from importlib.metadata import version

import numpy as np
import pandas as pd
import krippendorff
from irrCAC.raw import CAC
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate
from ppi_py.ppi import _calc_lam_glm
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

warnings.filterwarnings("ignore")
rng = np.random.default_rng(20261125)
cases, results = [], []


def num(v):
    if v is None:
        return None
    v = float(v)
    return None if (math.isnan(v) or math.isinf(v)) else v


def pair(lo, hi):
    lo, hi = num(lo), num(hi)
    return None if lo is None or hi is None else [lo, hi]


def add(case, result):
    cases.append(case)
    results.append({"id": case["id"], "kind": case["kind"], **result})


# ------------------------------------------------------------------ 15.1 Wilson

def wilson(k, n, confidence):
    if n == 0:
        return None, None
    lo, hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    return k / n, pair(lo, hi)


for i, (k, n, conf) in enumerate([
    (7, 20, 0.95), (0, 10, 0.95), (10, 10, 0.95), (0, 0, 0.95), (1, 1, 0.95), (0, 1, 0.95),
    (3, 1000, 0.99), (999, 1000, 0.9), (50, 100, 0.5), (1, 2, 0.8), (12345, 54321, 0.95),
]):
    p, ci = wilson(k, n, conf)
    add({"id": f"wilson-{k}-of-{n}-{conf}", "kind": "wilson", "k": k, "n": n,
         "confidence": conf}, {"p": p, "ci": ci})
for i in range(6):
    n = int(rng.integers(1, 400))
    k = int(rng.integers(0, n + 1))
    conf = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
    p, ci = wilson(k, n, conf)
    add({"id": f"wilson-rand{i}", "kind": "wilson", "k": k, "n": n, "confidence": conf},
        {"p": p, "ci": ci})

# ------------------------------------------------------------------ 15.2 order probes

MIRROR = {"A": "B", "B": "A", "tie": "tie"}


def flip(forward, backward, confidence):
    both = [(f, b) for f, b in zip(forward, backward) if f is not None and b is not None]
    n = len(both)
    flips = sum(1 for f, b in both if MIRROR[b] != f)
    decided = [v for v in forward + backward if v is not None and v != "tie"]
    first = sum(1 for v in decided if v == "A")
    rate, ci = wilson(flips, n, confidence)
    fw, fci = wilson(first, len(decided), confidence)
    return {"n": n, "flips": flips, "flip_rate": rate, "ci": ci, "first_n": len(decided),
            "first_wins": fw, "first_wins_ci": fci}


def verdicts(n, p_null=0.1, p_tie=0.15, p_first=0.6):
    out = []
    for _ in range(n):
        u = rng.random()
        out.append(None if u < p_null else "tie" if u < p_null + p_tie
                   else "A" if rng.random() < p_first else "B")
    return out


def flip_case(cid, forward, backward, confidence=0.95):
    add({"id": cid, "kind": "flip_rate", "forward": forward, "backward": backward,
         "confidence": confidence}, flip(forward, backward, confidence))


for n, conf in [(12, 0.95), (60, 0.9), (200, 0.95), (33, 0.99)]:
    flip_case(f"flip-rand-n{n}", verdicts(n), verdicts(n, p_first=0.75), conf)
flip_case("flip-empty", [], [])
flip_case("flip-all-unparsed", [None, None, "A"], [None, "B", None])
flip_case("flip-all-ties", ["tie", "tie"], ["tie", "tie"])
flip_case("flip-consistent", ["A", "B", "A", "tie"], ["B", "A", "B", "tie"])
flip_case("flip-every-pair", ["A", "A", "B"], ["A", "A", "B"])
flip_case("flip-one-pair", ["A"], ["A"])

# ------------------------------------------------------------------ 15.3 Gwet's AC1


def gwet(ratings, categories=None):
    """ratings: raters x units, None = missing."""
    units = list(zip(*ratings)) if ratings else []
    present = [[v for v in u if v is not None] for u in units]
    n_units = sum(1 for u in present if u)
    cats = sorted({v for u in present for v in u}) if categories is None else list(categories)
    q = len(cats)
    pairable = sum(1 for u in present if len(u) >= 2)
    out = {"ac1": None, "pa": None, "pe": None, "n_units": n_units}
    if pairable == 0:
        return out
    df = pd.DataFrame([[np.nan if v is None else v for v in u] for u in units], dtype=object)
    if n_units == 1:
        # irrCAC's standard error divides by n(n - 1); AC1, pa and pe are means over units,
        # so the unit twice gives the same values and a finite variance.
        df = pd.concat([df, df], ignore_index=True)
    cac = CAC(df, categories=categories, digits=20)
    est = cac.gwet()["est"]
    out["pa"] = num(est["pa"])
    if q >= 2:
        out["pe"] = num(est["pe"])
        out["ac1"] = num(est["coefficient_value"])
    return out


def gwet_case(cid, ratings, categories=None):
    case = {"id": cid, "kind": "gwet_ac1", "ratings": ratings}
    if categories is not None:
        case["categories"] = categories
    add(case, gwet(ratings, categories))


raw4 = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, None],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
gwet_case("gwet-irrcac-raw4", raw4)
gwet_case("gwet-irrcac-raw4-scale", raw4, [1, 2, 3, 4, 5, 6])


def holes(v, p):
    return [None if rng.random() < p else x for x in v]


for r, u, k, p in [(2, 15, 3, 0.0), (3, 40, 5, 0.15), (5, 25, 2, 0.3), (4, 80, 7, 0.05)]:
    truth = rng.integers(1, k + 1, u)
    ratings = [holes([int(t) if rng.random() < 0.7 else int(rng.integers(1, k + 1))
                      for t in truth], p) for _ in range(r)]
    gwet_case(f"gwet-rand-r{r}-u{u}-q{k}", ratings)
gwet_case("gwet-all-equal", [[2, 2, 2], [2, 2, 2]])
gwet_case("gwet-all-equal-declared", [[2, 2, 2], [2, 2, 2]], [1, 2])
gwet_case("gwet-one-rating-per-unit", [[1, None, 3], [None, 2, None]])
gwet_case("gwet-no-ratings", [[None, None], [None, None]])
gwet_case("gwet-empty", [])
gwet_case("gwet-single-unit", [[1], [2], [2]])
gwet_case("gwet-labels", [["good", "bad", "good", "good", None],
                          ["good", "bad", "bad", "good", "bad"],
                          ["good", None, "bad", "good", "bad"]])

# ------------------------------------------------------------------ 15.4 PPI


def mean_out(estimate, se, lo, hi):
    return {"estimate": num(estimate), "se": num(se), "ci": pair(lo, hi)}


NULL_MEAN = {"estimate": None, "se": None, "ci": None}


def ppi(y, yhat, un, confidence):
    alpha = 1 - confidence
    z = stats.norm.isf(alpha / 2)
    lab = [(a, b) for a, b in zip(y, yhat) if a is not None and b is not None]
    Y = np.array([a for a, _ in lab], dtype=float)
    Yh = np.array([b for _, b in lab], dtype=float)
    Yu = np.array([v for v in un if v is not None], dtype=float)
    n, N = len(Y), len(Yu)

    def normal(v):
        if len(v) < 2:
            return dict(NULL_MEAN)
        lo, hi = classical_mean_ci(v, alpha=alpha)
        se = v.std() / np.sqrt(len(v))
        assert abs((hi - lo) / 2 - z * se) <= 1e-12 * max(1.0, abs(hi - lo)), (lo, hi, se)
        return mean_out(v.mean(), se, lo, hi)

    out = {"ppi": dict(NULL_MEAN), "ppipp": dict(NULL_MEAN, **{"lambda": None}),
           "classical": normal(Y), "judge_only": normal(np.concatenate([Yh, Yu]))}
    if n < 2 or N < 1:
        return out

    def at(lam):
        est = ppi_mean_pointestimate(Y, Yh, Yu, lam=lam)
        lo, hi = ppi_mean_ci(Y, Yh, Yu, alpha=alpha, lam=lam)
        se = np.sqrt((lam * Yu).std() ** 2 / N + (Y - lam * Yh).std() ** 2 / n)
        assert abs((hi - lo) / 2 - z * se) <= 1e-12 * max(1.0, abs(hi - lo)), (lo, hi, se)
        return mean_out(np.asarray(est).item(), se, np.asarray(lo).item(), np.asarray(hi).item())

    out["ppi"] = at(1.0)
    # λ as ppi_mean_ci(lam=None) computes it, then the package's own PPI++ figures.
    point = ppi_mean_pointestimate(Y, Yh, Yu, lam=1)
    d = 1
    lam = _calc_lam_glm((Y - point).reshape(-1, 1), (Yh - point).reshape(-1, 1),
                        (Yu - point).reshape(-1, 1), np.eye(d), coord=None, clip=True)
    if math.isnan(lam):
        return out
    tuned = at(lam)
    lo, hi = ppi_mean_ci(Y, Yh, Yu, alpha=alpha, lam=None)
    est = ppi_mean_pointestimate(Y, Yh, Yu, lam=None)
    tuned["estimate"] = num(np.asarray(est).item())
    tuned["ci"] = pair(np.asarray(lo).item(), np.asarray(hi).item())
    tuned["lambda"] = float(lam)
    out["ppipp"] = tuned
    return out


def rounded(v, nd=6):
    return [None if x is None else round(float(x), nd) for x in v]


def ppi_case(cid, y, yhat, un, confidence=0.95):
    add({"id": cid, "kind": "ppi_mean", "y": y, "yhat": yhat, "yhat_unlabeled": un,
         "confidence": confidence}, ppi(y, yhat, un, confidence))


def biased_judge(m, bias=0.4, noise=0.5, slope=0.8):
    truth = rng.normal(3.0, 1.0, m)
    judge = slope * truth + bias + rng.normal(0, noise, m)
    return truth, judge


t, j = biased_judge(100 + 2000)
ppi_case("ppi-n100-N2000", rounded(t[:100]), rounded(j[:100]), rounded(j[100:]))
t, j = biased_judge(40 + 300, bias=-0.7, noise=1.5)
ppi_case("ppi-noisy-n40-N300-c90", rounded(t[:40]), rounded(j[:40]), rounded(j[40:]), 0.9)
t, j = biased_judge(30 + 50)
y, yh = holes(rounded(t[:30]), 0.1), holes(rounded(j[:30]), 0.1)
ppi_case("ppi-missing", y, yh, holes(rounded(j[30:]), 0.2))
ppi_case("ppi-n2-N1", [1.0, 3.0], [1.5, 2.0], [2.5])
ppi_case("ppi-n1", [1.0], [2.0], [1.0, 2.0, 3.0])
ppi_case("ppi-n1-after-deletion", [1.0, None, 2.0], [2.0, 3.0, None], [1.0, 2.0, 3.0])
ppi_case("ppi-N0", [1.0, 2.0, 4.0], [2.0, 2.5, 3.0], [])
ppi_case("ppi-N0-after-deletion", [1.0, 2.0, 4.0], [2.0, 2.5, 3.0], [None, None])
ppi_case("ppi-empty", [], [], [])
# λ at its lower bound: a judge that disagrees with the humans.
ppi_case("ppi-lambda-clipped-0", [1.0, 2.0, 3.0, 4.0, 5.0], [5.0, 4.0, 3.5, 2.0, 1.0],
         [2.0, 3.0, 4.0, 5.0])
# λ at its upper bound: humans vary twice as much as the judge, in step.
ppi_case("ppi-lambda-clipped-1", [2.0, 4.0, 6.0, 8.0, 10.0], [1.0, 2.0, 3.0, 4.0, 5.0],
         [1.5, 2.5, 3.5, 4.5] * 5)
# λ = 0/0: a constant judge.
ppi_case("ppi-constant-judge", [1.0, 2.0, 4.0], [3.0, 3.0, 3.0], [3.0, 3.0])
# A win rate: 1 win, 0 loss, 0.5 tie.
wins = rng.choice([0.0, 0.5, 1.0], 60 + 400, p=[0.35, 0.15, 0.5])
judge = np.where(rng.random(460) < 0.8, wins, rng.choice([0.0, 0.5, 1.0], 460))
ppi_case("ppi-win-rate", wins[:60].tolist(), judge[:60].tolist(), judge[60:].tolist())
ppi_case("ppi-constant-human", [2.0] * 6, [1.0, 2.0, 3.0, 2.0, 1.0, 3.0], [1.0, 2.0, 3.0])

# ------------------------------------------------------------------ 15.5 paired shift


def shift(orig, variant, boot, confidence):
    d = np.array([v - o for o, v in zip(orig, variant) if o is not None and v is not None])
    if len(d) == 0:
        return {"n": 0, "shift": None, "ci": None}
    means = np.array([d[np.array(r)].mean() for r in boot if len(r) > 0])
    alpha = 1 - confidence
    ci = None
    if len(means):
        lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
        ci = pair(lo, hi)
    return {"n": int(len(d)), "shift": num(d.mean()), "ci": ci}


def shift_case(cid, orig, variant, B, confidence=0.95, boot=None):
    m = sum(1 for o, v in zip(orig, variant) if o is not None and v is not None)
    if boot is None:
        boot = [rng.integers(0, m, m).tolist() for _ in range(B)] if m else [[] for _ in range(B)]
    add({"id": cid, "kind": "paired_shift", "orig": orig, "variant": variant,
         "boot_indices": boot, "confidence": confidence}, shift(orig, variant, boot, confidence))


o = rng.integers(1, 6, 30).astype(float)
shift_case("shift-likert-n30", o.tolist(), np.clip(o + rng.choice([0, 0, 1], 30), 1, 5).tolist(),
           100)
o = rng.normal(6, 2, 50)
shift_case("shift-cont-n50-c80", rounded(o), rounded(o + 0.4 + rng.normal(0, 1, 50)), 120, 0.8)
shift_case("shift-missing", [1, None, 3, 4, 2, None], [2, 5, None, 4, 3, 1], 40)
shift_case("shift-n0", [None, 1], [2, None], 3)
shift_case("shift-n1", [3], [5], 5)
shift_case("shift-constant-difference", [1, 2, 3, 4], [2, 3, 4, 5], 25)
shift_case("shift-with-empty-resample", [1, 2, 3], [3, 2, 4], 0, 0.9,
           boot=[[0, 1, 2], [], [2, 2, 2], [0, 0, 1], [1, 2, 2]])
shift_case("shift-no-resamples", [1, 2], [2, 4], 0, boot=[])

# ------------------------------------------------------------------ 15.6 judges


def pearson(x, y):
    m = [(a, b) for a, b in zip(x, y) if a is not None and b is not None]
    n = len(m)
    if n < 2:
        return None, None, n
    a, b = np.array(m, dtype=float).T
    if np.all(a == a[0]) or np.all(b == b[0]):
        return None, None, n
    r, p = stats.pearsonr(a, b)
    return num(r), num(p), n


def williams(h, a, b):
    m = [(x, y, z) for x, y, z in zip(h, a, b) if None not in (x, y, z)]
    n = len(m)
    r12 = pearson(*zip(*[(x, y) for x, y, _ in m]))[0] if n else None
    r13 = pearson(*zip(*[(x, z) for x, _, z in m]))[0] if n else None
    r23 = pearson(*zip(*[(y, z) for _, y, z in m]))[0] if n else None
    out = {"r12": r12, "r13": r13, "r23": r23, "n": n, "df": None, "t": None,
           "p_greater": None, "p_abs_one_sided": None, "p_two_sided": None}
    if n <= 3 or None in (r12, r13, r23):
        return out
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    den = 2 * k * (n - 1) / (n - 3) + rbar ** 2 * (1 - r23) ** 3
    if den <= 0:
        return out
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(den)
    df = n - 3
    out.update(df=df, t=t, p_greater=float(stats.t.sf(t, df)),
               p_abs_one_sided=float(stats.t.sf(abs(t), df)),
               p_two_sided=float(min(1.0, 2 * stats.t.sf(abs(t), df))))
    return out


def judge_agreement(human, judges, categories=None, members=None):
    pairs = []
    categorical = categories is not None or all(
        float(v).is_integer() for row in judges for v in row if v is not None)
    for a in range(len(judges)):
        for b in range(a + 1, len(judges)):
            ja, jb = judges[a], judges[b]
            data = np.array([[np.nan if v is None else v for v in ja],
                             [np.nan if v is None else v for v in jb]], dtype=float)
            both = [(x, y) for x, y in zip(ja, jb) if x is not None and y is not None]
            kappa = ac1 = None
            if categorical and both:
                xs, ys = zip(*both)
                labels = sorted(set(xs) | set(ys) | set(categories or []))
                kappa = num(cohen_kappa_score(xs, ys, labels=labels))
                ac1 = gwet([ja, jb], categories)["ac1"]
            resid_a = [None if None in (h, x) else x - h for h, x in zip(human, ja)]
            resid_b = [None if None in (h, x) else x - h for h, x in zip(human, jb)]
            both_r = [(x, y) for x, y in zip(resid_a, resid_b) if x is not None and y is not None]
            r, p, n = pearson(*zip(*both_r)) if both_r else (None, None, 0)
            pairs.append({
                "judges": [a, b],
                "alpha_interval": num(krippendorff.alpha(reliability_data=data,
                                                         level_of_measurement="interval")),
                "alpha_nominal": num(krippendorff.alpha(reliability_data=data,
                                                        level_of_measurement="nominal")),
                "cohen_kappa": kappa, "gwet_ac1": ac1,
                "residuals": {"n": n, "r": r, "p": p}})
    members = list(range(len(judges))) if members is None else members
    mat = np.array([[np.nan if v is None else v for v in judges[m]] for m in members], dtype=float)

    def jury(reduce):
        scores = [None if np.all(np.isnan(col)) else num(reduce(col)) for col in mat.T]
        r, p, _ = pearson(human, scores)
        return {"scores": scores, "pearson": {"r": r, "p": p},
                "williams": [williams(human, scores, judges[m]) for m in members]}

    return {"n_judges": len(judges), "n_items": len(human), "pairs": pairs,
            "jury_members": members, "jury_mean": jury(np.nanmean),
            "jury_median": jury(np.nanmedian)}


def judge_case(cid, human, judges, categories=None, members=None):
    case = {"id": cid, "kind": "judge_agreement", "human": human, "judges": judges}
    if categories is not None:
        case["categories"] = categories
    if members is not None:
        case["jury"] = members
    add(case, judge_agreement(human, judges, categories, members))


truth = rng.integers(1, 6, 30)
likert = [[int(np.clip(t + rng.choice([-1, 0, 0, 1]) + off, 1, 5)) for t in truth]
          for off in (0, 1, 0)]
human = [float(t) + float(rng.choice([-0.5, 0, 0.5])) for t in truth]
judge_case("judges-likert-3x30", human, likert, categories=[1, 2, 3, 4, 5])
judge_case("judges-likert-holes", holes(human, 0.1), [holes(j, 0.15) for j in likert],
           members=[0, 2])
cont_h = rng.normal(0, 1, 25)
cont = [rounded(cont_h + rng.normal(0.3 * k, 0.6, 25)) for k in range(2)]
judge_case("judges-continuous", rounded(cont_h), cont)
# Judges 0 and 1 make the same errors (residual r = 1). A jury of identical members equals
# each of them, where Williams' test is a floating-point knife edge (r23 rounds to 1 − 4e-16
# in scipy 1.17 and Concord, giving t = 0, but to exactly 1 in scipy 1.12, giving null), so
# the jury here is judges 0 and 2 (its median, of two, is their mean).
judge_case("judges-identical-errors", [1.0, 2.0, 3.0, 4.0, 5.0],
           [[2, 2, 4, 4, 6], [2, 2, 4, 4, 6], [1, 3, 3, 5, 5]], members=[0, 2])
judge_case("judges-n3", [1.0, 2.0, 3.0], [[1, 2, 2], [2, 2, 3]])

# ------------------------------------------------------------------ write

out_dir = sys.argv[1] if len(sys.argv) > 1 else "crates/core/tests/fixtures/stats"
versions = {k: version(k) for k in ("numpy", "scipy", "statsmodels", "irrCAC", "ppi-python",
                                    "krippendorff", "scikit-learn", "pandas")}
with open(os.path.join(out_dir, "audit.cases.json"), "w") as f:
    # One case a line: the resample indices and the 2,100-value PPI case stay readable.
    f.write('{"cases": [\n' + ",\n".join(json.dumps(c) for c in cases) + "\n]}\n")
with open(os.path.join(out_dir, "audit.expected.json"), "w") as f:
    json.dump({"oracle": {"oracle_version": 1, "python": sys.version.split()[0], **versions,
                          "script": "benches/oracle/gen_audit.py"},
               "results": results}, f, indent=1, allow_nan=False)
    f.write("\n")
print("wrote", len(cases), "cases to", out_dir)
