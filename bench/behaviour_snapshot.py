"""Record and compare what the product answers, to show that a refactor changes no behaviour (issue 25).

Usage:
    WAG_DATA_DIR=../shared/data WAG_DB=/tmp/snap/wag.duckdb wag build
    python bench/behaviour_snapshot.py record --db /tmp/snap/wag.duckdb --out /tmp/snap/before
    ... change the code ...
    python bench/behaviour_snapshot.py record --db /tmp/snap/wag.duckdb --out /tmp/snap/after
    python bench/behaviour_snapshot.py compare /tmp/snap/before /tmp/snap/after

`record` runs, as separate `wag` processes (the installed console script, so a moved module is
still found):
  * `wag ask --json --offline` for every question of ../shared/eval/dev_questions.jsonl on one subject
    per dataset (round robin), plus the twelve questions of OWN below, each under wag, rag and base;
  * `wag parse --json` for the same questions;
  * `wag eval queries --n 24 --gl-n 8 --seed 5 --offline` and `wag eval run --offline` into a fresh
    evaluation file, then dumps eval_queries / eval_answers / eval_selection ordered by key.
Volatile fields (elapsed times, cache flags) are dropped. `compare` prints every difference and exits
1 when there is one.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
SHARED_EVAL = HERE.parent.parent / "shared" / "eval" / "dev_questions.jsonl"

SUBJECTS = ["pmdata:p01", "lifesnaps:621e346f67b776a24081744f", "globem:INS-W_3/INS-W_620",
            "ifh_affect:par_1"]

OWN = [
    ("pmdata:p16", "Why am I so tired lately?"),
    ("pmdata:p16", "Anything unusual in my sleep recently?"),
    ("pmdata:p03", "How can I improve my deep sleep?"),
    ("pmdata:p13", "Do I sleep longer on days when I am more active?"),
    ("lifesnaps:621e32e667b776a2406d2f1c", "How was my resting heart rate over the past month?"),
    ("lifesnaps:621e2f9167b776a240011ccb", "Compare my steps this week with last week."),
    ("lifesnaps:621e337667b776a240ce78ab", "What is a normal resting heart rate?"),
    ("globem:INS-W_1/INS-W_165", "How many times did I unlock my phone yesterday?"),
    ("globem:INS-W_3/INS-W_705", "Is my time at home related to my mood?"),
    ("ifh_affect:par_1", "How can I improve my sleep score?"),
    ("ifh_affect:par_3", "What is HRV and why does it matter?"),
    ("ifh_affect:par_1", "Give me an overview of my last two weeks over the holidays."),
]
VOLATILE = {"elapsed_ms", "answer_cached", "created_at", "answered_at", "generated_at"}


def _questions() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in SHARED_EVAL.read_text().splitlines() if line.strip()]
    return [(SUBJECTS[i % len(SUBJECTS)], r["q"]) for i, r in enumerate(rows)] + OWN


def _strip(obj):
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _wag(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(["wag", *args], capture_output=True, text=True, env=env)
    return json.dumps({"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr})


def record(db: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    eval_db = out / "eval.duckdb"
    eval_db.unlink(missing_ok=True)
    env = {**os.environ, "WAG_DB": str(db), "WAG_EVAL_DB": str(eval_db), "OPENAI_API_KEY": "",
           "COLUMNS": "100", "NO_COLOR": "1"}
    asks = []
    for n, (subject, q) in enumerate(_questions(), 1):
        for method in ("wag", "rag", "base"):
            raw = json.loads(_wag(["ask", "--json", "--offline", "--method", method,
                                   "--subject", subject, q], env))
            try:
                body = _strip(json.loads(raw["stdout"]))
            except json.JSONDecodeError:
                body = raw
            asks.append({"subject": subject, "q": q, "method": method, "rc": raw["rc"], "out": body})
        parsed = json.loads(_wag(["parse", "--json", "--subject", subject, q], env))
        asks.append({"subject": subject, "q": q, "method": "parse", "rc": parsed["rc"],
                     "out": parsed["stdout"]})
        print(f"\r{n} questions", end="", file=sys.stderr)
    print(file=sys.stderr)
    (out / "ask.json").write_text(json.dumps(asks, indent=1, sort_keys=True, default=str))
    steps = [["eval", "queries", "--n", "24", "--gl-n", "8", "--seed", "5", "--offline"],
             ["eval", "run", "--offline"]]
    logs = [json.loads(_wag(s, env)) for s in steps]
    con = duckdb.connect(str(eval_db), read_only=True)
    dump = {"logs": [{"rc": g["rc"], "stderr_tail": g["stderr"][-300:] if g["rc"] else ""} for g in logs]}
    for table, key in (("eval_queries", "query_id"), ("eval_answers", "query_id, experiment, condition"),
                       ("eval_selection", "query_id, experiment")):
        cols = [c for (c,) in con.execute(
            "select column_name from duckdb_columns() where table_name = ? order by column_index",
            [table]).fetchall() if c not in VOLATILE]
        sel = ", ".join(f'"{c}"' for c in cols)
        rows = con.execute(f"select {sel} from {table} order by {key}").fetchall()
        dump[table] = [dict(zip(cols, r)) for r in rows]
    con.close()
    (out / "eval.json").write_text(json.dumps(dump, indent=1, sort_keys=True, default=str))
    print(f"{len(asks)} ask/parse outputs, {len(dump['eval_answers'])} eval answers -> {out}")


def compare(a: Path, b: Path) -> int:
    differences = 0
    for name in ("ask.json", "eval.json"):
        left = json.loads((a / name).read_text())
        right = json.loads((b / name).read_text())
        if left == right:
            print(f"{name}: identical")
            continue
        la = json.dumps(left, indent=1, sort_keys=True).splitlines()
        lb = json.dumps(right, indent=1, sort_keys=True).splitlines()
        diff = list(difflib.unified_diff(la, lb, str(a / name), str(b / name), lineterm="", n=2))
        differences += 1
        print("\n".join(diff[:400]))
    return 1 if differences else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--db", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.db.resolve(), args.out.resolve())
    else:
        sys.exit(compare(args.a, args.b))


if __name__ == "__main__":
    main()
