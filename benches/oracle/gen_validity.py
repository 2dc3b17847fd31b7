#!/usr/bin/env python3
"""gen_validity.py OUT_DIR -- the judge-validity fixtures of STATS_SPEC §16 from independent code.

Writes OUT_DIR/validity.cases.json (the case format of §14) and OUT_DIR/validity.expected.json,
every expected value computed here with packages that are not Concord:

* alt_test (§16.1): the procedure of nitaytech/AltTest's notebook (its `alt_test` and
  `by_procedure`, re-typed from the spec), scipy `ttest_1samp(d, ε, alternative="less")`;
  §16.1's rule for equal differences (p null, never rejected) is applied before scipy, which
  would return 0 there. Annotators are taken in the order of their ids, as Concord's case
  reader sees JSON objects;
* selective_trust and cascade (§16.2): scipy `binom.cdf`, statsmodels' Wilson interval;
* stratified_ppi (§16.3): numpy, §15.4's formulas (the PPI++ λ of ppi-python's
  `_calc_lam_glm`) per stratum; the planner's formulas;
* stability (§16.4): the krippendorff package's α, statsmodels' Wilson interval.

The reasons printed beside a null (`*_error`) are Concord's words, written here as the spec's
output contract. Install: pip install numpy scipy statsmodels krippendorff
"""
import json
import math
import os
import sys
from importlib.metadata import version

import krippendorff
import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

rng = np.random.default_rng(20261128)
cases, results = [], []


def num(v):
    if v is None:
        return None
    v = float(v)
    return None if (math.isnan(v) or math.isinf(v)) else v


def add(case, result):
    cases.append(case)
    results.append({"id": case["id"], "kind": case["kind"], **result})


def too_few(n, needed):
    return f"needs at least {needed} paired items, has {n}"


def wilson(k, n, confidence):
    if n == 0:
        return None, None
    lo, hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    lo = 0.0 if k == 0 else float(lo)
    hi = 1.0 if k == n else float(hi)
    return k / n, [lo, hi]


# ------------------------------------------------------------------ 16.1 the alt-test

def accuracy(pred, annotations):
    return float(np.mean([pred == a for a in annotations]))


def neg_rmse(pred, annotations):
    return -float(np.sqrt(np.mean([(pred - a) ** 2 for a in annotations])))


def by_procedure(p_values, q):
    m = len(p_values)
    if m == 0:
        return []
    p = np.array([np.nan if v is None else v for v in p_values], dtype=float)
    order = np.argsort(p, kind="stable")  # NaN sorts last
    h_m = np.sum(1.0 / np.arange(1, m + 1))
    thresholds = (np.arange(1, m + 1) / m) * (q / h_m)
    k_star = 0
    for rank in range(m):
        if p[order[rank]] <= thresholds[rank]:
            k_star = rank + 1
    return [int(i) for i in order[:k_star]]


