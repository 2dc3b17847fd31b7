#!/usr/bin/env python3
"""A second oracle for STATS_SPEC.md (audit of issue 3).

compute(case) -> result dict in expected.json's format. Written from the spec, using scipy /
krippendorff / scikit-learn / statsmodels where they compute the statistic, naive O(n^2)
definitions otherwise. Williams' test, the group-level counts, the bootstrap / permutation
outputs and Fleiss' kappa follow stats_make_fixtures.py's transcription closely.
"""
import math
import warnings

import numpy as np
import krippendorff
from scipy import stats as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

warnings.filterwarnings("ignore")


def ok(v):
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def fnum(v):
    if v is None:
        return None
    v = float(v)
    return None if (math.isnan(v) or math.isinf(v)) else v


def is_const(v):
    return all(a == v[0] for a in v)


# ---------------------------------------------------------------- correlations

def counts(x, y):
    C = D = TX = TY = TXY = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            if dx == 0 and dy == 0:
                TXY += 1
            elif dx == 0:
                TX += 1
            elif dy == 0:
                TY += 1
            elif (dx > 0) == (dy > 0):
                C += 1
            else:
                D += 1
    return dict(concordant=C, discordant=D, tie_x_only=TX, tie_y_only=TY, tie_both=TXY,
                pairs=n * (n - 1) // 2)


def pearson(x, y):
    n = len(x)
    if n < 2 or is_const(x) or is_const(y):
        return None, None
    r, p = st.pearsonr(np.array(x, float), np.array(y, float))
    if n == 2:
        p = 1.0
    return fnum(r), fnum(p)


def spearman(x, y):
    n = len(x)
    if n < 2 or is_const(x) or is_const(y):
        return None, None
    res = st.spearmanr(np.array(x, float), np.array(y, float))
    rho = float(res.statistic)
    if n == 2:
        return rho, 1.0
    return fnum(rho), fnum(res.pvalue)


def kendall(x, y, cnt):
    n = len(x)
    if n < 2 or is_const(x) or is_const(y):
        return None
    xa, ya = np.array(x, float), np.array(y, float)
    b = st.kendalltau(xa, ya, variant="b")
    c = st.kendalltau(xa, ya, variant="c")
    ties = len(set(x)) < n or len(set(y)) < n
    d, n0 = cnt["discordant"], cnt["pairs"]
    exact = (not ties) and (n <= 33 or min(d, n0 - d) <= 1)
    return dict(b=fnum(b.statistic), c=fnum(c.statistic), p=fnum(b.pvalue), pc=fnum(c.pvalue),
                method="exact" if exact else "asymptotic")


def tau23(x, y, eps):
    n = len(x)
    if n < 2:
        return None, None
    C = D = TX = TY = TXY = 0
    for i in range(n):
        for j in range(i + 1, n):
            gt = x[i] == x[j]
            mt = abs(y[i] - y[j]) <= eps
            if gt and mt:
                TXY += 1
            elif gt:
                TX += 1
            elif mt:
                TY += 1
            elif (x[i] > x[j]) == (y[i] > y[j]):
                C += 1
            else:
                D += 1
    n0 = n * (n - 1) / 2
    return (C + TXY - D - TX - TY) / n0, (C + TXY) / n0


def klike(x, y, thresh):
    conc = disc = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            if abs(x[i] - x[j]) >= thresh:
                if (x[i] - x[j]) * (y[i] - y[j]) > 0:
                    conc += 1
                else:
                    disc += 1
    return dict(tau=(conc - disc) / (conc + disc) if conc + disc else None,
                concordant=conc, discordant=disc)


def dataset(x, y, thresh, eps):
    cnt = counts(x, y)
    r, rp = pearson(x, y)
    rho, sp = spearman(x, y)
    k = kendall(x, y, cnt)
    t23, a23 = tau23(x, y, eps)
    n0 = cnt["pairs"]
    return {
        "pearson": {"r": r, "p": rp},
        "spearman": {"rho": rho, "p": sp},
        "kendall_b": {"tau": k["b"] if k else None, "p": k["p"] if k else None,
                      "p_method": k["method"] if k else None},
        "kendall_c": {"tau": k["c"] if k else None, "p": k["p"] if k else None},
        "kendall_a": {"tau": (cnt["concordant"] - cnt["discordant"]) / n0 if n0 else None},
        "counts": cnt,
        "tau_23": t23,
        "acc_23": a23,
        "kendall_like": klike(x, y, thresh),
    }


def gstat(vals, n_min2):
    valid = [v for v in vals if v is not None]
    return {"mean": (sum(valid) / len(valid)) if valid else None,
            "mean_nan_as_zero": (sum(valid) / n_min2) if (valid and n_min2) else None,
            "n_valid": len(valid), "values": vals}


def correlation(case):
    x, y = case["x"], case["y"]
    thresh = case.get("kendall_like_thresh", 25)
    if thresh is None:
        thresh = 25
    eps = case.get("epsilon", 0.0) or 0.0
    used = [(a, b) for a, b in zip(x, y) if ok(a) and ok(b)]
    px = [a for a, _ in used]
    py = [b for _, b in used]
    out = {"n_input": len(x), "n_used": len(used), "dataset": dataset(px, py, thresh, eps)}
    if case.get("groups") is not None:
        ids, mem = [], {}
        keyof = lambda g: (type(g).__name__ if not isinstance(g, (int, float)) or isinstance(g, bool) else "num", g)
        for a, b, g in zip(x, y, case["groups"]):
            # §6: every input group is listed; one with no paired item has size 0, values null
            k = json_key(g)
            if k not in mem:
                ids.append(g)
                mem[k] = ([], [])
            if ok(a) and ok(b):
                mem[k][0].append(a)
                mem[k][1].append(b)
        keys = [json_key(g) for g in ids]
        sizes = [len(mem[k][0]) for k in keys]
        per = [dataset(mem[k][0], mem[k][1], thresh, eps) if len(mem[k][0]) >= 2 else None
               for k in keys]
        nm2 = sum(s >= 2 for s in sizes)
        pick = lambda f: gstat([f(p) if p else None for p in per], nm2)
        conc = sum(p["kendall_like"]["concordant"] for p in per if p)
        disc = sum(p["kendall_like"]["discordant"] for p in per if p)
        kl = pick(lambda p: p["kendall_like"]["tau"])
        kl["micro"] = (conc - disc) / (conc + disc) if conc + disc else None
        kl["concordant"] = conc
        kl["discordant"] = disc
        out["group"] = {
            "n_groups": len(ids), "n_groups_min2": nm2, "group_ids": ids,
            "group_sizes_used": sizes,
            "pearson": pick(lambda p: p["pearson"]["r"]),
            "spearman": pick(lambda p: p["spearman"]["rho"]),
            "kendall_b": pick(lambda p: p["kendall_b"]["tau"]),
            "kendall_c": pick(lambda p: p["kendall_c"]["tau"]),
            "tau_23": pick(lambda p: p["tau_23"]),
            "acc_23": pick(lambda p: p["acc_23"]),
            "kendall_like": kl,
        }
    return out


def json_key(g):
    # group ids are JSON scalars; distinguish by JSON text (1 vs "1")
    import json
    return json.dumps(g)


# ---------------------------------------------------------------- Williams

def williams_core(r12, r13, r23, n):
    out = {"r12": r12, "r13": r13, "r23": r23, "n": n, "df": None, "t": None,
           "p_greater": None, "p_abs_one_sided": None, "p_two_sided": None}
    if r12 is None or r13 is None or r23 is None or n <= 3:
        return out
    K = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    den = 2 * K * (n - 1) / (n - 3) + rbar ** 2 * (1 - r23) ** 3
    if not den > 0:
        return out
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(den)
    df = n - 3
    out.update(df=df, t=t, p_greater=float(st.t.sf(t, df)),
               p_abs_one_sided=float(st.t.sf(abs(t), df)),
               p_two_sided=min(1.0, 2 * float(st.t.sf(abs(t), df))))
    return out


def williams(case):
    if "human" in case:
        rows = [(h, a, b) for h, a, b in zip(case["human"], case["metric_a"], case["metric_b"])
                if ok(h) and ok(a) and ok(b)]
        h = [r[0] for r in rows]
        a = [r[1] for r in rows]
        b = [r[2] for r in rows]
        return williams_core(pearson(h, a)[0], pearson(h, b)[0], pearson(a, b)[0], len(rows))
    return williams_core(case["r12"], case["r13"], case["r23"], case["n"])


# ---------------------------------------------------------------- resampling

def stat_fn(name, h, v):
    if name == "pearson":
        return pearson(h, v)[0]
    if name == "spearman":
        return spearman(h, v)[0]
    if name in ("kendall_b", "kendall_c"):
        if len(h) < 2 or is_const(h) or is_const(v):
            return None
        return fnum(st.kendalltau(h, v, variant=name[-1]).statistic)
    if name == "tau_23":
        return tau23(h, v, 0.0)[0]
    if name == "acc_23":
        return tau23(h, v, 0.0)[1]
    raise ValueError(name)


def type7(v, q):
    v = sorted(v)
    return float(np.quantile(np.array(v), q))


def resampling(case):
    H, A, B = case["human"], case["metric_a"], case["metric_b"]
    rows = [i for i in range(len(H)) if ok(H[i]) and ok(A[i]) and ok(B[i])]
    h = [H[i] for i in rows]
    a = [A[i] for i in rows]
    b = [B[i] for i in rows]
    level = case.get("level", "dataset")
    groups = None
    gids = []
    if level == "group":
        order = {}
        groups = []
        for pos, i in enumerate(rows):
            k = json_key(case["groups"][i])
            if k not in order:
                order[k] = len(groups)
                groups.append([])
                gids.append(case["groups"][i])
            groups[order[k]].append(pos)
    conf = case.get("confidence", 0.95)
    alpha = 1 - conf

    def lvl(name, vh, vv):
        if groups is None:
            return stat_fn(name, vh, vv)
        vals = []
        for g in groups:
            if len(g) >= 2:
                s = stat_fn(name, [vh[i] for i in g], [vv[i] for i in g])
                if s is not None:
                    vals.append(s)
        return sum(vals) / len(vals) if vals else None

    def pergroup(name, vv):
        return [stat_fn(name, [h[i] for i in g], [vv[i] for i in g]) if len(g) >= 2 else None
                for g in groups]

    out = {"n_used": len(rows), "level": level}
    if groups is not None:
        out["group_ids"] = gids  # §8: the groups with used items, as resampled
    sa_ = np.std(np.array(a, float)) if a else 0.0
    sb_ = np.std(np.array(b, float)) if b else 0.0
    for name in case["stats"]:
        oa, ob = lvl(name, h, a), lvl(name, h, b)
        va, vb, vd = [], [], []
        if groups is not None:
            pa, pb = pergroup(name, a), pergroup(name, b)
        for draw in case["boot_indices"]:
            if groups is None:
                hh = [h[i] for i in draw]
                x = stat_fn(name, hh, [a[i] for i in draw])
                y = stat_fn(name, hh, [b[i] for i in draw])
            else:
                xs = [pa[g] for g in draw if pa[g] is not None]
                ys = [pb[g] for g in draw if pb[g] is not None]
                x = sum(xs) / len(xs) if xs else None
                y = sum(ys) / len(ys) if ys else None
            if x is not None:
                va.append(x)
            if y is not None:
                vb.append(y)
            if x is not None and y is not None:
                vd.append(x - y)
        ci = lambda v: [type7(v, alpha / 2), type7(v, 1 - alpha / 2)] if v else None
        boot = {"n_resamples": len(case["boot_indices"]), "n_valid_a": len(va),
                "n_valid_b": len(vb), "n_valid_delta": len(vd),
                "ci_a": ci(va), "ci_b": ci(vb), "ci_delta": ci(vd),
                "mean_delta": sum(vd) / len(vd) if vd else None,
                "frac_delta_le_0": sum(1 for d in vd if d <= 0) / len(vd) if vd else None}
        perm = {"n_permutations": len(case["perm_masks"]), "observed_delta_std": None,
                "n_ge": 0, "n_abs_ge": 0, "n_valid": 0, "p_greater": None, "p_two_sided": None}
        if len(a) >= 2 and sa_ > 0 and sb_ > 0:
            za = list((np.array(a, float) - np.mean(a)) / sa_)
            zb = list((np.array(b, float) - np.mean(b)) / sb_)
            sa, sb = lvl(name, h, za), lvl(name, h, zb)
            if sa is not None and sb is not None:
                delta = sa - sb
                perm["observed_delta_std"] = delta
                for m in case["perm_masks"]:
                    a2 = [zb[i] if m[i] else za[i] for i in range(len(m))]
                    b2 = [za[i] if m[i] else zb[i] for i in range(len(m))]
                    x, y = lvl(name, h, a2), lvl(name, h, b2)
                    if x is None or y is None:
                        continue
                    perm["n_valid"] += 1
                    perm["n_ge"] += int((x - y) >= delta - 1e-12)
                    perm["n_abs_ge"] += int(abs(x - y) >= abs(delta) - 1e-12)
                if perm["n_valid"]:
                    perm["p_greater"] = perm["n_ge"] / perm["n_valid"]
                    perm["p_two_sided"] = perm["n_abs_ge"] / perm["n_valid"]
        out[name] = {"observed_a": oa, "observed_b": ob,
                     "observed_delta": (oa - ob) if (oa is not None and ob is not None) else None,
                     "boot": boot, "perm": perm}
    return out


# ---------------------------------------------------------------- agreement

# §10: where the package returns NaN (D_e = 0) rather than raising, the reason is this sentence.
ALPHA_NAN = "The expected disagreement is 0 (every pairable value is the same), so alpha is 0/0."


def kripp(data, level):
    """(alpha, reason): the reason is the package's own message when it raises."""
    numeric = all(isinstance(v, (int, float)) for row in data for v in row if v is not None)
    if numeric:
        arr = np.array([[np.nan if v is None else float(v) for v in row] for row in data], float)
    elif level != "nominal":
        # strings: the package itself refuses an unordered domain beyond nominal
        arr = np.array([["nan" if v is None else str(v) for v in row] for row in data])
    else:
        # code labels numerically (nominal only)
        labs = {}
        arr = np.array([[np.nan if v is None else labs.setdefault(v, len(labs)) for v in row]
                        for row in data], float)
    try:
        v = fnum(krippendorff.alpha(reliability_data=arr, level_of_measurement=level))
    except ValueError as e:
        return None, str(e)
    return v, (ALPHA_NAN if v is None else None)


def continuous(data, cats):
    """§11.1: kappa needs categories; none declared and continuous values -> every kappa null."""
    from sklearn.utils.multiclass import type_of_target
    vals = [v for row in data for v in row if ok(v)]
    if cats is not None or not vals or not all(isinstance(v, (int, float)) for v in vals):
        return False
    return type_of_target(np.array(vals, float)) == "continuous"


def cohen2(r1, r2, cats=None, weights=None):
    pairs = [(a, b) for a, b in zip(r1, r2) if ok(a) and ok(b)]
    if not pairs:
        return None
    dom = sorted(set(cats or []) | {p[0] for p in pairs} | {p[1] for p in pairs})
    code = {v: i for i, v in enumerate(dom)}
    a = [code[p[0]] for p in pairs]
    b = [code[p[1]] for p in pairs]
    return fnum(cohen_kappa_score(a, b, labels=list(range(len(dom))), weights=weights))


def agreement(case):
    data = case["ratings"]
    cats = case.get("categories")
    nu = max((len(r) for r in data), default=0)
    out = {"n_raters": len(data), "n_units": nu, "krippendorff": {}}
    for lvl in ("nominal", "ordinal", "interval", "ratio"):
        value, reason = kripp(data, lvl)
        out["krippendorff"][lvl] = value
        if reason is not None:
            out["krippendorff"][lvl + "_error"] = reason
    no_kappa = continuous(data, cats)
    if len(data) == 2:
        out["cohen"] = {
            "unweighted": cohen2(data[0], data[1], cats),
            "linear": cohen2(data[0], data[1], cats, "linear"),
            "quadratic": cohen2(data[0], data[1], cats, "quadratic"),
            "linear_observed_labels": cohen2(data[0], data[1], None, "linear"),
            "quadratic_observed_labels": cohen2(data[0], data[1], None, "quadratic"),
        }
    ks = []
    for i in range(len(data)):
        for j in range(i + 1, len(data)):
            k = cohen2(data[i], data[j])
            if k is not None:
                ks.append(k)
    out["mean_pairwise_cohen"] = sum(ks) / len(ks) if ks else None
    units = [[row[u] for row in data] for u in range(nu)
             if all(u < len(row) and ok(row[u]) for row in data)]
    kappa = None
    if units and len(data) >= 2:
        cats_seen = sorted({v for u in units for v in u}, key=lambda v: (str(type(v)), v))
        idx = {v: i for i, v in enumerate(cats_seen)}
        table = np.zeros((len(units), len(cats_seen)))
        for ui, u in enumerate(units):
            for v in u:
                table[ui, idx[v]] += 1
        pcat = table.sum(0) / table.sum()
        if (pcat ** 2).sum() < 1:
            kappa = fnum(sm_fleiss(table, method="fleiss"))
    out["fleiss"] = {"kappa": kappa, "n_units_used": len(units)}
    if no_kappa:
        for k in out.get("cohen", {}):
            out["cohen"][k] = None
        out["mean_pairwise_cohen"] = None
        out["fleiss"]["kappa"] = None
    return out


# ---------------------------------------------------------------- pairwise labels

def labels(case):
    P = [(j, g) for j, g in zip(case["judge"], case["gold"]) if j is not None and g is not None]
    n = len(P)
    R = lambda a, b: a / b if b else None
    wo = [(j, g) for j, g in P if j != "tie" and g != "tie"]
    gn = [(j, g) for j, g in P if g != "tie"]
    half = sum(1.0 if j == g else (0.5 if (j == "tie" or g == "tie") else 0.0) for j, g in P)
    strict = sum(j == g for j, g in gn)
    jt = sum(j == "tie" for j, g in gn)
    kappa = None
    if P:
        kappa = fnum(cohen_kappa_score([p[0] for p in P], [p[1] for p in P],
                                       labels=["A", "B", "tie"]))
    return {"n_used": n, "agreement_with_ties": R(sum(j == g for j, g in P), n),
            "agreement_without_ties": R(sum(j == g for j, g in wo), len(wo)),
            "n_without_ties": len(wo), "accuracy_tie_half_credit": R(half, n),
            "accuracy_gold_nontie_strict": R(strict, len(gn)),
            "accuracy_gold_nontie_judge_tie_half": R(strict + 0.5 * jt, len(gn)),
            "n_gold_nontie": len(gn), "cohen_kappa": kappa}


# ---------------------------------------------------------------- matches

def bt_fit(M, games, lam):
    """Newton on theta (float64) with step-halving safeguard; games=[(a,b,s)]."""
    th = np.zeros(M)
    agg = {}
    for a, b, s in games:
        if a == b:
            continue
        k = (a, b, s)
        agg[k] = agg.get(k, 0) + 1
    for it in range(2000):
        g = -lam * th
        Hm = lam * np.eye(M)
        for (a, b, s), cnt in agg.items():
            p = 1 / (1 + math.exp(-(th[a] - th[b])))
            g[a] += cnt * (s - p)
            g[b] -= cnt * (s - p)
            w = cnt * p * (1 - p)
            Hm[a, a] += w
            Hm[b, b] += w
            Hm[a, b] -= w
            Hm[b, a] -= w
        if lam == 0:
            Hm = Hm + np.ones((M, M)) / M
        step = np.linalg.solve(Hm, g)
        th = th + step
        if lam == 0:
            th = th - th.mean()
        if np.max(np.abs(step)) < 1e-14:
            break
    return th


def matches(case):
    models = case["models"]
    M = len(models)
    idx = {json_name(m): i for i, m in enumerate(models)}
    pol = case.get("null_outcome", "tie")
    K = case.get("k", 4)
    init = case.get("init", 1000)
    scale = case.get("scale", 400)
    base = case.get("base", 10)
    lam = case.get("bt_l2", 0.01)
    games = []
    for a, b, o in case["matches"]:
        if o is None:
            s = 0.5 if pol == "tie" else None
        else:
            s = {"a": 1.0, "b": 0.0, "tie": 0.5}[o]
        games.append(None if s is None else (idx[json_name(a)], idx[json_name(b)], s))

    def elo(order):
        R = [float(init)] * M
        for i in order:
            gm = games[i]
            if gm is None:
                continue
            a, b, s = gm
            ea = 1 / (1 + base ** ((R[b] - R[a]) / scale))
            eb = 1 / (1 + base ** ((R[a] - R[b]) / scale))
            R[a] += K * (s - ea)
            R[b] += K * ((1 - s) - eb)
        return R

    used = [g for g in games if g is not None]
    W = [0] * M
    L = [0] * M
    T = [0] * M
    beat = [[0] * M for _ in range(M)]
    drew = [[0] * M for _ in range(M)]
    for a, b, s in used:
        if s == 1:
            W[a] += 1; L[b] += 1; beat[a][b] += 1
        elif s == 0:
            W[b] += 1; L[a] += 1; beat[b][a] += 1
        else:
            T[a] += 1; T[b] += 1; drew[a][b] += 1; drew[b][a] += 1
    R_ = lambda x, y: x / y if y else None
    pw = lambda cr: [[None if i == j else R_(beat[i][j] + cr * drew[i][j],
                                              beat[i][j] + beat[j][i] + drew[i][j])
                      for j in range(M)] for i in range(M)]
    # existence
    adj = [[False] * M for _ in range(M)]
    for a, b, s in used:
        if s > 0:
            adj[a][b] = True
        if s < 1:
            adj[b][a] = True
    played = all(W[i] + L[i] + T[i] > 0 for i in range(M))

    def reach(fwd):
        seen = {0}
        st_ = [0]
        while st_:
            i = st_.pop()
            for j in range(M):
                e = adj[i][j] if fwd else adj[j][i]
                if e and j not in seen:
                    seen.add(j)
                    st_.append(j)
        return len(seen) == M

    exists = M > 0 and played and reach(True) and reach(False)
    unit = scale / math.log(base)
    bt = None
    if exists:
        th = bt_fit(M, used, 0.0)
        th = th - th.mean()
        bt = [float(init + unit * t) for t in th]
    th2 = bt_fit(M, used, lam)
    th2 = th2 - th2.mean()
    btl2 = [float(init + unit * t) for t in th2]
    orders = case.get("orders", [])
    return {"models": models, "n_matches_used": len(used),
            "n_null_outcomes": sum(1 for m in case["matches"] if m[2] is None),
            "null_outcome": pol, "elo_given_order": elo(range(len(games))),
            "elo_mean_over_orders": (np.mean([elo(o) for o in orders], axis=0).tolist()
                                     if orders else None),
            "n_orders": len(orders), "wins": W, "losses": L, "ties": T,
            "win_rate": [R_(W[i] + 0.5 * T[i], W[i] + L[i] + T[i]) for i in range(M)],
            "win_rate_no_ties": [R_(W[i], W[i] + L[i]) for i in range(M)],
            "win_rate_ties_zero": [R_(W[i], W[i] + L[i] + T[i]) for i in range(M)],
            "pairwise_win_rate": pw(0.0), "pairwise_win_rate_tie_half": pw(0.5),
            "bt_exists": bool(exists), "bt": bt, "bt_l2": btl2, "bt_l2_lambda": lam}


def json_name(m):
    return m if isinstance(m, str) else str(m)


KINDS = {"correlation": correlation, "williams": williams, "resampling": resampling,
         "agreement": agreement, "pairwise_labels": labels, "matches": matches}


def compute(case):
    out = {"id": case.get("id"), "kind": case["kind"]}
    out.update(KINDS[case["kind"]](case))
    return out
