"""What the tools of `wag mcp` do (issue 29), without the MCP SDK: plain functions that take the
tool's arguments and return one JSON-ready dict, so they can be tested and reused on their own.
:mod:`wag_cli.mcp_server` registers them with the SDK and describes them for a model.

Every function opens the warehouse read-only for the call and closes it before returning
(:func:`wag_cli.db.warehouse`), so `wag build` can swap the file while a server runs; nothing is
written. Every reply names the warehouse's last day with data (``data_last_day``) and, for a
subject, the subject's (``subject_last_day``). Replies are bounded: ``run_sql`` returns at most
:data:`MAX_SQL_ROWS` rows and about :data:`MAX_SQL_CHARS` characters of them, the other tools trim
long daily series (:data:`MAX_REPLY_CHARS`, :data:`MAX_DAILY_DAYS`) and say so in ``truncated``.
Errors a caller can cause raise :class:`~wag_cli.errors.WagError` with a one-sentence message.

The numbers come from the existing pipeline and SQL: ``ask`` is :func:`wag_cli.pipeline.answer_question`
offline, ``retrieve_subgraph`` the ``wag_retrieve`` rows of ``sql/retrieve.sql``, ``node_window``
the ``wag_node_window`` row of ``sql/node_window.sql``, ``explain_edge`` the macro's row of one edge
(``sql/edge_stages.sql``) beside the stored ``edge_weights`` row, ``run_sql`` the guard of
:mod:`wag_cli.sqlguard` and :func:`wag_cli.db.execute_read_only`.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime, time
from importlib import resources

from .pipeline import answer_question, check_subject, no_metric_hint
from .catalog import load_catalog
from .db import execute_read_only, fetch_dicts, warehouse
from .errors import UsageError, WagError
from .settings import default_window_days
from .graph import node_view, resolve_node
from .retrieve import retrieve_rows
from .settings import RetrievalSettings
from .sqlguard import check_read_only_sql
from .summary import SUBJECTS_SQL

MAX_SQL_ROWS = 1000        # rows run_sql returns at most
MAX_SQL_CHARS = 50_000     # characters of JSON rows run_sql returns at most (about)
MAX_REPLY_CHARS = 60_000   # every other reply: long daily series are trimmed to fit
MAX_DAILY_DAYS = 366       # node_window: daily values returned at most (the latest)
MAX_METRICS = 10           # retrieve_subgraph: primary metrics per call
DEFAULT_WINDOW_DAYS = default_window_days()    # DESIGN.md §8: k^q when a question names no period (dbt var)
DEFAULT_OPENNESS = 0.5


def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")


def jsonable(obj):
    """A JSON-ready copy of a DuckDB value as `wag sql --json` prints it: dates and times in ISO
    form, other non-JSON values (Decimal, UUID, interval…) as text, NaN and infinities as None."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (date, datetime, time)):
        return obj.isoformat()
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    return str(obj)


def _size(obj) -> int:
    return len(json.dumps(obj, ensure_ascii=False))


def parse_day(text: str | None, what: str = "as_of") -> date | None:
    """``YYYY-MM-DD`` as a date (None stays None); UsageError naming ``what`` otherwise."""
    if text is None or not str(text).strip():
        return None
    try:
        return date.fromisoformat(str(text).strip())
    except ValueError:
        raise UsageError(f"{what} {text!r} is not a date; use YYYY-MM-DD, e.g. 2020-01-20") from None


def data_last_day(con) -> str | None:
    """The warehouse's last day with measured data, ISO (``sql/data_last_day.sql``)."""
    return jsonable(con.execute(_sql("data_last_day.sql")).fetchone()[0])


def _subject_day(con, subject: str, as_of: str | None) -> tuple[dict, date]:
    """(the subject's period, the reference day): ``as_of`` inside the subject's data, else its last day."""
    period = check_subject(con, subject)
    ref = parse_day(as_of) or period["last_day"]
    if not (period["first_day"] <= ref <= period["last_day"]):
        raise UsageError(f"as_of {ref.isoformat()} is outside {subject}'s data ({period['first_day'].isoformat()} "
                         f"to {period['last_day'].isoformat()}); pick a day inside that range")
    return period, ref


def _window(window_days: int | None) -> int | None:
    if window_days is not None and window_days < 1:
        raise UsageError(f"window_days {window_days} must be 1 or more, or null for every day up to as_of")
    return window_days


def _openness(openness: float) -> float:
    if not 0.0 <= openness <= 1.0:
        raise UsageError(f"openness {openness} must be between 0 and 1")
    return float(openness)


