"""Prompt sizes per answer condition and for QueryParse on a built warehouse (issue 11 item 3).

Usage:  python bench/prompt_sizes.py [--db wag.duckdb] [--budget 3456]
Prints a Markdown table: for each subject and question (7- and 30-day windows), the estimated
tokens (ceil(chars/4), wag_cli.answer.context) of the Base, RAG, WAG and FullContext answer prompts as
``wag ask`` sends them (budgeted; WAG capped at FullContext), the same data as the JSON data block
used before issue 11 (``Subgraph.to_json`` + analysis, unbudgeted) for comparison, and the QueryParse
prompt with its shortlist (and with the whole catalog, as before).
"""

from __future__ import annotations

import argparse
import os
import sys

QUESTIONS = [("How was my sleep this week?", 7),
             ("How did my sleep relate to my stress over the past 30 days?", 30)]
SUBJECTS = ["pmdata:p01", "lifesnaps:621e2f9167b776a240011ccb", "ifh_affect:par_1", "globem:INS-W_3/INS-W_620"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", default=os.environ.get("WAG_DB", "wag.duckdb"))
    ap.add_argument("--budget", type=int, default=None)
    args = ap.parse_args()
    os.environ["WAG_DB"] = args.db
    os.environ["WAG_LLM_CACHE"] = "off"

    from wag_cli import prompts
    from wag_cli.pipeline import answer_question
    from wag_cli.catalog import load_catalog
    from wag_cli.answer.context import DEFAULT_BUDGET, answer_context, estimate_tokens, full_context
    from wag_cli.db import warehouse
    from wag_cli.llm import build_messages, json_messages
    from wag_cli.query.model import PARSE_SCHEMA, parse_messages

    budget = args.budget or DEFAULT_BUDGET
    print(f"budget {budget} tokens (ceil(chars/4) estimate)\n")
    print("| subject | window | Base | RAG | WAG | FullContext | WAG trimmed | Base/RAG/WAG as JSON before | "
          "QueryParse (shortlist) | QueryParse (whole catalog, before) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = 0
    for subject in SUBJECTS:
        for question, days in QUESTIONS:
            sizes, before, trimmed = {}, {}, ""
            for method in ("base", "rag", "wag"):
                res = answer_question(question, subject, offline=True, method=method)
                sg = res.subgraph
                if method == "wag":
                    with warehouse() as con:
                        full_sg = full_context(con, sg, load_catalog(con))
                    full = answer_context(question, full_sg, res.analysis, budget=budget, method="full").tokens
                    ctx = answer_context(question, sg, res.analysis, budget=budget, cap=full if full_sg.nodes else None)
                    trimmed = "; ".join(ctx.trimmed) or "-"
                    sizes["full"] = full
                else:
                    ctx = answer_context(question, sg, res.analysis, budget=budget)
                sizes[method] = ctx.tokens
                system, instruction = prompts.answer_prompt(method)
                old = {"question": question, "subgraph": sg.to_json(include_knowledge=method != "base"),
                       "analysis": res.analysis}
                before[method] = estimate_tokens(build_messages(system, instruction, old))
            with warehouse() as con:
                catalog = load_catalog(con)
            as_of = sg.reference_day
            parse_now = estimate_tokens(parse_messages(question, as_of, catalog))
            system, instruction = prompts.parse_prompt()
            whole = [{"id": m.metric_id, "name": m.name, "aliases": list(m.aliases)} for m in catalog.values()]
            parse_before = estimate_tokens(json_messages(system, instruction, {"question": question, "catalog": whole},
                                                         PARSE_SCHEMA))
            worst = max(worst, *sizes.values(), parse_now)
            print(f"| {subject} | {sg.window_days} d to {as_of} | {sizes['base']} | {sizes['rag']} | {sizes['wag']} | "
                  f"{sizes['full']} | {trimmed} | {before['base']}/{before['rag']}/{before['wag']} | {parse_now} | "
                  f"{parse_before} |")
    print(f"\nlargest prompt: {worst} tokens (budget {budget}): {'within' if worst <= budget else 'OVER'} the budget")
    sys.exit(0 if worst <= budget else 1)


if __name__ == "__main__":
    main()
