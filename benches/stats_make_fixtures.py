#!/usr/bin/env python3
"""Generate Concord's scipy-checked statistics fixtures (STATS_SPEC.md §14 case format).

Writes crates/core/tests/fixtures/stats/edge.cases.json and edge.expected.json: small cases
for every edge case §14 lists (ties, constant groups, missing values, all-missing and
single-item groups, n = 2 and 3, the n = 33/34 exact/asymptotic boundary, undefeated models,
constant rating matrices, ε-ties, Williams with too few items, group-level resampling).

Expected values come from scipy / krippendorff / scikit-learn / statsmodels where those
compute the statistic, and from direct O(n²) transcriptions of the spec's definitions
otherwise (pair counts, τ_23, Kendall-like τ, Elo, group aggregation, resampling).

    pip install scipy krippendorff scikit-learn statsmodels numpy
    python3 benches/stats_make_fixtures.py
"""

import json
import math
import os
import sys

import krippendorff
import numpy as np
import scipy
import sklearn
import statsmodels
from scipy import stats as st
from scipy.optimize import minimize
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "core", "tests",
                   "fixtures", "stats")


def num(v):
    """JSON value: None for undefined / NaN."""
    if v is None:
        return None
    v = float(v)
    return None if math.isnan(v) else v


def present(v):
    return v is not None and not (isinstance(v, float) and math.isnan(v))


# ------------------------------------------------------------------ correlations


def naive_counts(x, y):
    c = d = tx = ty = txy = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                txy += 1
            elif dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                c += 1
            else:
                d += 1
    n0 = len(x) * (len(x) - 1) // 2
    return dict(concordant=c, discordant=d, tie_x_only=tx, tie_y_only=ty, tie_both=txy, pairs=n0)


def tau23(x, y, eps):
    n = len(x)
    if n < 2:
        return None, None
    agree = total = 0
    for i in range(n):
        for j in range(i + 1, n):
            gold_tie = x[i] == x[j]
            metric_tie = abs(y[i] - y[j]) <= eps
            same = (gold_tie and metric_tie) or (
                not gold_tie and not metric_tie and ((x[i] > x[j]) == (y[i] > y[j])))
            agree += same
            total += 1
    return (2 * agree - total) / total, agree / total


def kendall_like(x, y, thresh):
    conc = disc = 0
    for i in range(len(x)):
        for j in range(len(x)):
            if i < j and abs(x[i] - x[j]) >= thresh:
                lo, hi = (i, j) if x[i] < x[j] else (j, i)
                if x[lo] < x[hi] and y[lo] < y[hi]:
                    conc += 1
                else:
                    disc += 1
    tau = (conc - disc) / (conc + disc) if conc + disc else None
    return dict(tau=tau, concordant=conc, discordant=disc)


def constant(v):
    return all(a == v[0] for a in v)


def pearson(x, y):
    n = len(x)
    if n < 2 or constant(x) or constant(y):
        return None, None
    if n == 2:
        return float(np.sign(x[1] - x[0]) * np.sign(y[1] - y[0])), 1.0
    r, p = st.pearsonr(x, y)
    return num(r), num(p)


def spearman(x, y):
    n = len(x)
    if n < 2 or constant(x) or constant(y):
        return None, None
    rho, p = st.spearmanr(x, y)
    return num(rho), (1.0 if n == 2 else num(p))


def kendall(x, y):
    n = len(x)
    if n < 2 or constant(x) or constant(y):
        return None
    tb = st.kendalltau(x, y, variant="b")
    tc = st.kendalltau(x, y, variant="c")
    counts = naive_counts(x, y)
    ties = len(set(x)) < n or len(set(y)) < n
    d, n0 = counts["discordant"], counts["pairs"]
    method = "exact" if not ties and (n <= 33 or min(d, n0 - d) <= 1) else "asymptotic"
    return dict(b=num(tb.statistic), c=num(tc.statistic), p=num(tb.pvalue), method=method)