def _trim_daily(nodes: list[dict], limit: int, payload: dict) -> str | None:
    """Keep each node's (and companion's) latest daily values until ``payload`` fits ``limit``
    characters; the note saying so, or None when nothing was trimmed."""
    if _size(payload) <= limit:
        return None
    datas = [n["data"] for n in nodes if n.get("data")]
    datas += [n["companion"]["data"] for n in nodes if n.get("companion") and n["companion"].get("data")]
    longest = max((len(d.get("daily") or []) for d in datas), default=0)
    keep = longest
    while keep > 0 and _size(payload) > limit:
        keep //= 2
        for d in datas:
            d["daily"] = (d.get("daily") or [])[-keep:] if keep else []
    return (f"daily values trimmed to each node's latest {keep} days to keep the reply under {limit:,} "
            "characters; the window statistics still cover every day (node_window returns one metric's series)")


# --------------------------------------------------------------------------- tools

def list_subjects(dataset: str | None = None) -> dict:
    """Subjects with their dataset, days with data and first and last day (`wag subjects --json`)."""
    with warehouse() as con:
        rows = fetch_dicts(con, SUBJECTS_SQL)
        last = data_last_day(con)
    if dataset:
        rows = [r for r in rows if r["dataset"] == dataset]
    return {"data_last_day": last, "n_subjects": len(rows), "subjects": jsonable(rows)}


def list_metrics(query: str = "", limit: int = 25) -> dict:
    """Catalog metrics whose id, name, aliases or category contain every word of ``query`` (all
    metrics for an empty query), with unit, description and how each dataset measures them."""
    words = [w for w in query.lower().replace("_", " ").split() if w]
    limit = max(1, min(int(limit), 200))
    with warehouse() as con:
        rows = fetch_dicts(con, _sql("metric_search.sql"), {"words": words})
        last = data_last_day(con)
        hint = no_metric_hint(query, load_catalog(con))[1] if not rows and words else []
    out = {"data_last_day": last, "query": query, "n_matches": len(rows), "metrics": []}
    for r in rows[:limit]:
        r["aliases"] = [a.strip() for a in (r["aliases"] or "").split("|") if a.strip()]
        out["metrics"].append(jsonable(r))
    if len(rows) > limit:
        out["truncated"] = f"{len(rows)} metrics match; the first {limit} are listed (raise limit or add words)"
    while len(out["metrics"]) > 1 and _size(out) > MAX_REPLY_CHARS:
        out["metrics"].pop()
        out["truncated"] = (f"{len(rows)} metrics match; the first {len(out['metrics'])} fit in the reply "
                            "(add words to narrow the search)")
    if hint:
        out["closest_metrics"] = hint
    return out


def ask(question: str, subject: str, as_of: str | None = None) -> dict:
    """`wag ask --json --offline`: the parse, the retrieved subgraph, the findings (``analysis``)
    and the offline answer, plus the data's last day."""
    day = parse_day(as_of)
    # this connection holds the file for the call: the pipeline's own connection opens the same
    # database instance, so the answer and data_last_day come from one file even during a swap
    with warehouse() as con:
        last = data_last_day(con)
        subject_last = jsonable(check_subject(con, subject)["last_day"])
        result = answer_question(question, subject, as_of=day, offline=True)
    out = {"data_last_day": last, "subject_last_day": subject_last, **result.to_json()}
    note = _trim_daily(out["subgraph"]["nodes"], MAX_REPLY_CHARS, out)
    if note:
        out["truncated"] = note
    return out


def retrieve_subgraph(subject: str, metrics: list[str], as_of: str | None = None,
                      window_days: int | None = DEFAULT_WINDOW_DAYS,
                      openness: float = DEFAULT_OPENNESS) -> dict:
    """The ``wag_retrieve`` rows (primary nodes and chosen neighbours with every weight column) for
    ``metrics`` (ids, names or aliases) of ``subject``, as of ``as_of`` over ``window_days``."""
    if not metrics:
        raise UsageError("metrics is empty; name at least one metric, e.g. [\"deep_sleep_duration\"]")
    if len(metrics) > MAX_METRICS:
        raise UsageError(f"{len(metrics)} metrics given; retrieve at most {MAX_METRICS} at a time")
    window, eta = _window(window_days), _openness(openness)
    settings = RetrievalSettings.from_project()
    with warehouse() as con:
        period, ref = _subject_day(con, subject, as_of)
        ids = list(dict.fromkeys(resolve_node(con, m) for m in metrics))
        rows = retrieve_rows(con, subject_id=subject, metrics=ids, reference_day=ref, window_days=window,
                             eta=eta, settings=settings)
        last = data_last_day(con)
    return {"data_last_day": last, "subject_last_day": jsonable(period["last_day"]), "subject_id": subject,
            "metrics": ids, "as_of": ref.isoformat(), "window_days": window if window is not None else "all",
            "openness": eta, "budget": rows[0]["budget"] if rows else 0, "rows": jsonable(rows)}


