"""Options that ``power`` and ``agree`` share: measures, significance level, output format
and the evaluation flags, and the warnings both print."""

from __future__ import annotations

import click

from .evaluation_options import evaluation_options
from .report_options import stack_options

# trecbench.conclusions.render.FORMATS, repeated so that loading the CLI imports no numpy
# (tests/test_power.py keeps both equal)
FORMATS = ("table", "markdown", "json", "latex")


def conclusion_options(formats: tuple[str, ...]):
    """``-m``, ``--alpha``, ``--format`` (one of ``formats``) and the evaluation flags
    (``-l``, ``-M``, ``-J``, MaxOntSim's): the command receives ``measures``, ``alpha``,
    ``output_format``, ``level``, ``max_docs``, ``judged``, ``maxontsim_formula``,
    ``ontology``."""

    def decorate(command):
        command = evaluation_options(command)
        return stack_options(
            command,
            [
                click.option(
                    "-m",
                    "--measure",
                    "measures",
                    multiple=True,
                    help="Measure (repeatable; trec_eval, ir_measures or display spelling). "
                    "Default: nDCG@10 MAP@100 MRR@10 Recall@50 Recall@100 HitRate@10.",
                ),
                click.option(
                    "--alpha",
                    type=click.FloatRange(0, 1, min_open=True, max_open=True),
                    default=0.05,
                    show_default=True,
                    help="Significance level of the tests.",
                ),
                click.option(
                    "--format",
                    "output_format",
                    type=click.Choice(formats),
                    default="table",
                    show_default=True,
                    help="What stdout shows.",
                ),
            ],
        )

    return decorate


def flags(level, max_docs, judged, maxontsim_formula, ontology) -> dict:
    """The evaluation flags as the library's keyword arguments."""
    return {
        "relevance_level": 1 if level is None else level,
        "max_docs": max_docs,
        "judged_only": judged,
        "options": {"maxontsim_formula": maxontsim_formula, "ontology": ontology},
    }


def named_runs(paths) -> dict[str, str]:
    """``{name: path}``: each run named as every command names it (its file's stem, made
    distinct by its shortest parent folders: ``a/run``, ``b/run``); a file given twice is
    refused."""
    from ..errors import UsageError
    from ..naming import run_names

    paths = [str(path) for path in paths]
    twice = sorted({path for path in paths if paths.count(path) > 1})
    if twice:
        raise UsageError(f"{twice[0]}: the same run is given twice")
    return dict(zip(run_names(paths), paths, strict=True))


def echo_result(result, output_format: str) -> None:
    """The result's warnings on stderr, then the result on stdout."""
    for warning in result.warnings:
        click.echo(f"trecbench: warning: {warning}", err=True)
    click.echo(result.render(output_format), nl=False)