def dataset_level(x, y, thresh, eps):
    r, rp = pearson(x, y)
    rho, sp = spearman(x, y)
    k = kendall(x, y)
    counts = naive_counts(x, y)
    n0 = counts["pairs"]
    t23, a23 = tau23(x, y, eps)
    return {
        "pearson": {"r": r, "p": rp},
        "spearman": {"rho": rho, "p": sp},
        "kendall_b": {"tau": k and k["b"], "p": k and k["p"], "p_method": k and k["method"]},
        "kendall_c": {"tau": k and k["c"], "p": k and k["p"]},
        "kendall_a": {"tau": (counts["concordant"] - counts["discordant"]) / n0 if n0 else None},
        "counts": counts,
        "tau_23": t23,
        "acc_23": a23,
        "kendall_like": kendall_like(x, y, thresh),
    }


def group_stat(values, sizes):
    valid = [v for v in values if v is not None]
    n_min2 = sum(1 for s in sizes if s >= 2)
    mean = sum(valid) / len(valid) if valid else None
    return {
        "mean": mean,
        "mean_nan_as_zero": sum(valid) / n_min2 if valid and n_min2 else None,
        "n_valid": len(valid),
        "values": values,
    }


def group_level(x, y, groups, thresh, eps):
    ids, members = [], {}
    for xi, yi, g in zip(x, y, groups):
        # §6: every group of the input is listed, one whose items are all missing with size 0.
        if g not in members:
            ids.append(g)
            members[g] = ([], [])
        if present(xi) and present(yi):
            members[g][0].append(xi)
            members[g][1].append(yi)
    sizes = [len(members[g][0]) for g in ids]
    per = [dataset_level(*members[g], thresh, eps) if len(members[g][0]) >= 2 else None
           for g in ids]

    def pick(f):
        return group_stat([f(p) if p else None for p in per], sizes)

    conc = sum(p["kendall_like"]["concordant"] for p in per if p)
    disc = sum(p["kendall_like"]["discordant"] for p in per if p)
    kl = pick(lambda p: p["kendall_like"]["tau"])
    kl.update(micro=(conc - disc) / (conc + disc) if conc + disc else None,
              concordant=conc, discordant=disc)
    return {
        "n_groups": len(ids),
        "n_groups_min2": sum(1 for s in sizes if s >= 2),
        "group_ids": ids,
        "group_sizes_used": sizes,
        "pearson": pick(lambda p: p["pearson"]["r"]),
        "spearman": pick(lambda p: p["spearman"]["rho"]),
        "kendall_b": pick(lambda p: p["kendall_b"]["tau"]),
        "kendall_c": pick(lambda p: p["kendall_c"]["tau"]),
        "tau_23": pick(lambda p: p["tau_23"]),
        "acc_23": pick(lambda p: p["acc_23"]),
        "kendall_like": kl,
    }


def correlation_case(case):
    x, y = case["x"], case["y"]
    thresh = case.get("kendall_like_thresh", 25)
    eps = case.get("epsilon", 0.0)
    px = [a for a, b in zip(x, y) if present(a) and present(b)]
    py = [b for a, b in zip(x, y) if present(a) and present(b)]
    out = {"n_input": len(x), "n_used": len(px), "dataset": dataset_level(px, py, thresh, eps)}
    if "groups" in case:
        out["group"] = group_level(x, y, case["groups"], thresh, eps)
    return out


# ------------------------------------------------------------------ Williams


def williams(r12, r13, r23, n):
    out = {"r12": r12, "r13": r13, "r23": r23, "n": n, "df": None, "t": None,
           "p_greater": None, "p_abs_one_sided": None, "p_two_sided": None}
    if None in (r12, r13, r23) or n <= 3:
        return out
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    den = 2 * k * (n - 1) / (n - 3) + rbar ** 2 * (1 - r23) ** 3
    if den <= 0:
        return out
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(den)
    df = n - 3
    out.update(df=df, t=t, p_greater=float(st.t.sf(t, df)),
               p_abs_one_sided=float(st.t.sf(abs(t), df)),
               p_two_sided=min(1.0, 2 * float(st.t.sf(abs(t), df))))
    return out


def williams_case(case):
    if "human" in case:
        rows = [(h, a, b) for h, a, b in zip(case["human"], case["metric_a"], case["metric_b"])
                if present(h) and present(a) and present(b)]
        h, a, b = ([r[i] for r in rows] for i in range(3))
        return williams(pearson(h, a)[0], pearson(h, b)[0], pearson(a, b)[0], len(rows))
    return williams(case["r12"], case["r13"], case["r23"], case["n"])


# ------------------------------------------------------------------ resampling

