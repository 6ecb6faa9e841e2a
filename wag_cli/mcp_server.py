"""`wag mcp`: the warehouse as a read-only tool server for any MCP client (issue 29), on the official
Python SDK (``mcp`` 2.x, :class:`mcp.server.mcpserver.MCPServer`).

This module only describes and registers: each tool's arguments (with the JSON-schema descriptions a
model reads) and the two resources; the work is done by :mod:`wag_cli.mcp_tools`. A
:class:`~wag_cli.errors.WagError` (unknown subject, missing or locked warehouse, a refused
statement…) and a DuckDB error become a tool error with its one-sentence message, never a crash.
Every tool is annotated read-only, idempotent and closed-world.

Transports: stdio (the default; stdout carries the protocol, so nothing else may print there) and
streamable HTTP on 127.0.0.1 (``/mcp``).
"""

from __future__ import annotations

from typing import Annotated, Any

import duckdb
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from . import __version__, mcp_tools
from .errors import WagError

SERVER_NAME = "wag-warehouse"
HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8765

INSTRUCTIONS = """\
Read-only access to a WAG (Wearable As Graph) warehouse: daily wearable and self-report data of
study subjects, a knowledge graph of health metrics and per-subject edge weights. Start with
list_subjects (who and which days) and list_metrics (metric ids, units, what each dataset measures).
ask answers a question about one subject offline with the retrieved evidence; retrieve_subgraph,
node_window and explain_edge show the pieces; run_sql runs one SELECT. Every reply states the data's
last day (data_last_day): the datasets are historical, so "this week" means the week ending on the
subject's last day unless as_of is given. Read the wag://method resource for what the weights mean."""

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                             open_world_hint=False)

Subject = Annotated[str, Field(description="Subject id as listed by list_subjects, e.g. 'pmdata:p01'.")]
AsOf = Annotated[str | None, Field(
    description="Reference day YYYY-MM-DD inside the subject's data; only days up to it are used. "
                "Default: the subject's last day with data.")]
WindowDays = Annotated[int | None, Field(
    ge=1, description="Window length in calendar days ending on as_of (7 = the last week); null = every "
                      "day up to as_of.")]
Openness = Annotated[float, Field(
    ge=0, le=1, description="How open the question is, 0..1: near 1 favours metrics that were unusual in the "
                            "window and retrieves up to floor(openness x kappa) neighbours (kappa = 5); near 0 "
                            "favours usual ones and retrieves none; 0.5 makes the local weight neutral.")]
Metric = Annotated[str, Field(description="A metric id, name or alias, e.g. 'deep_sleep_duration', 'HRV', "
                                          "'resting heart rate' (list_metrics finds them).")]


def _call(fn, *args, **kwargs) -> dict[str, Any]:
    """Run a :mod:`wag_cli.mcp_tools` function; its WagError or DuckDB error becomes a ToolError."""
    try:
        return fn(*args, **kwargs)
    except WagError as exc:
        raise ToolError(str(exc)) from None
    except duckdb.Error as exc:
        raise ToolError(f"the warehouse could not answer: {str(exc).splitlines()[0]}") from None


def list_subjects(
    dataset: Annotated[str | None, Field(
        description="Only this dataset: pmdata, lifesnaps, globem, ifh_affect or a wide export's name.")] = None,
) -> dict[str, Any]:
    """List the subjects: id, dataset, days with measured data, metrics, first and last day, and
    whether the subject is in the stratified selection. Use a subject_id from here in the other tools."""
    return _call(mcp_tools.list_subjects, dataset)


def list_metrics(
    query: Annotated[str, Field(
        description="Words to search in metric ids, names, aliases and categories, all of which must match "
                    "(e.g. 'sleep deep', 'hrv', 'Activity'); empty = every metric.")] = "",
    limit: Annotated[int, Field(ge=1, le=200, description="Metrics returned at most.")] = 25,
) -> dict[str, Any]:
    """Search the metric catalog (the knowledge graph's nodes): id, name, category, unit, aliases,
    description, the datasets with data and how each dataset measures the metric (instrument, scale,
    unit conversion). With no match, closest_metrics suggests names."""
    return _call(mcp_tools.list_metrics, query, limit)


def ask(
    question: Annotated[str, Field(description="The question in plain words, e.g. 'How did I sleep this week?' or "
                                               "'Why am I tired despite sleeping 8 hours?'.")],
    subject: Subject,
    as_of: AsOf = None,
) -> dict[str, Any]:
    """Answer a question about one subject's data offline (no language model), as `wag ask --json`:
    the answer text, the parse (metrics, period, openness, intent), the findings (analysis:
    correlations, influences, trends, comparisons) and the retrieved subgraph (primary metrics and
    graph neighbours with their weights, window statistics and daily values). Quote the answer's
    numbers; they come from the warehouse."""
    return _call(mcp_tools.ask, question, subject, as_of)


