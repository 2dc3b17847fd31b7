#!/usr/bin/env python3
"""compare.py EXPECTED.json GOT.json  -- field-by-field diff at STATS_SPEC §0 tolerances."""
import json
import math
import sys

PKEYS = {"p", "p_greater", "p_abs_one_sided", "p_two_sided"}
BTKEYS = {"bt", "bt_l2"}


def tol_for(key, exp):
    if key in PKEYS:
        return 1e-9 + 1e-6 * abs(exp)
    if key in BTKEYS:
        return 1e-6
    return 1e-9


class Cmp:
    def __init__(self):
        self.problems = []
        self.nvalues = 0

    def cmp(self, e, g, path, key):
        if isinstance(e, dict):
            if not isinstance(g, dict):
                self.problems.append((path, "expected object", e, g))
                return
            ek, gk = set(e), set(g)
            for k in sorted(ek - gk):
                self.problems.append((path + "." + k, "MISSING key", e[k], None))
            for k in sorted(gk - ek):
                self.problems.append((path + "." + k, "EXTRA key", None, g[k]))
            for k in e:
                if k in g:
                    self.cmp(e[k], g[k], path + "." + k, k)
            return
        if isinstance(e, list):
            if not isinstance(g, list) or len(e) != len(g):
                self.problems.append((path, "list shape", e, g))
                return
            for i, (a, b) in enumerate(zip(e, g)):
                self.cmp(a, b, f"{path}[{i}]", key)
            return
        self.nvalues += 1
        if e is None or g is None:
            if not (e is None and g is None):
                self.problems.append((path, "null-ness", e, g))
            return
        if isinstance(e, bool) or isinstance(e, str):
            if e != g:
                self.problems.append((path, "value", e, g))
            return
        if isinstance(e, int) and key not in BTKEYS and key not in ("r12", "r13", "r23"):
            # counts: exact, and must be printed as integers
            if isinstance(g, bool) or not isinstance(g, (int, float)) or g != e:
                self.problems.append((path, "count", e, g))
            elif isinstance(g, float) and key not in ("tau", "tau_23", "acc_23", "kappa", "frac_delta_le_0"):
                self.problems.append((path, "int printed as float", e, g))
            return
        if not isinstance(g, (int, float)) or isinstance(g, bool):
            self.problems.append((path, "type", e, g))
            return
        t = tol_for(key, e)
        if not (abs(g - e) <= t):
            self.problems.append((path, f"diff {abs(g-e):.3g} > tol {t:.3g}", e, g))


def main(exp_path, got_path, quiet=False):
    E = json.load(open(exp_path))["results"]
    G = json.load(open(got_path))["results"]
    c = Cmp()
    gid = {json.dumps(r.get("id")): r for r in G}
    if len(E) != len(G):
        print(f"result count differs: {len(E)} vs {len(G)}")
    for e in E:
        g = gid.get(json.dumps(e.get("id")))
        if g is None:
            c.problems.append((str(e.get("id")), "case missing", None, None))
            continue
        c.cmp(e, g, str(e.get("id")), None)
    for p in c.problems:
        print(f"{p[0]}: {p[1]}: expected {json.dumps(p[2])[:200]} got {json.dumps(p[3])[:200]}")
    print(f"{len(E)} cases, {c.nvalues} leaf values compared, {len(c.problems)} problems")
    return c


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