STAT = {
    "pearson": lambda h, v: pearson(h, v)[0],
    "spearman": lambda h, v: spearman(h, v)[0],
    "kendall_b": lambda h, v: (kendall(h, v) or {}).get("b"),
    "kendall_c": lambda h, v: (kendall(h, v) or {}).get("c"),
}


def level_value(stat, h, v, groups):
    if groups is None:
        return STAT[stat](h, v)
    vals = []
    for members in groups:
        if len(members) >= 2:
            x = STAT[stat]([h[i] for i in members], [v[i] for i in members])
            if x is not None:
                vals.append(x)
    return sum(vals) / len(vals) if vals else None


def quantiles(v, conf):
    if not v:
        return None
    a = 1 - conf
    return [float(np.percentile(v, 100 * a / 2)), float(np.percentile(v, 100 * (1 - a / 2)))]


def resampling_case(case):
    rows = [i for i, (h, a, b) in enumerate(zip(case["human"], case["metric_a"], case["metric_b"]))
            if present(h) and present(a) and present(b)]
    h = [case["human"][i] for i in rows]
    a = [case["metric_a"][i] for i in rows]
    b = [case["metric_b"][i] for i in rows]
    level = case.get("level", "dataset")
    groups = None
    if level == "group":
        order, groups = {}, []
        for pos, i in enumerate(rows):
            g = case["groups"][i]
            if g not in order:
                order[g] = len(groups)
                groups.append([])
            groups[order[g]].append(pos)
    conf = case.get("confidence", 0.95)
    out = {"n_used": len(rows), "level": level}
    if groups is not None:
        # §8: the groups that still have used items, which the bootstrap indices point into.
        out["group_ids"] = list(order)
    za = (np.array(a) - np.mean(a)) / np.std(a) if np.std(a) > 0 else None
    zb = (np.array(b) - np.mean(b)) / np.std(b) if np.std(b) > 0 else None
    for stat in case["stats"]:
        oa, ob = level_value(stat, h, a, groups), level_value(stat, h, b, groups)
        va, vb, vd = [], [], []
        for draw in case["boot_indices"]:
            if groups is None:
                hh = [h[i] for i in draw]
                x, y = STAT[stat](hh, [a[i] for i in draw]), STAT[stat](hh, [b[i] for i in draw])
            else:
                def mean_of(v):
                    per = [level_value(stat, h, v, [groups[g]]) for g in draw]
                    per = [p for p in per if p is not None]
                    return sum(per) / len(per) if per else None
                x, y = mean_of(a), mean_of(b)
            if x is not None:
                va.append(x)
            if y is not None:
                vb.append(y)
            if x is not None and y is not None:
                vd.append(x - y)
        boot = {"n_resamples": len(case["boot_indices"]), "n_valid_a": len(va),
                "n_valid_b": len(vb), "n_valid_delta": len(vd), "ci_a": quantiles(va, conf),
                "ci_b": quantiles(vb, conf), "ci_delta": quantiles(vd, conf),
                "mean_delta": sum(vd) / len(vd) if vd else None,
                "frac_delta_le_0": sum(d <= 0 for d in vd) / len(vd) if vd else None}
        perm = {"n_permutations": len(case["perm_masks"]), "observed_delta_std": None,
                "n_ge": 0, "n_abs_ge": 0, "n_valid": 0, "p_greater": None, "p_two_sided": None}
        if za is not None and zb is not None:
            sa, sb = level_value(stat, h, list(za), groups), level_value(stat, h, list(zb), groups)
            if sa is not None and sb is not None:
                delta = sa - sb
                perm["observed_delta_std"] = delta
                for mask in case["perm_masks"]:
                    a2 = [zb[i] if m else za[i] for i, m in enumerate(mask)]
                    b2 = [za[i] if m else zb[i] for i, m in enumerate(mask)]
                    x, y = level_value(stat, h, a2, groups), level_value(stat, h, b2, groups)
                    if x is None or y is None:
                        continue
                    perm["n_valid"] += 1
                    perm["n_ge"] += (x - y) >= delta - 1e-12
                    perm["n_abs_ge"] += abs(x - y) >= abs(delta) - 1e-12
                if perm["n_valid"]:
                    perm["p_greater"] = perm["n_ge"] / perm["n_valid"]
                    perm["p_two_sided"] = perm["n_abs_ge"] / perm["n_valid"]
        out[stat] = {"observed_a": oa, "observed_b": ob,
                     "observed_delta": oa - ob if oa is not None and ob is not None else None,
                     "boot": boot, "perm": perm}
    return out