def node_window(subject: str, metric: str, as_of: str | None = None,
                window_days: int | None = DEFAULT_WINDOW_DAYS) -> dict:
    """One metric's window statistics and daily values for ``subject`` (``wag_node_window``)."""
    window = _window(window_days)
    with warehouse() as con:
        period, ref = _subject_day(con, subject, as_of)
        metric_id = resolve_node(con, metric)
        row = fetch_dicts(con, _sql("node_window.sql"),
                          {"subject": subject, "metrics": [metric_id], "ref_day": ref, "window_days": window})[0]
        node = fetch_dicts(con, "select name, unit, category, data_kind from nodes where metric_id = $m",
                           {"m": metric_id})[0]
        measured = fetch_dicts(con, _sql("measurement.sql"),
                               {"dataset": period["dataset"], "metrics": [metric_id]})
        last = data_last_day(con)
    row.pop("metric_id")
    out = {"data_last_day": last, "subject_last_day": jsonable(period["last_day"]), "subject_id": subject,
           "metric_id": metric_id, **node, "measurement": measured[0]["measurement"] if measured else None,
           "as_of": ref.isoformat(), "window_days": window if window is not None else "all", **jsonable(row)}
    daily = out.get("daily") or []
    if len(daily) > MAX_DAILY_DAYS:
        out["daily"] = daily[-MAX_DAILY_DAYS:]
        out["truncated"] = (f"daily values: the latest {MAX_DAILY_DAYS} of {len(daily)} days with data are "
                            "listed; the statistics cover every day")
    return out


def explain_edge(subject: str, metric_x: str, metric_y: str, as_of: str | None = None,
                 window_days: int | None = DEFAULT_WINDOW_DAYS, openness: float = DEFAULT_OPENNESS) -> dict:
    """The weight stages of edge ``metric_x`` -> ``metric_y`` for ``subject`` as of ``as_of``: prior,
    population, individual, global (HBM, DESIGN.md §6), local and final (§7), from the
    ``wag_retrieve`` macro with every candidate kept; beside it the stored full-history row of
    ``edge_weights`` (`wag graph show metric_x --subject … --json`)."""
    window, eta = _window(window_days), _openness(openness)
    settings = RetrievalSettings.from_project()
    with warehouse() as con:
        period, ref = _subject_day(con, subject, as_of)
        x, y = resolve_node(con, metric_x), resolve_node(con, metric_y)
        view = node_view(con, x, subject)
        edge = [e for e in view["edges"] if e["neighbour"] == y]
        if not edge:
            raise UsageError(f"the graph has no edge between {x} and {y}; {x}'s neighbours are "
                             + ", ".join(e["neighbour"] for e in view["edges"][:12]))
        rows = fetch_dicts(con, _sql("edge_stages.sql"), {
            "subject": subject, "node_x": x, "node_y": y, "ref_day": ref, "window_days": window, "eta": eta,
            **settings.macro_params()})
        last = data_last_day(con)
    stored = next((r for r in view["edge_weights"] if r["node_y"] == y), None)
    out = {"data_last_day": last, "subject_last_day": jsonable(period["last_day"]), "subject_id": subject,
           "metric_x": x, "metric_y": y, "as_of": ref.isoformat(),
           "window_days": window if window is not None else "all", "openness": eta,
           "relationship": edge[0]["relationship"], "confidence": edge[0]["confidence"],
           "edge_weights_full_history": jsonable(stored)}
    if not rows:
        out["stages"] = None
        out["note"] = (f"{y} is not a candidate neighbour of {x} for {subject} as of {ref.isoformat()}: one of "
                       "them has no data with variation up to that day, so the edge takes no weight")
        return out
    r = rows[0]
    pick = lambda *cols: jsonable({c: r[c] for c in cols})  # noqa: E731
    out["stages"] = {
        "prior": pick("w_prior", "p_prior"),
        "population": pick("r_pop_signed", "n_pop", "n_pop_subjects", "r_pop_reason", "pop_as_of_day",
                           "o_pop", "mu_pop", "sigma_pop"),
        "individual": pick("r_s_signed", "n_s", "r_s_reason", "i_ind", "mu_s", "sigma_s"),
        "global": pick("w_global", "fallback"),
        "local": pick("zeta", "n_window_days", "m_norm", "y_open", "w_local"),
        "final": pick("w_final", "rank", "is_selected", "rank_by", "rank_weight", "budget"),
    }
    return out


