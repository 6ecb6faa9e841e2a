"""Offline node proposals for unmapped wide columns (issue 11 item 2; DESIGN.md §9 without a model).

``wag graph add-metrics --from-unmapped`` reads the columns of the wide sources that resolve to no
node (the warehouse table ``stg_wide__unmapped_columns``) and, for each, proposes a node:

* ``metric_id`` the snake_case of the column (suffix ``_2``... if taken), ``name`` the column;
* ``category`` from word cues of the column name (``wag_cli/data/metric_cues.toml``, first match);
* ``data_kind`` ``text`` when fewer than half of the non-empty values are numbers, else ``numeric``;
  ``unit`` from the name's unit words, else from the values (all in [0, 1] -> ``index (0-1)``,
  integers within 0..10 -> ``score``, else ``count``); ``ratio_scale`` per unit rule;
* ``aliases`` the column name in lower case, so the wide staging maps the column to the node once the
  seed is accepted;
* ``description`` starting with ``[unreviewed]`` and naming the source column and observed range, a
  neutral range and no advice; ``data_sources`` ending with ``(unreviewed proposal)``.

No prior edges are proposed: such a node's weights come from the data alone.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .nodegen import snake
from .seeds import GraphSeeds

UNREVIEWED = "[unreviewed]"


@dataclass
class Column:
    """An unmapped wide column: ``dataset``, ``column_name``, ``n_values`` and sample ``values`` (text)."""

    dataset: str
    column_name: str
    n_values: int = 0
    values: list[str] = field(default_factory=list)

    @property
    def data_source(self) -> str:
        return f"{self.dataset}: wide column '{self.column_name}' (unreviewed proposal)"


@lru_cache(maxsize=1)
def cues() -> dict:
    """``wag_cli/data/metric_cues.toml``: category cue words and unit rules."""
    return tomllib.loads(resources.files("wag_cli").joinpath("data", "metric_cues.toml").read_text(encoding="utf-8"))


def words(name: str) -> list[str]:
    """Lower-case words of a column name; '%' and '°c' are words too."""
    return re.findall(r"°c|%|[a-z0-9]+", name.lower())


def infer_category(name: str) -> str:
    """The first category of metric_cues.toml whose cue (a word or a phrase) the name contains."""
    w = words(name)
    text = " ".join(w)
    for cat, cue_words in cues()["categories"].items():
        for cue in cue_words:
            if (" " in cue and cue in text) or cue in w:
                return cat
    return "Lifestyle"


def _numbers(values: list[str]) -> list[float]:
    out = []
    for v in values:
        try:
            x = float(str(v).strip().replace(",", "."))
        except ValueError:
            continue
        if x == x and abs(x) != float("inf"):
            out.append(x)
    return out


def infer_unit(name: str, values: list[str]) -> tuple[str, str, bool]:
    """``(unit, data_kind, ratio_scale)`` from the name's unit words and the values."""
    filled = [v for v in values if str(v).strip()]
    nums = _numbers(filled)
    if filled and len(nums) < len(filled) / 2:
        return "text", "text", False
    w = set(words(name))
    for rule in cues()["units"]:
        if w & set(rule["words"]):
            return rule["unit"], "numeric", bool(rule["ratio"])
    if nums and all(0 <= x <= 1 for x in nums):
        return "index (0-1)", "numeric", True
    if nums and all(x == int(x) and 0 <= x <= 10 for x in nums):
        return "score", "numeric", False
    return "count", "numeric", True


def propose_node(col: Column, g: GraphSeeds) -> dict:
    """A seed row for ``col`` (module docstring), with a metric_id not yet in ``g``."""
    base = snake(col.column_name)
    mid, k = base, 2
    while mid in g.nodes:
        mid, k = f"{base}_{k}", k + 1
    unit, kind, ratio = infer_unit(col.column_name, col.values)
    nums = _numbers(col.values)
    seen = f"observed {min(nums):g} to {max(nums):g}" if nums and kind == "numeric" else "text entries"
    return {
        "metric_id": mid, "name": col.column_name.strip(), "category": infer_category(col.column_name),
        "unit": unit, "data_kind": kind,
        "description": (f"{UNREVIEWED} Proposed offline by wag graph add-metrics from the column "
                        f"'{col.column_name}' of the wide source '{col.dataset}' ({col.n_values} values, {seen}). "
                        "Unit and category were inferred from the column name and values; review them, and "
                        "write what the metric measures, before relying on it."),
        "normal_range": "Not reviewed; compare with your own usual level.",
        "recommendations": "No recommendations until this node is reviewed.",
        "aliases": col.column_name.strip().lower(),
        "physical_min": "0" if unit in ("%", "index (0-1)") else "",
        "physical_max": "100" if unit == "%" else "1" if unit == "index (0-1)" else "",
        "origin": "dataset", "data_sources": col.data_source,
        "ratio_scale": "true" if ratio else "false",
    }


def propose_nodes(base: GraphSeeds, columns: list[Column]) -> tuple[GraphSeeds, list[str], dict[str, str]]:
    """``(graph with the proposed nodes, new ids, {column: existing id})``: a column whose name
    matches a node (Merge, :func:`.merge.find_match`) updates that node instead (UpdateNode)."""
    from .merge import find_match, update_node

    g = base.copy()
    added, merged = [], {}
    for col in columns:
        hit = find_match(col.column_name, g)
        if hit:
            update_node(g, hit[0], col.column_name, col.data_source)
            merged[col.column_name] = hit[0]
            continue
        row = propose_node(col, g)
        g.nodes[row["metric_id"]] = row
        added.append(row["metric_id"])
    return g, added, merged
