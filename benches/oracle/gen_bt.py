#!/usr/bin/env python3
"""BT solver stress: lopsided records, small lambda with undefeated models, many models."""
import json, numpy as np, oracle
rng = np.random.default_rng(5)
cases = []
def add(**c): cases.append(c)
add(id="bt-undefeated-50-lam1e-2", kind="matches", models=["a","b","c"],
    matches=[["a","b","a"]]*50 + [["b","c","a"],["c","b","a"]], orders=[], bt_l2=0.01)
for lam in (1e-3, 1e-4, 1e-6, 1e-9):
    add(id=f"bt-undefeated-lam{lam}", kind="matches", models=["a","b","c"],
        matches=[["a","b","a"]]*5 + [["a","c","a"]]*3 + [["b","c","a"],["c","b","tie"]], orders=[], bt_l2=lam)
add(id="bt-lopsided-500-1", kind="matches", models=["s","t","u"],
    matches=[["s","t","a"]]*500 + [["t","s","a"]] + [["t","u","a"]]*300 + [["u","t","a"]] + [["u","s","a"]],
    orders=[], bt_l2=0.01)
add(id="bt-lopsided-2000-1-pair", kind="matches", models=["s","t"],
    matches=[["s","t","a"]]*2000 + [["t","s","a"]], orders=[], bt_l2=0.0001)
ms = [f"m{i}" for i in range(30)]
strength = rng.normal(0, 1.5, 30)
mm = []
for _ in range(1500):
    i, j = rng.choice(30, 2, replace=False)
    p = 1/(1+np.exp(-(strength[i]-strength[j])))
    u = rng.random()
    mm.append([ms[i], ms[j], "a" if u < p*0.9 else ("tie" if u < p*0.9+0.1 else "b")])
add(id="bt-30-models", kind="matches", models=ms, matches=mm, orders=[list(range(len(mm)))], bt_l2=0.01)
add(id="bt-chain-lam0-nonexist", kind="matches", models=list("abcdef"),
    matches=[[a,b,"a"] for a,b in zip("abcde","bcdef")], orders=[], bt_l2=0.001)
json.dump({"cases": cases}, open("bt.cases.json","w"))
json.dump({"results":[oracle.compute(c) for c in cases]}, open("bt.expected.json","w"), indent=1)
