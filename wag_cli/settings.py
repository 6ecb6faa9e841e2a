"""Retrieval settings: one typed object, defaults read from the dbt project's vars (DESIGN.md §5-§8).

The dbt vars in ``dbt_project.yml`` are the one source of truth for every constant of the method;
this module reads them (it does not restate them), the CLI overrides them per call, and
:func:`wag_cli.retrieve.retrieve` passes them to the warehouse's ``wag_retrieve`` table macro as
named arguments. Python never recomputes what the macro computes with them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache

import yaml

from .paths import project_dir


@lru_cache(maxsize=1)
def dbt_vars() -> dict:
    """The ``vars:`` block of ``dbt_project.yml`` as a dict (raises WagError if the project is absent)."""
    with open(project_dir() / "dbt_project.yml", encoding="utf-8") as fh:
        return dict((yaml.safe_load(fh) or {}).get("vars") or {})


def default_window_days() -> int:
    """k^q when a question names no period (DESIGN.md §8): the dbt var ``default_window_days``, 7 when
    the project file cannot be read (an installed package without its dbt project)."""
    try:
        return int(dbt_vars().get("default_window_days", 7))
    except Exception:  # noqa: BLE001 - the parse must work without a project
        return 7


@dataclass(frozen=True)
class RetrievalSettings:
    """Constants of retrieval (§8), local weights (§7), global weights (§6) and correlations (§5).

    kappa: neighbour budget scale (B = floor(eta kappa)); beta: fusion weight of w_local;
    gamma_local / gamma_global: sigmoid slopes; alpha_prior / alpha_pop / alpha_ind: HBM variance
    scales; min_samples: paired days for a valid correlation; min_pop_subjects: subjects behind a
    population correlation; delta: cosine threshold for embedding matches of metric names; rank_by: the weight that ranks neighbours ('w_final', or an ablation:
    'w_global', 'w_local', 'p_prior', 'w_pop', 'w_ind'); as_of: weights from days <= the reference
    day only (§6 "As of"; False = the full-history edge_weights table).
    """

    kappa: int
    beta: float
    gamma_local: float
    gamma_global: float
    alpha_prior: float
    alpha_pop: float
    alpha_ind: float
    min_samples: int
    min_pop_subjects: int
    delta: float = 0.85
    rank_by: str = "w_final"
    as_of: bool = True

    @classmethod
    def from_project(cls, **overrides) -> "RetrievalSettings":
        """Defaults from the dbt vars, then every non-None override (unknown names are a TypeError)."""
        v = dbt_vars()
        base = cls(
            kappa=int(v["kappa"]), beta=float(v["beta"]), gamma_local=float(v["gamma_local"]),
            gamma_global=float(v["gamma_global"]), alpha_prior=float(v["alpha_prior"]),
            alpha_pop=float(v["alpha_pop"]), alpha_ind=float(v["alpha_ind"]),
            min_samples=int(v["min_samples"]), min_pop_subjects=int(v["min_pop_subjects"]),
            delta=float(v["delta"]),
        )
        names = {f.name for f in fields(cls)}
        unknown = set(overrides) - names
        if unknown:
            raise TypeError(f"unknown retrieval setting(s): {', '.join(sorted(unknown))}")
        return replace(base, **{k: val for k, val in overrides.items() if val is not None})

    def macro_params(self) -> dict:
        """Named parameters of the wag_retrieve call (``$kappa`` ... in sql/retrieve.sql)."""
        out = asdict(self)
        out.pop("delta")                 # used by QueryParse's embedding match, not by the macro
        return out

    def weight_params(self) -> dict:
        """Named parameters of wag_edge_weights_as_of (``$min_samples`` ... in the analysis SQL)."""
        keys = ("min_samples", "min_pop_subjects", "gamma_global", "alpha_prior", "alpha_pop", "alpha_ind")
        return {k: getattr(self, k) for k in keys}