def alt_test(humans, llm, scoring, epsilon, q, min_humans, min_instances):
    score = accuracy if scoring == "accuracy" else neg_rmse
    names = sorted(humans)
    rated = {}
    for h in names:
        for i, v in humans[h].items():
            if v is not None:
                rated.setdefault(i, []).append(h)
    keep = {i for i, hs in rated.items() if len(hs) >= min_humans and llm.get(i) is not None}
    tested, skipped = [], []
    for h in names:
        instances = [i for i, v in humans[h].items() if v is not None and i in keep]
        if len(instances) < min_instances:
            skipped.append(h)
            continue
        w, hh = [], []
        for i in instances:
            others = [humans[g][i] for g in rated[i] if g != h]
            s_h, s_l = score(humans[h][i], others), score(llm[i], others)
            w.append(1 if s_l >= s_h else 0)
            hh.append(1 if s_h >= s_l else 0)
        d = [a - b for a, b in zip(hh, w)]
        error = None
        if len(d) < 2:
            p, error = None, too_few(len(d), 2)
        elif len(set(d)) == 1:
            p, error = None, "every difference is the same, so the t-test has no spread to test"
        else:
            p = float(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
        entry = {"id": h, "n": len(d), "advantage_prob": float(np.mean(w)),
                 "mean_diff": float(np.mean(d)), "p_value": p}
        if error:
            entry["p_value_error"] = error
        entry["rejected"] = False
        tested.append(entry)
    for k in by_procedure([t["p_value"] for t in tested], q):
        tested[k]["rejected"] = True
    out = {}
    if tested:
        omega = sum(t["rejected"] for t in tested) / len(tested)
        out = {"winning_rate": omega, "passed": omega >= 0.5,
               "advantage_prob": float(np.mean([t["advantage_prob"] for t in tested]))}
    else:
        out = {"winning_rate": None, "passed": None, "advantage_prob": None,
               "winning_rate_error": f"no annotator has {min_instances} or more instances "
                                     "that the judge and another annotator also rated"}
    out["annotators"] = tested
    out["skipped"] = skipped
    return out


def alt_case(cid, humans, llm, scoring="accuracy", epsilon=0.2, q=0.05, min_humans=2,
             min_instances=30):
    add({"id": cid, "kind": "alt_test", "humans": humans, "llm": llm, "scoring": scoring,
         "epsilon": epsilon, "q": q, "min_humans": min_humans, "min_instances": min_instances},
        alt_test(humans, llm, scoring, epsilon, q, min_humans, min_instances))


def planted(n_items, quality, judge_quality, labels, missing=0.0, numeric=False):
    """Annotators who give the true label with their own probability; the judge likewise."""
    truth = rng.integers(0, len(labels), n_items)

    def rate(p):
        out = {}
        for i, t in enumerate(truth):
            if rng.random() < missing:
                continue
            v = t if rng.random() < p else rng.integers(0, len(labels))
            out[f"item{i:03d}"] = (int(labels[v]) if numeric else labels[v])
        return out

    humans = {f"a{k}": rate(p) for k, p in enumerate(quality)}
    return humans, rate(judge_quality)


for k, (quality, judge, eps) in enumerate([
    ([0.9, 0.8, 0.7], 0.85, 0.2), ([0.95, 0.9, 0.9, 0.6], 0.9, 0.1),
    ([0.7, 0.7, 0.7, 0.7, 0.7], 0.5, 0.15), ([0.8, 0.6, 0.9], 0.99, 0.05),
]):
    h, j = planted(80, quality, judge, ["yes", "no", "maybe"], missing=0.15)
    alt_case(f"alt-labels-{k}", h, j, "accuracy", eps)
for k, (quality, judge) in enumerate([([0.8, 0.7, 0.6], 0.75), ([0.9, 0.5, 0.5, 0.9], 0.95)]):
    h, j = planted(60, quality, judge, [1, 2, 3, 4, 5], missing=0.1, numeric=True)
    alt_case(f"alt-scores-{k}", h, j, "neg_rmse", 0.15)
    alt_case(f"alt-scores-accuracy-{k}", h, j, "accuracy", 0.15)
# Skipped annotators: one with too few instances, one with none kept.
h, j = planted(40, [0.9, 0.8, 0.8], 0.85, ["A", "B"])
h["z-late"] = {f"item{i:03d}": "A" for i in range(10)}
h["y-alone"] = {"only-mine": "B"}
alt_case("alt-skipped", h, j, "accuracy", 0.2)
# m = 0: nobody has 30 kept instances.
h, j = planted(20, [0.9, 0.9, 0.9], 0.9, ["A", "B"])
alt_case("alt-m0", h, j)
# Every difference equal: the judge always ties everyone (all give the same label).
same = {f"i{i}": "x" for i in range(35)}
alt_case("alt-constant", {"a": dict(same), "b": dict(same), "c": dict(same)}, dict(same))
# n = 1 with min_instances 1 (p undefined for want of a spread), ties, labels as lists.
alt_case("alt-n1", {"a": {"i": "x", "j": "y"}, "b": {"i": "x"}, "c": {"j": "y"}},
         {"i": "x", "j": "x"}, min_instances=1)
alt_case("alt-lists", {"a": {f"i{i}": [i % 2, 1] for i in range(31)},
                       "b": {f"i{i}": [int(i % 3 == 0), 1] for i in range(31)},
                       "c": {f"i{i}": [1, 1] for i in range(31)}},
         {f"i{i}": [i % 2, 1] for i in range(31)})
# The judge rates only part of the instances; nulls are "not rated".
h, j = planted(70, [0.8, 0.8, 0.8], 0.8, ["p", "q"], missing=0.05)
for key in list(j)[::3]:
    j[key] = None
h["a0"]["item000"] = None
alt_case("alt-partial-judge", h, j, "accuracy", 0.1, q=0.1)


# ------------------------------------------------------------------ 16.2 selective trust

def trust(conf, agree, alpha, delta):
    items = [(c, a) for c, a in zip(conf, agree) if c is not None and a is not None]
    items.sort(key=lambda x: -x[0])
    n = len(items)
    steps, walking = [], True
    lam_hat, n_hat, e_hat = None, 0, 0
    i, count, errors = 0, 0, 0
    while i < n:
        lam = items[i][0]
        while i < n and items[i][0] == lam:
            count += 1
            errors += 0 if items[i][1] else 1
            i += 1
        p = float(stats.binom.cdf(errors, count, alpha))
        passed = walking and p <= delta
        walking = passed
        if passed:
            lam_hat, n_hat, e_hat = lam, count, errors
        steps.append([lam, count, errors, p])
    out = {"threshold": lam_hat, "n_trusted": n_hat,
           "coverage": (n_hat / n) if n else None,
           "agreement": (1 - e_hat / n_hat) if lam_hat is not None else None,
           "p_values": steps}
    if n == 0:
        out["threshold_error"] = too_few(0, 1)
    elif lam_hat is None:
        out["threshold_error"] = ("no confidence threshold keeps the agreement guarantee: "
                                  "nothing can be trusted")
    return out, lam_hat


def held_out(lam, conf, agree, confidence):
    items = [(c, a) for c, a in zip(conf, agree) if c is not None and a is not None]
    trusted = [a for c, a in items if lam is not None and c >= lam]
    p, ci = wilson(sum(trusted), len(trusted), confidence)
    return {"n": len(items), "n_trusted": len(trusted),
            "coverage": len(trusted) / len(items) if items else None,
            "agreement": p, "agreement_ci": ci}


def judge_items(n, levels, p_agree_at):
    conf = [float(rng.choice(levels)) for _ in range(n)]
    agree = [int(rng.random() < p_agree_at(c)) for c in conf]
    return conf, agree


def trust_case(cid, conf, agree, alpha, delta, test=None, confidence=0.95):
    case = {"id": cid, "kind": "selective_trust", "confidence": conf, "agree": agree,
            "alpha": alpha, "delta": delta}
    out, lam = trust(conf, agree, alpha, delta)
    if test is not None:
        case["test_confidence"], case["test_agree"] = test
        case["confidence_level"] = confidence
        out["held_out"] = held_out(lam, *test, confidence)
    add(case, out)


levels = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
for k, (n, alpha, delta) in enumerate([(200, 0.1, 0.1), (500, 0.05, 0.05), (120, 0.2, 0.1)]):
    c, a = judge_items(n, levels, lambda c: 0.4 + 0.6 * c)
    tc, ta = judge_items(n, levels, lambda c: 0.4 + 0.6 * c)
    trust_case(f"trust-{k}", c, a, alpha, delta, test=(tc, ta))
c, a = judge_items(300, [round(x, 2) for x in np.linspace(0, 1, 41)], lambda c: c)
trust_case("trust-fine-grid", c, a, 0.1, 0.05)
trust_case("trust-nothing-passes", [0.9, 0.9, 0.8, 0.7], [1, 1, 1, 0], 0.1, 0.05)
trust_case("trust-missing", [0.9, None, 0.8, 0.95] * 20, [1, 1, None, 1] * 20, 0.1, 0.1)
trust_case("trust-empty", [None, None], [1, 0], 0.1, 0.1)
trust_case("trust-all-agree", [1.0] * 40, [True] * 40, 0.1, 0.1)


def cascade(judges, alpha, delta):
    n = len(judges[0]["confidence"])
    open_ = [True] * n
    stages = []
    decided_all, agreeing_all = 0, 0
    for j in judges:
        conf = [c if o else None for c, o in zip(j["confidence"], open_)]
        agree = [a if o else None for a, o in zip(j["agree"], open_)]
        t, lam = trust(conf, agree, alpha, delta)
        n_cal = sum(1 for c, a in zip(conf, agree) if c is not None and a is not None)
        decided, agreeing = 0, 0
        for i in range(n):
            c = j["confidence"][i]
            if open_[i] and lam is not None and c is not None and c >= lam:
                open_[i] = False
                decided += 1
                agreeing += 1 if j["agree"][i] == 1 else 0
        stages.append({"threshold": lam, "n_calibration": n_cal, "n_trusted": decided,
                       "agreement": agreeing / decided if decided else None})
        decided_all += decided
        agreeing_all += agreeing
    return {"judges": stages, "n": n, "decided": decided_all,
            "coverage": decided_all / n if n else None,
            "agreement": agreeing_all / decided_all if decided_all else None}


for k, n in enumerate([150, 400]):
    judges = []
    for quality in (0.3, 0.6, 0.9):
        c, a = judge_items(n, levels, lambda c, q=quality: min(1.0, q + 0.3 * c))
        if k == 1:
            c = [None if rng.random() < 0.1 else x for x in c]
        judges.append({"confidence": c, "agree": a})
    add({"id": f"cascade-{k}", "kind": "cascade", "judges": judges, "alpha": 0.1,
         "delta": 0.1}, cascade(judges, 0.1, 0.1))


# ------------------------------------------------------------------ 16.3 stratified PPI

Z = {0.95: float(stats.norm.isf(0.025)), 0.9: float(stats.norm.isf(0.05))}


def var0(v):
    return float(np.var(v))


def stratum(y, yhat, un, z):
    pairs = [(a, b) for a, b in zip(y, yhat) if a is not None and b is not None]
    y = np.array([a for a, _ in pairs], dtype=float)
    yh = np.array([b for _, b in pairs], dtype=float)
    un = np.array([v for v in un if v is not None], dtype=float)
    n, big_n = len(y), len(un)
    lam, fixed = None, False
    if n >= 2 and big_n >= 1:
        allj = np.concatenate([yh, un])
        var1 = float(np.var(allj, ddof=1))
        cov = float(np.mean((y - y.mean()) * (yh - yh.mean())))
        denom = (1 + n / big_n) * var1
        if denom > 0:
            lam = min(1.0, max(0.0, cov / denom))
        elif np.all(allj == allj[0]):
            lam, fixed = 0.0, True
    est = se = None
    if lam is not None:
        rect = y - lam * yh
        est = float(lam * un.mean() + rect.mean())
        se = float(math.sqrt(var0(lam * un) / big_n + var0(rect) / n))
    sigma = float(np.std(y - lam * yh)) if lam is not None and n else None
    sigma_h = float(np.std(y)) if n >= 2 else None
    reason = too_few(n, 2) if n < 2 else too_few(big_n, 1)
    return {"n": n, "N": big_n, "est": est, "se": se, "lam": lam, "fixed": fixed,
            "sigma": sigma, "sigma_h": sigma_h, "reason": None if lam is not None else reason}


def stratified(strata, confidence, half_width=None):
    z = Z[confidence]
    parts = [stratum(s["y"], s["yhat"], s["yhat_unlabeled"], z) for s in strata]
    big_n = sum(p["N"] for p in parts)
    out_strata = [{"w": (p["N"] / big_n) if big_n else 0.0, "estimate": p["est"], "se": p["se"],
                   "lambda": p["lam"]} for p in parts]
    out = {"estimate": None, "se": None, "ci": None, "strata": out_strata}
    if big_n == 0:
        out["estimate_error"] = too_few(0, 1)
    else:
        theta, var, bad = 0.0, 0.0, None
        for k, (p, s) in enumerate(zip(parts, out_strata)):
            if s["w"] == 0:
                continue
            if p["est"] is None:
                bad = f"stratum {k}: {p['reason']}"
                break
            theta += s["w"] * p["est"]
            var += s["w"] ** 2 * p["se"] ** 2
        if bad:
            out["estimate_error"] = bad
        else:
            se = math.sqrt(var)
            out.update({"estimate": theta, "se": se, "ci": [theta - z * se, theta + z * se]})
    if half_width is not None:
        plan = None
        for k, (p, s) in enumerate(zip(parts, out_strata)):
            if s["w"] > 0 and (p["sigma"] is None or p["sigma_h"] is None):
                plan = {"error": f"stratum {k} has {p['n']} pilot label(s): the planner needs "
                                 "at least 2 in every stratum with unlabelled items"}
                break
        if plan is None:
            ws = [(s["w"], p["sigma"] or 0.0, p["sigma_h"] or 0.0) for p, s in zip(parts, out_strata)]
            scale = (z / half_width) ** 2
            with_ = sum(w * a for w, a, _ in ws)
            without = sum(w * b for w, _, b in ws)
            n_real, nh_real = scale * with_ ** 2, scale * without ** 2
            saving = nh_real / n_real if n_real > 0 else None
            pilot = sum(p["n"] for p in parts)
            note = None
            if saving is not None and saving > 2:
                note = (f"The plan shows a saving of {saving:.1f}×. A judge no more accurate than "
                        "the systems it rates saves at most 2× (Dorner, Nastl & Hardt, ICLR 2025): "
                        "a larger saving holds only if this judge is better than them, and the σ "
                        f"behind it were estimated from a pilot of {pilot} label(s) — label more "
                        "before relying on it.")
            plan = {"n": math.ceil(n_real), "n_human": math.ceil(nh_real), "saving": saving,
                    "n_per_stratum": [math.ceil(n_real * w * a / with_) if with_ > 0 else 0
                                      for w, a, _ in ws],
                    "ceiling_note": note}
        out["plan"] = plan
    return out


def strat_case(cid, strata, confidence=0.95, half_width=None):
    case = {"id": cid, "kind": "stratified_ppi", "strata": strata, "confidence": confidence}
    if half_width is not None:
        case["half_width"] = half_width
    add(case, stratified(strata, confidence, half_width))


def rounded(v):
    return [None if x is None else round(float(x), 6) for x in v]


def make_stratum(n, big_n, mean, bias, noise, missing=0.0):
    y = rng.normal(mean, 1.0, n)
    yh = y + bias + rng.normal(0, noise, n)
    un = rng.normal(mean, 1.0, big_n) + bias + rng.normal(0, noise, big_n)
    y = [None if rng.random() < missing else v for v in y]
    return {"y": rounded(y), "yhat": rounded(yh), "yhat_unlabeled": rounded(un)}


strat_case("strat-one", [make_stratum(40, 400, 3.0, 0.3, 0.5)])
strat_case("strat-three", [make_stratum(30, 300, 2.0, 0.2, 0.4),
                           make_stratum(20, 100, 3.5, -0.1, 0.8, missing=0.1),
                           make_stratum(25, 600, 4.0, 0.5, 0.3)], half_width=0.1)
strat_case("strat-plan-90", [make_stratum(50, 200, 1.0, 0.0, 0.2),
                             make_stratum(50, 200, 2.0, 0.0, 1.5)], confidence=0.9,
           half_width=0.05)
strat_case("strat-thin", [make_stratum(10, 50, 3.0, 0.0, 0.5),
                          {"y": [2.0], "yhat": [2.5], "yhat_unlabeled": [2.0, 3.0]}],
           half_width=0.2)
strat_case("strat-thin-unweighted", [make_stratum(10, 50, 3.0, 0.0, 0.5),
                                     {"y": [2.0], "yhat": [2.5], "yhat_unlabeled": []}])
strat_case("strat-constant-judge", [{"y": [1.0, 2.0, 4.0], "yhat": [3.0, 3.0, 3.0],
                                     "yhat_unlabeled": [3.0, 3.0]},
                                    make_stratum(15, 30, 2.0, 0.1, 0.3)], half_width=0.5)
strat_case("strat-no-unlabelled", [{"y": [1.0, 2.0], "yhat": [1.0, 2.0], "yhat_unlabeled": []}])


# ------------------------------------------------------------------ 16.4 stability

LEVEL_MESSAGES = {
    "domain": "There has to be more than one value in the domain.",
    "pairable": "There has to be at least one unit with values assigned by at least two coders.",
}


def stability(samples, level, confidence):
    n_units = max(len(s) for s in samples)
    pairs = flips = items = 0
    for u in range(n_units):
        vals = [s[u] for s in samples if u < len(s) and s[u] is not None]
        m = len(vals)
        if m < 2:
            continue
        items += 1
        pairs += m * (m - 1) // 2
        same = sum(c * (c - 1) // 2 for c in
                   {v: vals.count(v) for v in set(vals)}.values())
        flips += m * (m - 1) // 2 - same
    data = np.array([[np.nan if v is None else v for v in s] for s in samples], dtype=float)
    alpha, error = None, None
    pairable = any(sum(1 for s in samples if u < len(s) and s[u] is not None) >= 2
                   for u in range(n_units))
    values = {v for s in samples for v in s if v is not None}
    if not pairable:
        error = LEVEL_MESSAGES["pairable"]
    elif len(values) < 2:
        error = LEVEL_MESSAGES["domain"]
    else:
        alpha = num(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    rate, ci = wilson(flips, pairs, confidence)
    out = {"alpha": alpha}
    if error:
        out["alpha_error"] = error
    out.update({"n_items": items, "pairs": pairs, "flips": flips, "flip_rate": rate, "ci": ci})
    return out


def stab_case(cid, samples, level="interval", confidence=0.95):
    add({"id": cid, "kind": "stability", "samples": samples, "level": level,
         "confidence": confidence}, stability(samples, level, confidence))


for k, (n_samples, n_items, noise) in enumerate([(3, 30, 0.3), (5, 60, 0.6), (10, 20, 0.1)]):
    truth = rng.integers(1, 6, n_items)
    samples = [[int(np.clip(t + (rng.choice([-1, 1]) if rng.random() < noise else 0), 1, 5))
                if rng.random() > 0.05 else None for t in truth] for _ in range(n_samples)]
    stab_case(f"stab-{k}", samples, "interval" if k != 1 else "ordinal")
stab_case("stab-nominal", [[1, 2, 2, 3], [1, 2, 3, 3], [1, 1, 2, 3]], "nominal", 0.9)
stab_case("stab-steady", [[2, 2, 2], [2, 2, 2]])
stab_case("stab-thin", [[1, None, 3], [None, 2, None]])

# ------------------------------------------------------------------ write

out_dir = sys.argv[1] if len(sys.argv) > 1 else "crates/core/tests/fixtures/stats"
versions = {k: version(k) for k in ("numpy", "scipy", "statsmodels", "krippendorff")}
with open(os.path.join(out_dir, "validity.cases.json"), "w") as f:
    f.write('{"cases": [\n' + ",\n".join(json.dumps(c) for c in cases) + "\n]}\n")
with open(os.path.join(out_dir, "validity.expected.json"), "w") as f:
    json.dump({"oracle": {"oracle_version": 1, "python": sys.version.split()[0], **versions,
                          "script": "benches/oracle/gen_validity.py"},
               "results": results}, f, indent=1, allow_nan=False)
    f.write("\n")
print("wrote", len(cases), "cases to", out_dir)
