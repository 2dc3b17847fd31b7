"""Writes crates/core/tests/fixtures/tokens/counts.json: texts with their token counts under
OpenAI's o200k_base and cl100k_base as the reference `tiktoken` package counts them
(`encode_ordinary`), for crates/core/tests/run_tokens.rs.

tiktoken downloads its encodings from OpenAI; offline, point it at local copies of the
official files (tiktoken checks their SHA-256):

    python3 benches/oracle/gen_tokens.py --ranks DIR   # DIR holds o200k_base.tiktoken, cl100k_base.tiktoken

(`tiktoken-rs`'s crate ships the same files under `assets/`.)
"""
import argparse
import csv
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "crates/core/tests/fixtures/tokens/counts.json"
ENCODINGS = ["o200k_base", "cl100k_base"]

EDGE = [
    "",
    " ",
    "tiktoken is great!",
    "Rating: 4",
    "Evaluation Form (scores ONLY):\n\n- Coherence:",
    "Hello  world\n\n  Évaluez 1234567 — ok?",
    "   leading and trailing spaces   ",
    "\n\n\n",
    "tabs\tand\r\nwindows line ends\r\n",
    "日本語のテキストと中文文本",
    "emoji 👍🏽 and family 👨‍👩‍👧",
    "<|endoftext|> is plain text here",
    "don't won't I'm they're we've you'll he'd",
    "3.14159 1,000,000 2026-11-26 0x1F",
    "a" * 1000,
    "The quick brown fox. " * 200,
]


def texts():
    out = list(EDGE)
    with open(ROOT / "demo/example.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            out.append(row["source"])
            out.append(row["output"])
    seen, unique = set(), []
    for t in out:
        if t not in seen:
            seen.add(t)
            unique.append(t)
    return unique


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", required=True, help="directory with the .tiktoken files")
    args = ap.parse_args()
    cache = tempfile.mkdtemp()
    for name in ENCODINGS:
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        shutil.copy(Path(args.ranks) / f"{name}.tiktoken", Path(cache) / hashlib.sha1(url.encode()).hexdigest())
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    import tiktoken

    cases = []
    encs = {name: tiktoken.get_encoding(name) for name in ENCODINGS}
    for t in texts():
        cases.append({"text": t, **{name: len(encs[name].encode_ordinary(t)) for name in ENCODINGS}})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"generator": "benches/oracle/gen_tokens.py", "tiktoken": tiktoken.__version__, "cases": cases}, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(cases)} texts -> {OUT}")


if __name__ == "__main__":
    main()