def retrieve_subgraph(
    subject: Subject,
    metrics: Annotated[list[Metric], Field(min_length=1, max_length=mcp_tools.MAX_METRICS,
                                           description="Primary metrics (ids, names or aliases).")],
    as_of: AsOf = None,
    window_days: WindowDays = mcp_tools.DEFAULT_WINDOW_DAYS,
    openness: Openness = mcp_tools.DEFAULT_OPENNESS,
) -> dict[str, Any]:
    """Run the warehouse's retrieval (wag_retrieve) for given primary metrics, period and openness: one
    row per primary metric and per chosen neighbour, with every weight column (w_prior, r_s_signed,
    r_pop_signed, p_prior, o_pop, i_ind, mu_pop, mu_s, w_global, zeta, w_local, w_final), the rank,
    the reason it was chosen and the edge's relationship text."""
    return _call(mcp_tools.retrieve_subgraph, subject, metrics, as_of, window_days, openness)


def node_window(
    subject: Subject,
    metric: Metric,
    as_of: AsOf = None,
    window_days: WindowDays = mcp_tools.DEFAULT_WINDOW_DAYS,
) -> dict[str, Any]:
    """One metric's data for a subject over a window ending on as_of: daily values with z-scores,
    the window mean, min and max (and their days), the usual mean and sd over every day up to as_of,
    the baseline before the window, zeta (mean |z|), coverage, and how the dataset measures it."""
    return _call(mcp_tools.node_window, subject, metric, as_of, window_days)


def explain_edge(
    subject: Subject,
    metric_x: Annotated[str, Field(description="The primary metric (id, name or alias).")],
    metric_y: Annotated[str, Field(description="Its graph neighbour (id, name or alias).")],
    as_of: AsOf = None,
    window_days: WindowDays = mcp_tools.DEFAULT_WINDOW_DAYS,
    openness: Openness = mcp_tools.DEFAULT_OPENNESS,
) -> dict[str, Any]:
    """Explain why one edge x -> y weighs what it weighs for a subject, stage by stage: prior (literature
    strength), population (pooled Spearman of the dataset), individual (the subject's own Spearman),
    global (hierarchical Bayes posterior and which evidence it used), local (how unusual y was in the
    window) and final (w_final, rank, selected or not), plus the stored full-history row."""
    return _call(mcp_tools.explain_edge, subject, metric_x, metric_y, as_of, window_days, openness)


def run_sql(
    query: Annotated[str, Field(
        description="One DuckDB SELECT / WITH / DESCRIBE / SHOW / SUMMARIZE / EXPLAIN statement on the warehouse's "
                    "tables (metric_values, nodes, edges, edge_weights, subject_summary, daily_abnormality…) and "
                    "macros (wag_node_window, wag_retrieve). Writes, file readers and ATTACH are refused.")],
) -> dict[str, Any]:
    """Run one read-only SQL statement against the warehouse (opened read-only, no file or network
    access, configuration locked). Returns at most 1,000 rows and about 50,000 characters; when the
    result is longer, 'truncated' says so. Aggregate in SQL rather than fetching raw rows."""
    return _call(mcp_tools.run_sql, query)


TOOLS = (list_subjects, list_metrics, ask, retrieve_subgraph, node_window, explain_edge, run_sql)


def create_server() -> MCPServer:
    """The MCP server with the seven read-only tools and the resources ``wag://catalog`` (the metric
    catalog, JSON) and ``wag://method`` (what the weights mean, Markdown). Nothing is opened until a
    tool or resource is called."""
    server = MCPServer(SERVER_NAME, title="WAG warehouse", version=__version__, instructions=INSTRUCTIONS,
                       log_level="WARNING")
    for fn in TOOLS:
        server.add_tool(fn, annotations=_READ_ONLY, structured_output=True)

    @server.resource("wag://catalog", name="metric_catalog", mime_type="application/json",
                     description="Every metric (graph node): id, name, category, unit, aliases, description, "
                                 "normal range, datasets with data; and the data's last day.")
    def catalog() -> str:
        try:
            return mcp_tools.catalog_resource()
        except WagError as exc:
            from mcp.server.mcpserver.exceptions import ResourceError

            raise ResourceError(str(exc)) from None

    @server.resource("wag://method", name="method_note", mime_type="text/markdown",
                     description="A short note on the method: what the prior, population, individual, global, "
                                 "local and final weights mean.")
    def method() -> str:
        return mcp_tools.method_resource()

    return server


def serve(http: bool = False, port: int = DEFAULT_HTTP_PORT) -> None:
    """Run the server until it is stopped: over stdio, or with ``http`` over streamable HTTP on
    ``127.0.0.1:port`` (endpoint ``/mcp``)."""
    server = create_server()
    if http:
        server.run("streamable-http", host=HTTP_HOST, port=port)
    else:
        server.run("stdio")
