"""``trecbench measures``: every measure trecbench computes, from the measure registry."""

from __future__ import annotations

import click

from .group import cli


@cli.command()
@click.argument("names", nargs=-1)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
)
def measures(names, fmt):
    """List every measure: spellings, parameters with defaults, what it computes, the
    engines that compute it, what its numbers are checked against, which trec_eval versions
    have it, and its citation. With NAMES, say what each name means instead, with each
    parameter's value and domain (where its numbers have a meaning, and why).

    \b
    Examples:
      trecbench measures
      trecbench measures --format markdown > measures-table.md
      trecbench measures 'nDCG@10' P_5 "nDCG(dcg='exp-log2')@10" hit@10
    """
    from .. import engines  # noqa: F401  (engines register what they compute)
    from ..measures import listing, parse_measures

    if names:
        measures = parse_measures(list(names))
        engines_of = engines.assign(measures)
        for measure in measures:
            definition = measure.definition
            click.echo(
                f"{measure.requested}: {measure.canonical} — {definition.description} "
                f"(engine {engines_of[measure]}, checked against {measure.provider})"
            )
            for line in listing.parameter_lines(measure):
                click.echo(line)
        return
    render = {"text": listing.text, "markdown": listing.markdown, "json": listing.as_json}[fmt]
    click.echo(render(), nl=False)
