#!/usr/bin/env python3
"""run_oracle.py CASES.json OUT.json -- compute expected results with oracle.py"""
import json, sys
import oracle
cases = json.load(open(sys.argv[1]))["cases"]
res = [oracle.compute(c) for c in cases]
json.dump({"oracle": {"oracle_version": 1, "script": "benches/oracle/oracle.py"}, "results": res},
          open(sys.argv[2], "w"), indent=1)
print("wrote", len(res))
