"""PNG figures of the evaluation (DESIGN.md §10) and of the HBM weights (§6; paper Figs. 6 and 8).

Everything is drawn with matplotlib's Agg backend (no display needed) from values SQL stored or
computed: the report dict of :func:`wag_cli.eval.report.build_report`, and the stage columns of
``edge_weights`` read with ``sql/report_stage_*.sql`` (no weight is recomputed here).

Files (``slug`` = the judge name with ``:`` and ``/`` replaced):

* ``<slug>_win_rates.png`` — win rate per condition, one panel per experiment;
* ``<slug>_mean_ranks.png`` — mean rank per criterion and condition, one panel per experiment;
* ``<slug>_<experiment>_breakdown.png`` — heat map of the Overall mean rank by dataset, category,
  window and abnormal level (rows) and condition (columns), n in every cell;
* ``human_<experiment>_mean_ranks.png``, ``human_<experiment>_heatmap.png`` — the human evaluation
  (:mod:`wag_cli.eval.human_figures`).

Rank axes run from 1 (best) to k, legends sit outside the bars, and a heat map's labels are dark on
light cells and light on dark ones (:func:`text_colour`).
* ``hbm_stage_shifts_<subject>_<node>.png`` — per neighbour y of a primary node: p_prior -> mu_pop ->
  mu_s (Fig. 6);
* ``hbm_stage_distributions[_<subject>].png`` — histograms of p_prior, mu_pop, mu_s, w_global (Fig. 8).
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import duckdb
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..errors import UsageError  # noqa: E402
from .judge import CRITERIA  # noqa: E402


def _sql(name: str) -> str:
    return resources.files("wag_cli.eval").joinpath("sql", name).read_text(encoding="utf-8")


def slug(text: str) -> str:
    """A file-name-safe version of a judge, subject or node name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"


def text_colour(rgba) -> str:
    """Dark text on a light cell, light text on a dark one: by the cell colour's relative luminance
    (WCAG: 0.2126 R + 0.7152 G + 0.0722 B of the linearised channels; threshold 0.179, where black and
    white text have equal contrast)."""
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(float(c)) for c in rgba[:3])
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 else "white"


def rank_axis(ax, k: int, axis: str = "y") -> None:
    """A rank axis from 1 (best) to k with integer ticks, never from 0 (DESIGN.md §10)."""
    k = max(int(k), 2)
    if axis == "y":
        ax.set_ylim(1, k)
        ax.set_yticks(range(1, k + 1))
    else:
        ax.set_xlim(1, k)
        ax.set_xticks(range(1, k + 1))


