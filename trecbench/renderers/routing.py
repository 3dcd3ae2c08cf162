"""The routing metrics of :func:`trecbench.routing.routing_metrics` as a small Markdown
table (also readable as plain text): ``trecbench score --routing`` prints it, the benchmark's
Markdown shows it under its own heading."""

from __future__ import annotations

from ..plurals import counted, exact_percent


def render_routing(metrics: dict) -> str:
    """The routing metrics as a small Markdown table (also readable as plain text)."""
    level = exact_percent(metrics["settings"]["confidence"])

    def cell(rate: dict, unit: str) -> str:
        if rate["value"] is None:
            return "n/a"
        digits = 1 if unit == "%" else 4
        over = counted(rate["queries"], "query", "queries")
        return (
            f"{rate['value']:.{digits}f}{unit} [{rate['ci_low']:.{digits}f}{unit}, "
            f"{rate['ci_high']:.{digits}f}{unit}] over {over}"
        )

    gate = metrics["gate"]
    lines = [
        f"| Routing metric | Value [{level} CI] |",
        "|---|---|",
        f"| Routing accuracy | {cell(metrics['routing_accuracy'], '')} |",
        f"| Gate efficiency | {cell(metrics['gate_efficiency'], '%')} |",
        f"| Gate decisions | {gate['saved']} saved, {gate['missed']} missed (skipped but "
        f"needed), {gate['unneeded']} unneeded (ran but not needed) |",
    ]
    return "\n".join(lines) + "\n"


def resampling_note(metrics: dict) -> str:
    """How the routing table's intervals were drawn, a line for under the table where
    nothing beside it says (``score --routing`` has no ``--samples`` or ``--seed``: it
    draws a fixed 10,000 resamples with seed 0; ``--report`` records them too)."""
    settings = metrics["settings"]
    return (
        f"Intervals: {settings['interval']} over queries, {settings['samples']:,} resamples, "
        f"seed {settings['seed']}\n"
    )
