"""PNG figures of the human evaluation (DESIGN.md §10 "Human evaluation"), drawn like the judges'
(:mod:`wag_cli.eval.figures`) from the dict of :func:`wag_cli.eval.human_report.human_report`:

* ``human_<experiment>_mean_ranks.png`` — Overall mean rank per condition for each rater, the human
  average and each judge (grouped bars rising from rank 1 on an axis 1..k, legend outside); the title
  carries Krippendorff's alpha;
* ``human_<experiment>_heatmap.png`` — the same values as a heat map (rows: raters, human average,
  judges; columns: conditions), mean rank and n queries in every cell.
"""

from __future__ import annotations

from pathlib import Path

from .figures import plt, rank_axis, save_figure, slug, text_colour


def human_figures(human: dict, out_dir: Path) -> list[Path]:
    """Write both figures per experiment with human rankings on Overall; returns the paths (§10)."""
    written = []
    for exp, data in human["experiments"].items():
        sec = data["criteria"].get("Overall")
        if not sec:
            continue
        written.append(_bars(exp, data, sec, out_dir / f"human_{slug(exp)}_mean_ranks.png"))
        written.append(_heatmap(exp, data, sec, out_dir / f"human_{slug(exp)}_heatmap.png"))
    return written


def _alpha_text(sec: dict) -> str:
    a = sec["alpha"]
    return f"alpha (ordinal) = {a['value']:.3f}" if a["value"] is not None else "alpha: n/a"


def _bars(exp: str, data: dict, sec: dict, path: Path) -> Path:
    conds, cols = data["conditions"], sec["columns"]
    fig, ax = plt.subplots(figsize=(2.0 + 1.3 * len(conds) + 0.15 * len(cols), 3.8))
    width = 0.8 / max(1, len(cols))
    for j, col in enumerate(cols):
        xs = [i + (j - (len(cols) - 1) / 2) * width for i in range(len(conds))]
        ranks = [sec["mean_rank"][c][col] for c in conds]
        ax.bar(xs, [(r if r is not None else 1.0) - 1.0 for r in ranks], bottom=1.0, width=width,
               label=f"{col} (n = {sec['n_queries'][col]})",
               hatch="//" if col == "human average" else None, edgecolor="black" if col == "human average" else None)
    ax.set_xticks(range(len(conds)))
    ax.set_xticklabels(conds)
    rank_axis(ax, len(conds))
    ax.set_ylabel("mean Overall rank (1 = best)")
    ax.set_title(f"{exp}: humans beside the judges — {_alpha_text(sec)}", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return save_figure(fig, path)


def _heatmap(exp: str, data: dict, sec: dict, path: Path) -> Path:
    conds, cols = data["conditions"], sec["columns"]
    grid = [[sec["mean_rank"][c][col] if sec["mean_rank"][c][col] is not None else float("nan") for c in conds]
            for col in cols]
    k = max(len(conds), 2)
    fig, ax = plt.subplots(figsize=(3.6 + 1.1 * len(conds), 1.4 + 0.45 * len(cols)))
    im = ax.imshow(grid, cmap="viridis_r", aspect="auto", vmin=1, vmax=k)
    ax.set_xticks(range(len(conds)))
    ax.set_xticklabels(conds)
    ax.set_yticks(range(len(cols)))
    ax.set_yticklabels(cols, fontsize=7)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:
                ax.text(j, i, f"{v:.2f}\nn={sec['n_queries'][cols[i]]}", ha="center", va="center", fontsize=6,
                        color=text_colour(im.cmap(im.norm(v))))
    bar = fig.colorbar(im, ax=ax, label="mean Overall rank (1 = best)")
    bar.set_ticks(range(1, k + 1))
    ax.set_title(f"{exp}: mean Overall rank — {_alpha_text(sec)}", fontsize=9)
    return save_figure(fig, path)
