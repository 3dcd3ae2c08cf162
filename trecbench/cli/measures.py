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
@click.option(
    "--compat",
    type=click.Choice(("9.0.8", "10.0")),
    default="9.0.8",
    show_default=True,
    help="The trec_eval whose -m names NAMES are read as, as score --compat reads them "
    "(10.0's rbp is not 9.0.8's, where rbp is trecbench's RBP).",
)
def measures(names, fmt, compat):
    """List every measure: spellings, parameters with defaults, what it computes, the
    engines that compute it, what its numbers are checked against, which trec_eval versions
    have it, and its citation. With NAMES, say what each name means instead, with each
    parameter's value and domain (where its numbers have a meaning, and why), each
    name read as score reads it (trec_eval 9.0.8's names; --compat 10.0: 10.0's).

    \b
    Examples:
      trecbench measures
      trecbench measures --format markdown > measures-table.md
      trecbench measures 'nDCG@10' P_5 "nDCG(dcg='exp-log2')@10" hit@10
      trecbench measures --compat 10.0 rbp unj.10
    """
    from .. import engines  # noqa: F401  (engines register what they compute)
    from ..errors import UsageError
    from ..measures import listing, parse_measures

    blank = next((name for name in names if not name.strip()), None)
    if blank is not None:  # parse_measures suggests the library's keyword, measures='map'
        raise UsageError(
            f"empty measure name {blank!r}: give a measure, e.g. trecbench measures map"
        )
    if names:  # each name on its own: two names of one measure are each said
        from ..measures.suggestions import CutoffListError, shell_word
        from ..measures.trec_params import uncalculable

        try:
            said = [
                (name, measure, engines.computed_by(measure, engines.assign([measure])[measure]))
                for name in names
                for measure in parse_measures([name], compat)
            ]
        except CutoffListError as error:  # NAMES, not -m's: each its own argument
            raise error.advised("give each: " + " ".join(map(shell_word, error.names))) from None
        for _, measure, _ in said:  # what score stops at on its first topic is no meaning
            error = uncalculable(measure.definition, measure.params)
            if error is not None:  # a name described, nothing scored: a usage error
                raise UsageError(str(error))
        click.echo(listing.meanings(said, fmt, compat), nl=False)
        return
    render = {"text": listing.text, "markdown": listing.markdown, "json": listing.as_json}[fmt]
    click.echo(render(), nl=False)