def run_sql(query: str) -> dict:
    """One read-only statement (`wag sql --json`): at most :data:`MAX_SQL_ROWS` rows and about
    :data:`MAX_SQL_CHARS` characters, with ``truncated`` saying what was left out."""
    check_read_only_sql(query)
    with warehouse() as con:
        cols, rows, more = execute_read_only(con, query, MAX_SQL_ROWS)
        last = data_last_day(con)
    out_rows, used = [], 0
    for r in rows:
        item = jsonable(dict(zip(cols, r)))
        used += _size(item) + 2
        if out_rows and used > MAX_SQL_CHARS:
            break
        out_rows.append(item)
    out = {"data_last_day": last, "columns": cols, "n_rows": len(out_rows), "rows": out_rows}
    if more or len(out_rows) < len(rows):
        why = (f"the first {MAX_SQL_ROWS:,} rows" if len(out_rows) == len(rows)
               else f"the first {len(out_rows):,} rows (about {MAX_SQL_CHARS:,} characters)")
        out["truncated"] = (f"the result has more rows than shown: {why} are returned; add a LIMIT, a WHERE or "
                            "an aggregate to see the rest")
    return out


# --------------------------------------------------------------------------- resources

METHOD_NOTE = """\
# WAG warehouse: what the weights mean

Wearable As Graph (WAG) answers a question about one person's wearable data by retrieving a
query-conditioned subgraph of a personal knowledge graph (DESIGN.md §5-§8). Nodes are the catalog's
metrics (the `wag://catalog` resource); edges are prior relationships between metrics with a strength
`w_prior` in [0, 1] from the literature.

For a subject, a primary metric x and each neighbour y with data that varies:

- **prior** `p_prior`: w_prior standardised over x's candidate neighbours, through a sigmoid.
- **population** `o_pop`: the same for Spearman's rho of x and y over every subject-day of the
  subject's dataset up to the reference day (`r_pop_signed`, `n_pop`, from a monthly snapshot,
  `pop_as_of_day`); `mu_pop` is the prior updated by it (closed-form hierarchical Bayes).
- **individual** `i_ind`: the same for the subject's own Spearman rho (`r_s_signed`, `n_s` paired
  days, at least 10); `mu_s` updates `mu_pop` by it, weighted by how precise each estimate is.
- **global** `w_global`: `mu_s` when the person's own correlation exists, else `mu_pop`, else
  `p_prior` (`fallback` says which).
- **local** `w_local`: how unusual y was in the question's window (`zeta`, mean |z| against the
  subject's own history up to the reference day), favouring unusual metrics for open questions
  (openness near 1) and usual ones for closed questions.
- **final** `w_final = (1 - beta) w_global + beta w_local` (w_global alone without a window). The
  top `floor(openness x kappa)` neighbours by w_final join the primary metrics in the subgraph.

A correlation that cannot be computed is NULL with its reason (`n_below_min`, `zero_variance_x`,
`too_few_subjects`...), never zero. Only days up to the reference day are used: no look-ahead.
Correlation is not causation; the weights rank what to look at, they do not prove an effect.
"""


def catalog_resource() -> str:
    """The metric catalog as JSON text (the `wag://catalog` resource): every node with its unit,
    category, aliases, normal range and datasets with data, and the data's last day."""
    with warehouse() as con:
        rows = fetch_dicts(con, "select metric_id, name, category, unit, data_kind, aliases, description, "
                                "normal_range, datasets_with_data from nodes order by category, metric_id")
        last = data_last_day(con)
    for r in rows:
        r["aliases"] = [a.strip() for a in (r["aliases"] or "").split("|") if a.strip()]
    return json.dumps({"data_last_day": last, "metrics": jsonable(rows)}, ensure_ascii=False)


def method_resource() -> str:
    """The method note (the `wag://method` resource), ending with the data's last day when a
    warehouse is there."""
    try:
        with warehouse() as con:
            last = data_last_day(con)
        tail = f"\nData last day in this warehouse: {last}.\n"
    except WagError as exc:  # the note is useful without a warehouse
        tail = f"\n(No data day: {str(exc).splitlines()[0]})\n"
    return METHOD_NOTE + tail