# ------------------------------------------------------------------ agreement


# §10: a null alpha says why. The package's own message where it raises; where it returns NaN
# (D_e = 0) this sentence, which Concord prints too.
ALPHA_NAN = "The expected disagreement is 0 (every pairable value is the same), so alpha is 0/0."


def kripp(data, level):
    """(alpha, reason): reason is None when alpha is a number."""
    arr = np.array([[np.nan if v is None else v for v in row] for row in data], dtype=float)
    try:
        v = num(krippendorff.alpha(reliability_data=arr, level_of_measurement=level))
    except ValueError as e:
        return None, str(e)
    return v, (ALPHA_NAN if v is None else None)


def continuous(data, cats):
    """§11.1: no declared categories and scikit-learn sees continuous targets -> no kappa."""
    from sklearn.utils.multiclass import type_of_target
    seen = [v for row in data for v in row if present(v)]
    return cats is None and bool(seen) and type_of_target(np.array(seen, float)) == "continuous"


def cohen(r1, r2, labels=None, weights=None):
    pairs = [(a, b) for a, b in zip(r1, r2) if present(a) and present(b)]
    if not pairs:
        return None
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    # sklearn rejects float labels: code every label by its sorted position (same weights).
    domain = sorted(set(labels or []) | set(a) | set(b))
    code = {v: i for i, v in enumerate(domain)}
    a, b = [code[v] for v in a], [code[v] for v in b]
    labels = list(range(len(domain))) if labels is not None else None
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return num(cohen_kappa_score(a, b, labels=labels, weights=weights))


def agreement_case(case):
    data = case["ratings"]
    cats = case.get("categories")
    out = {"n_raters": len(data), "n_units": max(len(r) for r in data), "krippendorff": {}}
    for lvl in ("nominal", "ordinal", "interval", "ratio"):
        value, reason = kripp(data, lvl)
        out["krippendorff"][lvl] = value
        if reason is not None:
            out["krippendorff"][lvl + "_error"] = reason
    if len(data) == 2:
        out["cohen"] = {
            "unweighted": cohen(data[0], data[1], cats),
            "linear": cohen(data[0], data[1], cats, "linear"),
            "quadratic": cohen(data[0], data[1], cats, "quadratic"),
            "linear_observed_labels": cohen(data[0], data[1], None, "linear"),
            "quadratic_observed_labels": cohen(data[0], data[1], None, "quadratic"),
        }
    pair = [cohen(data[i], data[j]) for i in range(len(data)) for j in range(i + 1, len(data))]
    pair = [p for p in pair if p is not None]
    out["mean_pairwise_cohen"] = sum(pair) / len(pair) if pair else None
    units = [[row[u] for row in data] for u in range(out["n_units"])
             if all(present(row[u]) for row in data)]
    kappa = None
    if units and len(data) >= 2:
        table, _ = aggregate_raters(np.array(units, dtype=float))
        p_e = ((table.sum(axis=0) / table.sum()) ** 2).sum()
        if p_e < 1:
            kappa = num(fleiss_kappa(table, method="fleiss"))
    out["fleiss"] = {"kappa": kappa, "n_units_used": len(units)}
    if continuous(data, cats):
        # §11.1: every kappa of the case is null, never one with each value as a category.
        for k in out.get("cohen", {}):
            out["cohen"][k] = None
        out["mean_pairwise_cohen"] = None
        out["fleiss"]["kappa"] = None
    return out


# ------------------------------------------------------------------ pairwise labels


