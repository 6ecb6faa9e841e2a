"""Hyperparameter selection for alpha_pop and alpha_ind (DESIGN.md §6 "Hyperparameter selection").

On a log10 grid, Kendall's tau between stage rankings, averaged over primary nodes and subjects:

* alpha_pop: ``tau(p, mu_pop)`` (how much the population posterior still follows the prior) and
  ``tau(o, mu_pop)`` (how much it follows the population evidence) — as alpha_pop grows the
  evidence's variance grows, so the first rises and the second falls;
* alpha_ind: ``tau(mu_pop, mu_s)`` and ``tau(i, mu_s)``, likewise for the individual stage.

The chosen alpha is where the two curves cross, by linear interpolation between the grid points
around the first sign change of their difference (:func:`crossings`).

The weights come from SQL, never from a Python copy of the HBM: the dbt model ``eval_alpha_grid``
(a view over edge_weights' stored evidence x the grid of var ``alpha_grid_log10``) runs the single
HBM macro ``wag_hbm`` with alpha as a column. ``--grid`` other than the var's compiles the same
model with ``dbt compile --vars`` and runs the compiled SELECT read-only. Python computes only
Kendall's tau-b per (subject, node_x) with ``scipy.stats.kendalltau``; neighbourhoods with fewer
than two complete pairs or a constant ranking (tau undefined) are left out of the mean.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np
from scipy.stats import kendalltau

from ..errors import UsageError, WagError

CURVES = {
    "alpha_pop": (("p_prior", "mu_pop"), ("o_pop", "mu_pop")),
    "alpha_ind": (("mu_pop", "mu_s"), ("i_ind", "mu_s")),
}
COLUMNS = ("p_prior", "o_pop", "i_ind", "mu_pop", "mu_s")


def _sql(name: str) -> str:
    return resources.files("wag_cli.eval").joinpath("sql", name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Grid:
    """A log10 grid ``start, start + step, ..., <= stop``."""

    start: float
    stop: float
    step: float

    def as_var(self) -> dict:
        """The dbt var value ``{start, stop, step}``."""
        return {"start": self.start, "stop": self.stop, "step": self.step}


def parse_grid(text: str) -> Grid:
    """``"START:STOP:STEP"`` (log10 units, e.g. ``-3:3:0.25``) -> :class:`Grid`.

    Raises :class:`UsageError` unless three finite numbers with step > 0, stop >= start and at most
    401 points.
    """
    parts = text.split(":")
    try:
        start, stop, step = (float(p) for p in parts)
    except ValueError:
        raise UsageError(f"--grid {text!r} must be START:STOP:STEP in log10 units, e.g. -3:3:0.25") from None
    if not all(math.isfinite(v) for v in (start, stop, step)) or step <= 0 or stop < start:
        raise UsageError(f"--grid {text!r}: need finite numbers, STEP > 0 and STOP >= START")
    if (stop - start) / step > 400:
        raise UsageError(f"--grid {text!r} has more than 401 points; use a larger STEP")
    return Grid(start, stop, step)


def crossings(xs: list[float], a: list[float], b: list[float]) -> list[float]:
    """Every x where curves ``a`` and ``b`` (sampled at increasing ``xs``) cross, by linear
    interpolation of ``d = a - b`` between neighbouring grid points: a grid point with ``d = 0`` is a
    crossing itself; a sign change between x_i and x_{i+1} crosses at
    ``x_i + (x_{i+1} - x_i) d_i / (d_i - d_{i+1})``. NaN points are skipped. Ascending order."""
    pts = [(x, p - q) for x, p, q in zip(xs, a, b) if p is not None and q is not None
           and math.isfinite(p) and math.isfinite(q)]
    out: list[float] = []
    for i, (x, d) in enumerate(pts):
        if d == 0:
            out.append(x)
        elif i + 1 < len(pts):
            x2, d2 = pts[i + 1]
            if d * d2 < 0:
                out.append(x + (x2 - x) * d / (d - d2))
    return out


def compile_grid(grid: Grid) -> str:
    """The SELECT of model ``eval_alpha_grid`` compiled by dbt with ``alpha_grid_log10 = grid``.

    Call it while no connection holds the warehouse (dbt opens the file). Raises :class:`WagError`
    when dbt cannot compile the model.
    """
    from ..build import invoke_dbt_in_process
    from ..paths import data_dir, db_path, project_dir

    project = project_dir()
    env = {"WAG_DB": str(db_path()), "DO_NOT_TRACK": os.environ.get("DO_NOT_TRACK", "1")}
    with tempfile.TemporaryDirectory(prefix="wag_alpha_") as tmp:
        args = ["compile", "--select", "eval_alpha_grid", "--project-dir", str(project),
                "--profiles-dir", str(project), "--target-path", tmp, "--log-path", tmp, "--log-level", "none",
                "--vars", json.dumps({"alpha_grid_log10": grid.as_var(), "data_dir": str(data_dir())})]
        res = invoke_dbt_in_process(args, env, project)
    results = getattr(res.result, "results", None) or []
    if not res.success or not results:
        raise WagError(f"dbt could not compile eval_alpha_grid: {res.exception or 'no result'}")
    return results[0].node.compiled_code


def load_grid(wh, compiled_sql: str | None = None) -> dict[str, np.ndarray]:
    """Stage weights on the grid as numpy arrays (``sql/alpha_grid.sql``), from the warehouse view
    ``eval_alpha_grid`` or from ``compiled_sql`` (:func:`compile_grid` for another grid). ``wh``: a
    read-only warehouse connection."""
    relation = "eval_alpha_grid" if compiled_sql is None else f"(\n{compiled_sql}\n) as eval_alpha_grid"
    return wh.execute(_sql("alpha_grid.sql").replace("from {relation}", f"from {relation}")).fetchnumpy()


def tau_curves(data: dict[str, np.ndarray], on_progress: Callable[[int, int], None] | None = None) -> dict:
    """Mean Kendall's tau per grid point for the two curves of each hyperparameter.

    ``data``: arrays ``grid_param, log10_alpha, subject_id, node_x`` and the stage columns, sorted so
    each neighbourhood is contiguous. Returns ``{param: {"log10_alpha": [...], "curves": {"tau(a, b)":
    [...]}, "n_neighbourhoods": [...]}}``.
    """
    n = len(data["grid_param"])
    keys = list(zip(data["grid_param"], data["log10_alpha"], data["subject_id"], data["node_x"]))
    cols = {c: np.asarray(data[c], dtype=float) for c in COLUMNS}  # NULL -> nan (masked arrays filled below)
    for c in COLUMNS:
        arr = data[c]
        if np.ma.isMaskedArray(arr):
            cols[c] = np.ma.filled(arr.astype(float), np.nan)
    bounds = [0] + [i for i in range(1, n) if keys[i] != keys[i - 1]] + [n]
    sums: dict[tuple[str, float, str], list[float]] = {}
    for gi, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        param, a, _, _ = keys[lo]
        for x, y in CURVES[str(param)]:
            u, v = cols[x][lo:hi], cols[y][lo:hi]
            ok = ~(np.isnan(u) | np.isnan(v))
            if ok.sum() < 2:
                continue
            t = kendalltau(u[ok], v[ok]).statistic
            if t is not None and math.isfinite(t):
                sums.setdefault((str(param), float(a), f"tau({x}, {y})"), []).append(float(t))
        if on_progress and (gi % 500 == 0 or gi == len(bounds) - 2):
            on_progress(gi + 1, len(bounds) - 1)
    out: dict = {}
    for param, pairs in CURVES.items():
        xs = sorted({a for (p, a, _) in sums if p == param})
        names = [f"tau({x}, {y})" for x, y in pairs]
        out[param] = {
            "log10_alpha": xs,
            "curves": {nm: [float(np.mean(sums[(param, a, nm)])) if sums.get((param, a, nm)) else float("nan")
                            for a in xs] for nm in names},
            "n_neighbourhoods": [len(sums.get((param, a, names[0]), [])) for a in xs],
        }
    return out


def select_alphas(curves: dict) -> dict:
    """The crossing per hyperparameter: ``{param: {"log10": x | None, "value": 10^x | None,
    "all_crossings": [...]}}`` (the first crossing is chosen; None when the curves never cross)."""
    out = {}
    for param, c in curves.items():
        a, b = c["curves"].values()
        xs = crossings(c["log10_alpha"], a, b)
        out[param] = {"log10": xs[0] if xs else None, "value": 10 ** xs[0] if xs else None, "all_crossings": xs}
    return out


def alpha_figure(curves: dict, chosen: dict, path: Path) -> Path:
    """PNG of both hyperparameters' tau curves with the chosen crossing marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, (param, c) in zip(axes, curves.items()):
        for name, ys in c["curves"].items():
            ax.plot(c["log10_alpha"], ys, marker=".", label=name)
        x = chosen[param]["log10"]
        if x is not None:
            ax.axvline(x, color="grey", linestyle="--", linewidth=1)
            ax.annotate(f"log10 = {x:.2f}", (x, 0.02), xycoords=("data", "axes fraction"), fontsize=8)
        ax.set_xlabel(f"log10 {param}")
        ax.set_ylabel("mean Kendall's tau")
        ax.set_title(param)
        ax.legend(fontsize=8)
    fig.suptitle("HBM hyperparameter selection (DESIGN.md §6)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def vars_hint(chosen: dict) -> str | None:
    """The ``--vars`` value setting the chosen alphas (None when neither curve pair crosses)."""
    parts = [f"{p}: {c['value']:.6g}" for p, c in chosen.items() if c["value"] is not None]
    return "{" + ", ".join(parts) + "}" if parts else None
