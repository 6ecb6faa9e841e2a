"""Blind reader comparison of answers (issue 27 item 6; DESIGN.md §10-§11).

Two steps, so that two versions of the code can answer the same questions:

1. ``answers``: answer a fixed question set offline with the ``wag_cli`` importable in this process
   (run it once per version, e.g. ``PYTHONPATH=<old checkout> python bench/blind_compare.py answers
   --db <old warehouse> --method wag --out old.jsonl``), one JSON line per question.
2. ``sheets``: merge the answer files into anonymised, shuffled sheets (seeded per question) for
   readers: ``sheet.md`` (question, subject, period, answers labelled A, B, C...) and a ``key.json``
   mapping labels back to versions; readers fill ``ranks_<reader>.jsonl`` lines
   ``{"qid": ..., "Overall": "BAC", "Insightfulness": ..., "Relevance": ..., "Clarity": ...}``.
3. ``score``: mean rank per version and criterion, and the share of questions where one version is
   ranked above another on Overall, from the key and the filled rank files.

The question set (``QUESTIONS``) mixes the issue's examples with everyday questions over the four
datasets' excerpts; subjects and reference days are fixed so both versions answer the same thing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from datetime import date
from pathlib import Path

QUESTIONS = [
    ("Why am I so tired lately?", "pmdata:p16", None),
    ("Anything unusual in my sleep recently?", "pmdata:p16", "2020-02-16"),
    ("How can I improve my deep sleep?", "pmdata:p16", "2020-02-16"),
    ("How did I sleep this week?", "pmdata:p01", None),
    ("How many steps did I take this week?", "pmdata:p03", None),
    ("Is my resting heart rate going up or down this month?", "pmdata:p01", None),
    ("Do I sleep longer on days when I am more active?", "pmdata:p01", None),
    ("How stressed have I been this week?", "pmdata:p13", None),
    ("How did I sleep this week?", "lifesnaps:621e346f67b776a24081744f", None),
    ("What is HRV and why does it matter?", "lifesnaps:621e346f67b776a24081744f", None),
    ("Why is my HRV low lately?", "lifesnaps:621e346f67b776a24081744f", None),
    ("How active was I in the last two weeks?", "lifesnaps:621e346f67b776a24081744f", None),
    ("Has my resting heart rate changed recently?", "lifesnaps:621e346f67b776a24081744f", None),
    ("How can I improve my sleep score?", "ifh_affect:par_1", None),
    ("How was my heart rate this week?", "ifh_affect:par_1", None),
    ("Why did I sleep badly this week?", "ifh_affect:par_3", None),
    ("Anything unusual in my activity this week?", "ifh_affect:par_3", None),
    ("How much time did I spend at home this week?", "globem:INS-W_1/INS-W_045", None),
    ("How has my phone use been lately?", "globem:INS-W_3/INS-W_705", None),
    ("Why do I feel stressed?", "globem:INS-W_1/INS-W_045", None),
    ("How did I sleep last week?", "globem:INS-W_3/INS-W_665", None),
    ("What affects my sleep efficiency most?", "pmdata:p01", None),
]


def answers(db: str, method: str, out: Path) -> None:
    import os

    os.environ["WAG_DB"] = db
    os.environ.pop("OPENAI_API_KEY", None)
    try:                      # a checkout from before issue 25 (e.g. PYTHONPATH=<old checkout>)
        from wag_cli.ask import answer_question
    except ImportError:
        from wag_cli.pipeline import answer_question

    with out.open("w", encoding="utf-8") as fh:
        for i, (q, sid, as_of) in enumerate(QUESTIONS):
            try:
                res = answer_question(q, sid, as_of=date.fromisoformat(as_of) if as_of else None, method=method,
                                      offline=True)
                per = res.analysis.get("period") or {}
                row = {"qid": i, "question": q, "subject": sid, "text": res.answer.text,
                       "period": f"{per.get('start')} to {per.get('end')}"}
            except Exception as exc:  # noqa: BLE001 - a version that cannot answer is recorded as such
                row = {"qid": i, "question": q, "subject": sid, "text": f"(no answer: {exc})", "period": ""}
            fh.write(json.dumps(row) + "\n")


def sheets(files: dict[str, Path], out: Path, seed: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    data = {name: [json.loads(x) for x in p.read_text().splitlines() if x.strip()] for name, p in files.items()}
    key, lines = {}, ["# Rank the answers", "",
                      "For each question rank the answers from best (first) to worst on Overall, Insightfulness "
                      "(does it help the person understand what is going on), Relevance (does it answer what was "
                      "asked) and Clarity (is it easy to read). No ties. Answers are in random order.", ""]
    names = list(files)
    for qid in range(len(QUESTIONS)):
        order = names[:]
        random.Random(int(hashlib.sha256(f"{seed}|{qid}".encode()).hexdigest(), 16)).shuffle(order)
        labels = "ABCDEFG"[: len(order)]
        key[qid] = dict(zip(labels, order))
        first = data[order[0]][qid]
        lines += [f"## Question {qid}: {first['question']}", "",
                  f"Person: {first['subject']} · period asked about: {first['period']}", ""]
        for lab, name in zip(labels, order):
            lines += [f"### Answer {lab}", "", "```", data[name][qid]["text"].strip(), "```", ""]
    (out / "sheet.md").write_text("\n".join(lines), encoding="utf-8")
    (out / "key.json").write_text(json.dumps(key, indent=1), encoding="utf-8")


def score(sheet_dir: Path, rank_files: list[Path]) -> dict:
    key = {int(k): v for k, v in json.loads((sheet_dir / "key.json").read_text()).items()}
    crits = ("Overall", "Insightfulness", "Relevance", "Clarity")
    ranks: dict[str, dict[str, list[int]]] = {}
    wins: dict[tuple[str, str], list[int]] = {}
    for f in rank_files:
        for line in f.read_text().splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            labels = key[int(row["qid"])]
            for c in crits:
                order = [labels[x] for x in row[c]]
                for pos, name in enumerate(order, 1):
                    ranks.setdefault(name, {}).setdefault(c, []).append(pos)
                if c == "Overall":
                    for a in order:
                        for b in order:
                            if a != b:
                                wins.setdefault((a, b), []).append(int(order.index(a) < order.index(b)))
    return {"mean_rank": {n: {c: round(sum(v) / len(v), 2) for c, v in cs.items()} for n, cs in ranks.items()},
            "preferred_overall": {f"{a} over {b}": round(sum(v) / len(v), 2) for (a, b), v in sorted(wins.items())},
            "n_rankings": len(next(iter(ranks.values()))["Overall"]) if ranks else 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("answers")
    a.add_argument("--db", required=True)
    a.add_argument("--method", default="wag")
    a.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("sheets")
    s.add_argument("files", nargs="+", help="name=answers.jsonl")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--seed", type=int, default=27)
    r = sub.add_parser("score")
    r.add_argument("--sheet-dir", type=Path, required=True)
    r.add_argument("ranks", nargs="+", type=Path)
    args = ap.parse_args()
    if args.cmd == "answers":
        answers(args.db, args.method, args.out)
    elif args.cmd == "sheets":
        sheets({x.split("=", 1)[0]: Path(x.split("=", 1)[1]) for x in args.files}, args.out, args.seed)
    else:
        print(json.dumps(score(args.sheet_dir, args.ranks), indent=1))


if __name__ == "__main__":
    main()