def labels_case(case):
    pairs = [(j, g) for j, g in zip(case["judge"], case["gold"]) if j is not None and g is not None]
    n = len(pairs)
    wo = [(j, g) for j, g in pairs if j != "tie" and g != "tie"]
    gn = [(j, g) for j, g in pairs if g != "tie"]
    half = sum(1 if j == g else 0.5 if "tie" in (j, g) else 0 for j, g in pairs)
    strict = sum(j == g for j, g in gn)
    ratio = lambda a, b: a / b if b else None
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = num(cohen_kappa_score([p[0] for p in pairs], [p[1] for p in pairs],
                                      labels=["A", "B", "tie"])) if pairs else None
    return {"n_used": n, "agreement_with_ties": ratio(sum(j == g for j, g in pairs), n),
            "agreement_without_ties": ratio(sum(j == g for j, g in wo), len(wo)),
            "n_without_ties": len(wo), "accuracy_tie_half_credit": ratio(half, n),
            "accuracy_gold_nontie_strict": ratio(strict, len(gn)),
            "accuracy_gold_nontie_judge_tie_half":
                ratio(strict + 0.5 * sum(j == "tie" for j, _ in gn), len(gn)),
            "n_gold_nontie": len(gn), "cohen_kappa": kappa}


# ------------------------------------------------------------------ matches


def matches_case(case):
    models = case["models"]
    idx = {m: i for i, m in enumerate(models)}
    policy = case.get("null_outcome", "tie")
    k, init, scale, base = (case.get(f, d) for f, d in
                            (("k", 4), ("init", 1000), ("scale", 400), ("base", 10)))
    lam = case.get("bt_l2", 0.01)
    games = []  # (a, b, score of a) or None when skipped
    for a, b, o in case["matches"]:
        s = {"a": 1.0, "b": 0.0, "tie": 0.5, None: 0.5 if policy == "tie" else None}[o]
        games.append(None if s is None else (idx[a], idx[b], s))

    def elo(order):
        r = [float(init)] * len(models)
        for i in order:
            g = games[i]
            if g is None:
                continue
            a, b, s = g
            ea = 1 / (1 + base ** ((r[b] - r[a]) / scale))
            eb = 1 / (1 + base ** ((r[a] - r[b]) / scale))
            r[a] += k * (s - ea)
            r[b] += k * (1 - s - eb)
        return r

    m = len(models)
    used = [g for g in games if g is not None]
    w, l, t = [0] * m, [0] * m, [0] * m
    beat = np.zeros((m, m))
    drew = np.zeros((m, m))
    for a, b, s in used:
        if s == 1:
            w[a] += 1; l[b] += 1; beat[a, b] += 1
        elif s == 0:
            w[b] += 1; l[a] += 1; beat[b, a] += 1
        else:
            t[a] += 1; t[b] += 1; drew[a, b] += 1; drew[b, a] += 1
    ratio = lambda x, y: x / y if y else None

    def pairwise(credit):
        return [[None if i == j else ratio(beat[i, j] + credit * drew[i, j],
                                           beat[i, j] + beat[j, i] + drew[i, j])
                 for j in range(m)] for i in range(m)]

    def bt(lam_):
        # Exact gradient and Hessian with scipy's trust-exact converge to machine precision.
        proj = np.vstack([np.eye(m - 1), -np.ones((1, m - 1))]) if lam_ == 0 else np.eye(m)

        def parts(free):
            th = proj @ free
            v, g, hmat = lam_ / 2 * (th ** 2).sum(), lam_ * th.copy(), lam_ * np.eye(m)
            for a, b, s in used:
                d = th[a] - th[b]
                v += s * np.logaddexp(0, -d) + (1 - s) * np.logaddexp(0, d)
                p = 1 / (1 + np.exp(-d))
                e = np.zeros(m)
                e[a], e[b] = 1, -1
                g -= (s - p) * e
                hmat += p * (1 - p) * np.outer(e, e)
            return v, proj.T @ g, proj.T @ hmat @ proj

        res = minimize(lambda f: parts(f)[0], np.zeros(proj.shape[1]), method="trust-exact",
                       jac=lambda f: parts(f)[1], hess=lambda f: parts(f)[2],
                       options={"gtol": 1e-14, "maxiter": 1000})
        th = proj @ res.x
        th = th - th.mean()
        return [float(init + scale * v / math.log(base)) for v in th]

    adj = np.zeros((m, m))
    for a, b, s in used:
        if s > 0:
            adj[a, b] = 1
        if s < 1:
            adj[b, a] = 1
    played = all(w[i] + l[i] + t[i] > 0 for i in range(m))
    exists = played and connected_components(csr_matrix(adj), connection="strong")[0] == 1
    orders = case["orders"]
    mean = np.mean([elo(o) for o in orders], axis=0).tolist() if orders else None
    return {"models": models, "n_matches_used": len(used),
            "n_null_outcomes": sum(o is None for _, _, o in case["matches"]),
            "null_outcome": policy, "elo_given_order": elo(range(len(games))),
            "elo_mean_over_orders": mean, "n_orders": len(orders),
            "wins": w, "losses": l, "ties": t,
            "win_rate": [ratio(w[i] + 0.5 * t[i], w[i] + l[i] + t[i]) for i in range(m)],
            "win_rate_no_ties": [ratio(w[i], w[i] + l[i]) for i in range(m)],
            "win_rate_ties_zero": [ratio(w[i], w[i] + l[i] + t[i]) for i in range(m)],
            "pairwise_win_rate": pairwise(0.0), "pairwise_win_rate_tie_half": pairwise(0.5),
            "bt_exists": bool(exists), "bt": bt(0) if exists else None, "bt_l2": bt(lam),
            "bt_l2_lambda": lam}


