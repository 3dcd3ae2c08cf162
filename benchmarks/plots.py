"""``make bench`` (plots): seconds per comparison figure at MS MARCO scale.

A comparison of 3 runs on 6,980 topics and the KPI preset's 6 measures (seeded per-query
values; the plots do not depend on where they come from): each figure is built and
written as PNG and as SVG, ``--repeats`` times; the table reports the median wall and
CPU seconds per figure (both files) and per file. ``compare --plots`` writes two figures
(means, differences) per section. Results go to ``bench-results/plots.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ("nDCG@10", "MAP@100", "MRR@10", "Recall@50", "Recall@100", "HitRate@10")


def comparison(topics: int, seed: int):
    from trecbench.comparison import compare_scores

    rng = np.random.default_rng(seed)
    runs = {"bm25": 0.0, "dense": 0.05, "hybrid": 0.08}
    frames = [
        pd.DataFrame(
            {
                "run": run,
                "qid": np.repeat([f"q{i:05d}" for i in range(topics)], len(MEASURES)),
                "measure": np.tile(MEASURES, topics),
                "value": np.clip(rng.beta(2, 3, topics * len(MEASURES)) + shift, 0, 1),
            }
        )
        for run, shift in runs.items()
    ]
    return compare_scores(pd.concat(frames), samples=200, seed=seed)


def timed(function) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def time_figure(make, positional, keywords) -> dict[str, tuple[float, float]]:
    """(wall, CPU) seconds to build one figure, write it as PNG and as SVG, and in all."""
    from trecbench import plots

    figure = []
    parts = {
        "build": timed(lambda: figure.append(make(*positional, **keywords))),
        "PNG": timed(lambda: plots.figure_bytes(figure[0], "png")),
        "SVG": timed(lambda: plots.figure_bytes(figure[0], "svg")),
    }
    parts["figure (build, PNG, SVG)"] = tuple(map(sum, zip(*parts.values(), strict=True)))
    return parts


def figure_arguments(result) -> dict[str, tuple]:
    """The arguments :func:`trecbench.comparison.plot_files` gives each all-topics figure."""
    from unittest import mock

    from trecbench import plots

    captured: dict[str, tuple] = {}

    def capture(name: str, original):
        def wrapper(*args, **kwargs):
            captured.setdefault(name, (args, kwargs))
            return original(*args, **kwargs)

        return wrapper

    with (
        mock.patch.object(plots, "means_figure", capture("means", plots.means_figure)),
        mock.patch.object(
            plots, "differences_figure", capture("differences", plots.differences_figure)
        ),
        mock.patch.object(plots, "figure_bytes", lambda figure, fmt: b""),
    ):
        result.plot_files()
    return captured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=6980)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results")
    args = parser.parse_args()
    from trecbench import plots

    arguments = figure_arguments(comparison(args.topics, args.seed))
    rows = []
    for name, (positional, keywords) in arguments.items():
        make = getattr(plots, f"{name}_figure")
        repeats = [time_figure(make, positional, keywords) for _ in range(args.repeats)]
        samples = {
            part: [r[part] for r in repeats] for part in ("figure (build, PNG, SVG)", "PNG", "SVG")
        }
        for part, values in samples.items():
            rows.append(
                {
                    "figure": name,
                    "part": part,
                    "wall": statistics.median(v[0] for v in values),
                    "cpu": statistics.median(v[1] for v in values),
                }
            )
    args.out.mkdir(parents=True, exist_ok=True)
    document = {"topics": args.topics, "runs": 3, "measures": len(MEASURES), "rows": rows}
    (args.out / "plots.json").write_text(json.dumps(document, indent=1))
    print(f"comparison plots, {args.topics:,} topics x 3 runs x {len(MEASURES)} measures")
    print("| figure | part | median wall s | median CPU s |\n|---|---|---:|---:|")
    for row in rows:
        print(f"| {row['figure']} | {row['part']} | {row['wall']:.2f} | {row['cpu']:.2f} |")


if __name__ == "__main__":
    main()
