#!/usr/bin/env python3
"""Knife-edge stress: exactly/nearly linear small-n vectors (p ~ sqrt(1-|r|) at n=3), identical
rank vectors for Spearman, random decimals. Writes knife.cases.json / knife.expected.json."""
import json, numpy as np, oracle
rng = np.random.default_rng(99)
cases = []
for i in range(300):
    n = int(rng.choice([3, 3, 3, 4, 5]))
    a = round(float(rng.uniform(-5, 5)), int(rng.integers(0, 4)))
    b = round(float(rng.uniform(-5, 5)), int(rng.integers(1, 4)))
    step = round(float(rng.uniform(0.01, 3)), int(rng.integers(1, 4)))
    x = [round(a + k * step, 6) for k in range(n)]
    sl = float(rng.choice([1, -1, 0.5, 2, 0.1, 3, -0.3]))
    y = [round(b + sl * v, 6) for v in x]
    if len(set(x)) < 2 or len(set(y)) < 2:
        continue
    cases.append({"id": f"lin-{i}", "kind": "correlation", "x": x, "y": y})
for i in range(100):
    n = int(rng.integers(3, 9))
    x = [round(float(v), 2) for v in rng.normal(0, 1, n)]
    y = [round(v * 2 + 0.01 * float(rng.normal()), 3) for v in x]  # same ranks, not linear
    cases.append({"id": f"mono-{i}", "kind": "correlation", "x": x, "y": y})
json.dump({"cases": cases}, open("knife.cases.json", "w"))
json.dump({"results": [oracle.compute(c) for c in cases]}, open("knife.expected.json", "w"), indent=1)
print(len(cases))
