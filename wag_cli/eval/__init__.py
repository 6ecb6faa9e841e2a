"""The evaluation harness (DESIGN.md §10; paper §5, Tables 1 and 10-12): query tuples, QueryGen,
parser scoring, the compared conditions, judges, the gold track, reports and hyperparameter curves.

Results live in their own DuckDB file (:func:`wag_cli.eval.store.eval_db_path`), so a rebuild of the
warehouse never loses them and an analyst can query queries, answers and judgements directly.
"""