def save_figure(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def report_figures(report: dict, out_dir: Path) -> list[Path]:
    """Write the three report figures per judge section of ``report``; returns the paths written."""
    written: list[Path] = []
    for section in report["judges"]:
        exps = section["experiments"]
        if not exps:
            continue
        s = slug(section["judge"])
        written.append(_win_rates(section, out_dir / f"{s}_win_rates.png"))
        written.append(_mean_ranks(section, out_dir / f"{s}_mean_ranks.png"))
        for exp, data in exps.items():
            if data["breakdown"]:
                written.append(_breakdown(section, exp, data, out_dir / f"{s}_{exp}_breakdown.png"))
    return written


def _win_rates(section: dict, path: Path) -> Path:
    exps = section["experiments"]
    fig, axes = plt.subplots(1, len(exps), figsize=(4.2 * len(exps), 3.6), squeeze=False)
    for ax, (exp, data) in zip(axes[0], exps.items()):
        conds = data["conditions"]
        values = [data["win_rate"].get(c) or 0.0 for c in conds]
        ax.bar(conds, values, color="#4c72b0")
        for i, v in enumerate(values):
            ax.text(i, v + 0.01, f"{v:.0%}", ha="center", va="bottom", fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{exp} (n = {data['n_queries']})")
        ax.set_ylabel("win rate (Overall rank 1)")
        ax.tick_params(axis="x", rotation=30)
    fig.suptitle(f"Win rates — {section['label']}")
    return save_figure(fig, path)


def _mean_ranks(section: dict, path: Path) -> Path:
    exps = section["experiments"]
    crits = [c for c in CRITERIA if c != "Safety"]
    fig, axes = plt.subplots(1, len(exps), figsize=(5.2 * len(exps), 3.8), squeeze=False)
    for ax, (exp, data) in zip(axes[0], exps.items()):
        conds = data["conditions"]
        width = 0.8 / max(1, len(conds))
        for j, c in enumerate(conds):
            xs = [i + (j - (len(conds) - 1) / 2) * width for i in range(len(crits))]
            # bars rise from rank 1 (best) to the mean rank: the axis runs 1..k, never from 0
            ranks = [data["mean_rank"][c].get(k) or 1.0 for k in crits]
            ax.bar(xs, [r - 1.0 for r in ranks], bottom=1.0, width=width, label=c)
        ax.set_xticks(range(len(crits)))
        ax.set_xticklabels(crits, rotation=30, ha="right", fontsize=8)
        rank_axis(ax, len(conds))
        ax.set_ylabel("mean rank (1 = best)")
        ax.set_title(f"{exp} (n = {data['n_queries']})")
        ax.legend(fontsize=7, title="condition", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.suptitle(f"Mean rank per criterion — {section['label']}")
    return save_figure(fig, path)


def _breakdown(section: dict, exp: str, data: dict, path: Path) -> Path:
    conds = data["conditions"]
    rows = sorted({(r["dimension"], r["level"]) for r in data["breakdown"]})
    cell = {(r["dimension"], r["level"], r["condition"]): r["mean_rank"] for r in data["breakdown"]}
    count = {(r["dimension"], r["level"], r["condition"]): r["n_queries"] for r in data["breakdown"]}
    grid = [[cell.get((d, lv, c), float("nan")) for c in conds] for d, lv in rows]
    fig, ax = plt.subplots(figsize=(3.6 + 1.1 * len(conds), 1.4 + 0.42 * len(rows)))
    k = max(len(conds), 2)
    im = ax.imshow(grid, cmap="viridis_r", aspect="auto", vmin=1, vmax=k)
    ax.set_xticks(range(len(conds)))
    ax.set_xticklabels(conds)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{d}: {lv}" for d, lv in rows], fontsize=7)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:
                n = count.get((rows[i][0], rows[i][1], conds[j]), 0)
                ax.text(j, i, f"{v:.2f}\nn={n}", ha="center", va="center", fontsize=6,
                        color=text_colour(im.cmap(im.norm(v))))
    bar = fig.colorbar(im, ax=ax, label="mean Overall rank (1 = best)")
    bar.set_ticks(range(1, k + 1))
    ax.set_title(f"{exp}: Overall mean rank by breakdown\n{section['label']}", fontsize=9)
    return save_figure(fig, path)


# --------------------------------------------------------------------------- HBM weight figures


def default_primary(wh: duckdb.DuckDBPyConnection, subject: str | None, node: str | None = None) -> tuple[str, str]:
    """The (subject, node) shown by default, within the given subject and/or node: the pair with the
    most neighbours weighted by individual evidence (SQL rule in ``report_stage_default.sql``).

    Raises :class:`UsageError` when ``edge_weights`` has no such rows.
    """
    row = wh.execute(_sql("report_stage_default.sql"), {"subject": subject, "node": node}).fetchone()
    if row is None:
        if subject or node:
            what = " and ".join(x for x in (f"subject {subject!r}" if subject else "",
                                            f"primary node {node!r}" if node else "") if x)
            raise UsageError(f"no edge weights for {what} (`wag subjects` lists the subjects, "
                             "`wag graph` the nodes)")
        raise UsageError("edge_weights is empty; run `wag build` first")
    return row[0], row[1]


def stage_shift_figure(wh: duckdb.DuckDBPyConnection, subject: str, node: str, out_dir: Path,
                       top: int = 15) -> Path:
    """Fig. 6: for the ``top`` neighbours (by w_global) of ``node``, lines p_prior -> mu_pop -> mu_s.

    Raises :class:`UsageError` when ``subject``/``node`` has no stored candidates.
    """
    rows = wh.execute(_sql("report_stage_shifts.sql"), {"subject": subject, "node": node}).fetchall()
    if not rows:
        raise UsageError(f"no stored edge weights for {subject} with primary node {node!r}")
    rows = rows[:top]
    fig, ax = plt.subplots(figsize=(7.5, 0.8 + 0.33 * len(rows) + 2.5))
    stages = ["prior p", "population mu_pop", "individual mu_s"]
    for node_y, p, mu_pop, mu_s, _wg, fallback, *_ in rows:
        ys = [p, mu_pop if mu_pop is not None else p, mu_s if mu_s is not None else (mu_pop if mu_pop is not None else p)]
        ax.plot(range(3), ys, marker="o", linewidth=1.2, label=f"{node_y} ({fallback})")
    ax.set_xticks(range(3))
    ax.set_xticklabels(stages)
    ax.set_ylabel("weight")
    ax.set_title(f"HBM stage shifts: {subject}, primary {node} (top {len(rows)} by w_global)", fontsize=9)
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return save_figure(fig, out_dir / f"hbm_stage_shifts_{slug(subject)}_{slug(node)}.png")


def stage_distribution_figure(wh: duckdb.DuckDBPyConnection, subject: str | None, out_dir: Path) -> Path:
    """Fig. 8: histograms of the stored p_prior, mu_pop, mu_s and w_global (one subject or all)."""
    rows = wh.execute(_sql("report_stage_distributions.sql"), {"subject": subject}).fetchall()
    if not rows:
        raise UsageError(f"no stored edge weights for {subject!r}" if subject else "edge_weights is empty")
    cols = {"p_prior": 3, "mu_pop": 4, "mu_s": 5, "w_global": 6}
    fig, axes = plt.subplots(1, 4, figsize=(12, 3.2), sharey=True)
    for ax, (name, i) in zip(axes, cols.items()):
        values = [r[i] for r in rows if r[i] is not None]
        ax.hist(values, bins=30, range=(0, 1), color="#55a868")
        ax.set_title(f"{name} (n = {len(values)})", fontsize=9)
        ax.set_xlabel("weight")
    axes[0].set_ylabel("edges")
    fig.suptitle(f"Weight distribution per HBM stage — {subject or 'all subjects'}", fontsize=10)
    name = f"hbm_stage_distributions_{slug(subject)}.png" if subject else "hbm_stage_distributions.png"
    return save_figure(fig, out_dir / name)
