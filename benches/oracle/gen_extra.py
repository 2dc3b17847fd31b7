#!/usr/bin/env python3
"""Extra robustness cases: NaN tokens (Python json.dump default), numeric-equal group ids, etc.
Writes extra_nan.cases.json (NaN tokens) and extra_misc.cases.json (+ expected files)."""
import json, math
import oracle
nan = float("nan")
nan_cases = [
 {"id": "nan-corr", "kind": "correlation", "x": [1, nan, 3, 4, 5, 6], "y": [2, 2, nan, 5, 4, 6]},
 {"id": "nan-groups", "kind": "correlation", "x": [1, 2, 3, nan, 5, 1], "y": [2, 1, 3, 4, nan, 2],
  "groups": ["a", "a", "a", "b", "b", "c"]},
 {"id": "nan-williams", "kind": "williams", "human": [1, 2, 3, 4, 5, nan], "metric_a": [1, 3, 2, 4, 6, 5],
  "metric_b": [2, 1, 3, 5, 4, 6]},
 {"id": "nan-agree", "kind": "agreement", "ratings": [[1, 2, nan, 3], [1, 2, 2, nan]]},
 {"id": "nan-resample", "kind": "resampling", "human": [1, 2, 3, 4, nan], "metric_a": [1, 3, 2, 4, 5],
  "metric_b": [2, 1, 4, 3, 5], "level": "dataset", "stats": ["pearson"], "boot_indices": [[0, 1, 2, 3]],
  "perm_masks": [[0, 1, 0, 1]]},
]
misc_cases = [
 {"id": "gid-int-vs-float", "kind": "correlation", "x": [1, 2, 3, 4, 5, 6], "y": [2, 1, 3, 5, 4, 6],
  "groups": [1, 1.0, 1, 2, 2.0, 2]},
 {"id": "williams-n-float", "kind": "williams", "r12": 0.6, "r13": 0.4, "r23": 0.3, "n": 30.0},
 {"id": "williams-r-null", "kind": "williams", "r12": None, "r13": 0.4, "r23": 0.3, "n": 30},
 {"id": "agree-string-labels", "kind": "agreement", "ratings": [["good", "bad", "good", "ok"], ["good", "ok", "good", "ok"]]},
 {"id": "thresh-null", "kind": "correlation", "x": [10, 40, 80], "y": [1, 2, 3], "kendall_like_thresh": None, "epsilon": None},
 {"id": "matches-numeric-models", "kind": "matches", "models": [1, 2, 3],
  "matches": [[1, 2, "a"], [2, 3, "a"], [3, 1, "a"]], "orders": [[0, 1, 2]]},
]
json.dump({"cases": nan_cases}, open("extra_nan.cases.json", "w"), indent=1)
json.dump({"cases": misc_cases}, open("extra_misc.cases.json", "w"), indent=1)
def clean(c):
    c = json.loads(json.dumps(c).replace("NaN", "null"))
    return c
res = [oracle.compute(clean(c)) for c in nan_cases]
json.dump({"results": res}, open("extra_nan.expected.json", "w"), indent=1)
print(open("extra_nan.cases.json").read()[:300])
