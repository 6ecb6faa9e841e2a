"""Fill exported human-evaluation files by rule, to exercise `wag eval human import` and the report
end to end (DESIGN.md §10). These are *scripted* raters, not people: their agreement says nothing about
answer quality.

    python bench/human_scripted_raters.py DIR/alice.jsonl shortest
    python bench/human_scripted_raters.py DIR/bob.jsonl most_numbers

``shortest`` ranks the answers by length (shortest first); ``most_numbers`` by how many numbers they
quote (most first). Ties keep the label order. Reads the answers from the Markdown sheet beside the file.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def answers_from_sheet(md: str) -> dict[tuple[str, str], dict[str, str]]:
    """(experiment, query_id) -> {label: answer text} from the exported Markdown sheet."""
    out = {}
    for block in md.split("\n## ")[1:]:
        head = re.match(r"\d+ of \d+ — `([^`]+)` \(([^)]+)\)", block)
        found = re.findall(r"### Answer ([A-Z])\n\n((?:>.*\n?)+)", block)
        out[(head.group(2), head.group(1))] = {lab: re.sub(r"^> ?", "", text, flags=re.M) for lab, text in found}
    return out


RULES = {
    "shortest": lambda text: len(text),
    "most_numbers": lambda text: -len(re.findall(r"\d+(?:\.\d+)?", text)),
}


def main(path: str, rule: str) -> None:
    jl = Path(path)
    shown = answers_from_sheet(jl.with_suffix(".md").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in jl.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        texts = shown[(row["experiment"], row["query_id"])]
        row["Overall"] = sorted(row["labels"], key=lambda lab: (RULES[rule](texts[lab]), lab))
    jl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{jl}: {len(rows)} queries ranked by rule {rule!r}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