KINDS = {"correlation": correlation_case, "williams": williams_case,
         "resampling": resampling_case, "agreement": agreement_case,
         "pairwise_labels": labels_case, "matches": matches_case}


# ------------------------------------------------------------------ the cases


def make_cases():
    rng = np.random.default_rng(20260422)
    cases = []

    def add(**c):
        cases.append(c)

    def likert(n, lo=1, hi=5):
        return [int(v) for v in rng.integers(lo, hi + 1, n)]

    def cont(n, scale=1.0):
        return [round(float(v), 6) for v in rng.normal(0, scale, n)]

    # n = 0, 1, 2, 3 and constant vectors
    add(id="n0", kind="correlation", x=[], y=[])
    add(id="n1-after-deletion", kind="correlation", x=[1, None, 3], y=[2, 5, None])
    add(id="n2-negative", kind="correlation", x=[1, 2], y=[5, 3], kendall_like_thresh=1)
    add(id="n2-tied-x", kind="correlation", x=[2, 2], y=[1, 3])
    add(id="n3-no-ties", kind="correlation", x=[1.5, 0.2, 3.3], y=[2.0, 1.0, 0.5])
    add(id="n3-ties", kind="correlation", x=[1, 1, 2], y=[3, 1, 2], kendall_like_thresh=1)
    add(id="n3-exactly-linear", kind="correlation", x=[1, 2, 3], y=[2, 4, 6])
    add(id="n3-exactly-linear-decreasing", kind="correlation", x=[0.1, 0.2, 0.3], y=[0.3, 0.2, 0.1])
    add(id="n3-identical-decimals", kind="correlation", x=[1.1, 2.7, 3.9], y=[1.1, 2.7, 3.9])
    add(id="n4-monotone-not-linear", kind="correlation", x=[1, 2, 3, 4], y=[1, 5, 9, 10])
    add(id="both-constant", kind="correlation", x=[4, 4, 4, 4], y=[2, 2, 2, 2])
    add(id="constant-metric", kind="correlation", x=[1, 2, 3, 4, 5], y=[3, 3, 3, 3, 3],
        kendall_like_thresh=2)
    add(id="all-missing", kind="correlation", x=[None, None, 1], y=[1, 2, None])
    # exact/asymptotic boundary and the c ≤ 1 shortcut
    for n in (33, 34):
        x = list(range(1, n + 1))
        y = x[:]
        perm = rng.permutation(n)
        y = [float(v) for v in np.array(x)[perm]]
        add(id=f"boundary-n{n}-random", kind="correlation", x=x, y=y)
        yy = x[:]
        yy[5], yy[6] = yy[6], yy[5]
        add(id=f"boundary-n{n}-one-discordant", kind="correlation", x=x, y=yy)
    add(id="n40-one-discordant", kind="correlation", x=list(range(40)),
        y=[1, 0] + list(range(2, 40)))
    add(id="n40-reversed", kind="correlation", x=list(range(40)), y=list(range(40, 0, -1)))
    add(id="n12-half-concordant", kind="correlation", x=list(range(1, 5)), y=[2, 4, 1, 3])
    # ties, Likert scales, missing values, near-constant (not constant) scores
    add(id="likert-ties-50", kind="correlation", x=likert(50), y=likert(50),
        kendall_like_thresh=2, epsilon=0.5)
    x = cont(60)
    add(id="continuous-missing-60", kind="correlation",
        x=[None if i % 7 == 0 else v for i, v in enumerate(x)],
        y=[None if i % 11 == 3 else round(v + float(rng.normal(0, 0.7)), 6)
           for i, v in enumerate(x)], kendall_like_thresh=0.5, epsilon=0.1)
    add(id="near-constant", kind="correlation", x=[4.0001, 4.0002, 4.0001, 4.0003, 4.0002],
        y=[1, 2, 1, 3, 3])
    add(id="tied-both-dense", kind="correlation", x=[1, 1, 2, 2, 3, 3, 3, 1],
        y=[1, 1, 2, 1, 3, 3, 2, 2], kendall_like_thresh=1, epsilon=0)
    add(id="wmt-da-scale", kind="correlation",
        x=[float(v) for v in rng.integers(0, 101, 40)], y=cont(40))
    # groups: constant groups, single-item, all-missing, missing inside a group
    docs = [f"doc{i // 6}" for i in range(36)]
    gx = likert(36)
    gy = [round(float(v), 3) for v in rng.normal(3, 1, 36)]
    gx[6:12] = [3] * 6                      # doc1: constant human
    gy[12:18] = [2.5] * 6                   # doc2: constant metric
    for i in range(18, 24):                 # doc3: all missing
        gx[i] = None
    for i in range(25, 30):                 # doc4: one item left
        gy[i] = None
    gx[31] = None                           # doc5: one missing
    add(id="groups-edge", kind="correlation", x=gx, y=gy, groups=docs, kendall_like_thresh=1,
        epsilon=0.25)
    add(id="groups-interleaved-int-ids", kind="correlation", x=likert(20), y=likert(20),
        groups=[i % 4 for i in range(20)], kendall_like_thresh=1)
    add(id="groups-none-valid", kind="correlation", x=[1, 1, 2, 2, 5], y=[1, 2, 3, 3, 4],
        groups=["a", "a", "b", "b", "c"])
    # Williams
    add(id="williams-n3", kind="williams", r12=0.5, r13=0.4, r23=0.2, n=3)
    add(id="williams-n4", kind="williams", r12=0.9, r13=0.2, r23=0.1, n=4)
    add(id="williams-negative", kind="williams", r12=-0.3, r13=0.45, r23=-0.2, n=120)
    add(id="williams-equal", kind="williams", r12=0.6, r13=0.6, r23=0.5, n=30)
    h = cont(25)
    add(id="williams-vectors-missing", kind="williams", human=[None] + h[1:],
        metric_a=[round(v + float(rng.normal(0, .5)), 6) for v in h],
        metric_b=[round(v + float(rng.normal(0, 1)), 6) if i != 4 else None
                  for i, v in enumerate(h)])
    add(id="williams-vectors-constant", kind="williams", human=[1, 2, 3, 4, 5],
        metric_a=[2, 2, 2, 2, 2], metric_b=[1, 3, 2, 5, 4])
    # resampling: dataset level with ties and missing values; group level
    n = 30
    h = likert(n)
    a = [v + float(rng.normal(0, 1)) for v in h]
    b = likert(n)
    h[3] = None
    b[7] = None
    used = n - 2
    add(id="resample-dataset", kind="resampling", human=h, metric_a=[round(v, 6) for v in a],
        metric_b=b, level="dataset", confidence=0.9,
        stats=["pearson", "spearman", "kendall_b", "kendall_c"],
        boot_indices=[[int(i) for i in rng.integers(0, used, used)] for _ in range(25)],
        perm_masks=[[int(i) for i in rng.integers(0, 2, used)] for _ in range(20)])
    groups = [f"g{i // 5}" for i in range(40)]
    h = likert(40)
    a = [round(v + float(rng.normal(0, 1)), 4) for v in h]
    b = [round(v + float(rng.normal(0, 2)), 4) for v in h]
    h[0:5] = [2] * 5                        # g0 constant human
    for i in range(10, 15):                 # g2 all missing
        a[i] = None
    h[20] = h[21] = h[22] = h[23] = None    # g4 single item
    gused = 40 - 5 - 4
    add(id="resample-group", kind="resampling", human=h, metric_a=a, metric_b=b,
        groups=groups, level="group", confidence=0.95, stats=["pearson", "kendall_b"],
        boot_indices=[[int(i) for i in rng.integers(0, 7, 7)] for _ in range(30)],
        perm_masks=[[int(i) for i in rng.integers(0, 2, gused)] for _ in range(15)])
    add(id="resample-tiny", kind="resampling", human=[1, 2, 3], metric_a=[1, 3, 2],
        metric_b=[3, 3, 3], level="dataset", stats=["pearson", "kendall_b"],
        boot_indices=[[0, 0, 0], [0, 1, 2], [2, 1, 1]], perm_masks=[[0, 0, 0], [1, 0, 1]])
    # agreement
    add(id="agree-likert-missing", kind="agreement",
        ratings=[[None if rng.random() < 0.2 else int(v) for v in rng.integers(1, 6, 30)]
                 for _ in range(3)])
    add(id="agree-two-raters-continuous", kind="agreement",
        ratings=[cont(15), cont(15)])
    add(id="agree-constant-matrix", kind="agreement", ratings=[[3, 3, 3], [3, 3, 3]],
        categories=[1, 2, 3, 4, 5])
    add(id="agree-constant-with-unpairable", kind="agreement",
        ratings=[[3, 3, None, 1], [3, 3, 2, None]])
    add(id="agree-no-pairable", kind="agreement", ratings=[[1, None, 2], [None, 3, None]])
    add(id="agree-ratio-zero", kind="agreement", ratings=[[0, 1, 2, 0], [0, 2, 2, 1], [1, 1, 2, 0]])
    add(id="agree-five-raters", kind="agreement",
        ratings=[[int(v) for v in rng.integers(1, 4, 12)] for _ in range(5)])
    add(id="agree-cohen-categories", kind="agreement",
        ratings=[[1, 2, 5, 5, 2, 1], [1, 3, 5, 4, 2, 2]], categories=[1, 2, 3, 4, 5, 6, 7])
    # pairwise labels
    add(id="labels-all-ties", kind="pairwise_labels", judge=["tie", "tie", "A"],
        gold=["tie", "B", "tie"])
    add(id="labels-random", kind="pairwise_labels",
        judge=[[None, "A", "B", "tie"][i] for i in rng.integers(0, 4, 40)],
        gold=[["A", "B", "tie", None][i] for i in rng.integers(0, 4, 40)])
    # matches
    ms = ["m0", "m1", "m2", "m3"]
    games = [[ms[a], ms[b], ["a", "b", "tie", None][o]]
             for a, b, o in zip(rng.integers(0, 4, 30), rng.integers(0, 4, 30),
                                rng.integers(0, 4, 30)) if a != b]
    add(id="matches-random", kind="matches", models=ms, matches=games,
        orders=[[int(i) for i in rng.permutation(len(games))] for _ in range(5)], bt_l2=0.01)
    add(id="matches-random-skip", kind="matches", models=ms, matches=games, null_outcome="skip",
        orders=[[int(i) for i in rng.permutation(len(games))] for _ in range(3)], bt_l2=0.05)
    add(id="matches-unplayed-model", kind="matches", models=["x", "y", "z"],
        matches=[["x", "y", "a"], ["y", "x", "a"], ["x", "y", "tie"]], orders=[[2, 1, 0]],
        bt_l2=0.01)
    add(id="matches-undefeated-chain", kind="matches", models=["a", "b", "c", "d"],
        matches=[["a", "b", "a"], ["b", "c", "a"], ["c", "d", "a"], ["d", "b", "a"],
                 ["c", "b", "tie"]], orders=[[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]], bt_l2=0.01,
        k=32, init=1500)
    add(id="matches-all-null-skip", kind="matches", models=["p", "q"],
        matches=[["p", "q", None], ["q", "p", None]], orders=[[1, 0]], null_outcome="skip")
    return cases


def main():
    cases = make_cases()
    results = []
    for case in cases:
        out = {"id": case["id"], "kind": case["kind"]}
        out.update(KINDS[case["kind"]](case))
        results.append(out)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "edge.cases.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")
    oracle = {"oracle_version": 1, "python": sys.version.split()[0], "numpy": np.__version__,
              "scipy": scipy.__version__, "krippendorff": getattr(krippendorff, "__version__", "?"),
              "scikit-learn": sklearn.__version__, "statsmodels": statsmodels.__version__,
              "script": "benches/stats_make_fixtures.py"}
    with open(os.path.join(OUT, "edge.expected.json"), "w") as f:
        json.dump({"oracle": oracle, "results": results}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
