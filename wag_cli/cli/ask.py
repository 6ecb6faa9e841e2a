"""`wag parse`, `wag ask` and `wag mcp`: questions in, answers out (DESIGN.md §8-§11)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from .apps import app
from .output import console, failures, parse_day, print_json


@app.command()
def parse(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Reference day YYYY-MM-DD (default: the --subject's last day with data, else today).")] = None,
    subject: Annotated[Optional[str], typer.Option("--subject", help="Subject id: its last day with data is the reference day, as in `wag ask`.")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Never call a language model.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Parse a question into metrics, window, reference day, openness and category (DESIGN.md §8)."""
    from ..pipeline import parse_question, reference_day_for

    with failures(as_json):
        ref, ref_source = reference_day_for(subject, parse_day(as_of))
        parsed = parse_question(question, ref, offline=offline)
    out = parsed.to_json()
    out["as_of"] = ref.isoformat()
    out["as_of_source"] = ref_source
    if not parsed.metrics:
        from ..pipeline import no_metric_hint
        from ..catalog import load_catalog

        out["closest_metrics"] = no_metric_hint(question, load_catalog())[1]
    if as_json:
        print_json(out)
        return
    table = Table(title="QueryParse", show_header=False)
    for k in ("metrics", "window_days", "reference_day", "openness", "category", "source"):
        table.add_row(k, str(out.get(k)))
    table.add_row("as of", f"{out['as_of']} ({ref_source})")
    if out.get("closest_metrics"):
        table.add_row("closest metrics", ", ".join(out["closest_metrics"]))
    console.print(table)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    subject: Annotated[str, typer.Option("--subject", help="Subject id, e.g. pmdata:p01 (see `wag subjects`).")],
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Reference day YYYY-MM-DD (default: the subject's last day with data).")] = None,
    method: Annotated[str, typer.Option("--method", help="wag (full subgraph), rag (primary nodes' knowledge + data) or base (data only).")] = "wag",
    offline: Annotated[bool, typer.Option("--offline", help="Never call a language model.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    kappa: Annotated[Optional[int], typer.Option("--kappa", min=0, help="Neighbour budget scale: B = floor(openness x kappa) (§8; dbt var kappa).", rich_help_panel="Retrieval constants")] = None,
    beta: Annotated[Optional[float], typer.Option("--beta", min=0, max=1, help="Weight of w_local in w_final (§7; var beta).", rich_help_panel="Retrieval constants")] = None,
    gamma_local: Annotated[Optional[float], typer.Option("--gamma-local", help="Sigmoid slope of the local weight (§7).", rich_help_panel="Retrieval constants")] = None,
    gamma_global: Annotated[Optional[float], typer.Option("--gamma-global", help="Sigmoid slope of the global weights (§6).", rich_help_panel="Retrieval constants")] = None,
    alpha_prior: Annotated[Optional[float], typer.Option("--alpha-prior", min=0, help="HBM prior variance scale (§6).", rich_help_panel="Retrieval constants")] = None,
    alpha_pop: Annotated[Optional[float], typer.Option("--alpha-pop", min=0, help="HBM population variance scale (§6).", rich_help_panel="Retrieval constants")] = None,
    alpha_ind: Annotated[Optional[float], typer.Option("--alpha-ind", min=0, help="HBM individual variance scale (§6).", rich_help_panel="Retrieval constants")] = None,
    min_samples: Annotated[Optional[int], typer.Option("--min-samples", min=3, help="Paired days for a valid correlation (§5).", rich_help_panel="Retrieval constants")] = None,
    min_pop_subjects: Annotated[Optional[int], typer.Option("--min-pop-subjects", min=1, help="Subjects behind a population correlation (§5).", rich_help_panel="Retrieval constants")] = None,
    delta: Annotated[Optional[float], typer.Option("--delta", min=0, max=1, help="Cosine threshold of embedding matches of metric names (§8; model path).", rich_help_panel="Retrieval constants")] = None,
    rank_by: Annotated[Optional[str], typer.Option("--rank-by", help="Weight that ranks neighbours: w_final, or an ablation w_global, w_local, p_prior, w_pop, w_ind (§6-§7).", rich_help_panel="Retrieval constants")] = None,
    budget: Annotated[Optional[int], typer.Option("--budget", min=200, help="Token budget of the model prompt (default 3456: a 4,096-token context with room for the reply); lowest-weight neighbours' daily rows are trimmed first.")] = None,
) -> None:
    """Answer a question about a subject's data, grounded in the retrieved subgraph.

    Every retrieval constant defaults to the dbt var of the same name in dbt_project.yml."""
    from ..pipeline import answer_question
    from ..render import print_answer
    from ..settings import RetrievalSettings

    with failures(as_json):
        settings = RetrievalSettings.from_project(
            kappa=kappa, beta=beta, gamma_local=gamma_local, gamma_global=gamma_global, alpha_prior=alpha_prior,
            alpha_pop=alpha_pop, alpha_ind=alpha_ind, min_samples=min_samples, min_pop_subjects=min_pop_subjects,
            delta=delta, rank_by=rank_by)
        result = answer_question(question, subject, as_of=parse_day(as_of), method=method, offline=offline,
                                 settings=settings, budget=budget)
    if as_json:
        print_json(result.to_json())
        return
    print_answer(console, result)


@app.command()
def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on 127.0.0.1 (endpoint /mcp) instead of stdio.")] = False,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port of --http.")] = 8765,  # mcp_server.DEFAULT_HTTP_PORT
) -> None:
    """Serve the warehouse as a read-only MCP tool server (stdio by default) for any MCP client.

    Tools: list_subjects, list_metrics, ask, retrieve_subgraph, node_window, explain_edge, run_sql;
    resources wag://catalog and wag://method. The warehouse ($WAG_DB) is opened read-only per call."""
    from ..mcp_server import serve

    serve(http=http, port=port)
