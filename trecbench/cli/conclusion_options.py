"""Options that ``power`` and ``agree`` share: measures, significance level, output format
and the evaluation flags, gathered into one :class:`ConclusionArgs`, and the warnings both
print."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields

import click

from .evaluation_options import evaluation_options
from .group import echo_input_warnings, echo_warning
from .report_options import stack_options
from .shared_options import FiniteFloat, format_option, measures_option, quiet_option

# trecbench.conclusions.render.FORMATS, repeated so that loading the CLI imports no numpy
# (tests/test_power.py keeps both equal)
FORMATS = ("table", "markdown", "json", "latex")


@dataclass(frozen=True)
class ConclusionArgs:
    """What ``power`` and ``agree`` read alike from their command line."""

    measures: tuple[str, ...]
    alpha: float
    output_format: str
    level: int | None
    max_docs: int | None
    judged: bool
    maxontsim_formula: str | None
    ontology: str | None
    quiet: bool

    def keywords(self) -> dict:
        """The library's keyword arguments: the measures (None: the default ones), alpha
        and the evaluation flags (a MaxOntSim formula or ontology no measure uses is
        refused first, as score and compare refuse it)."""
        from .evaluation_options import check_formula_used

        check_formula_used(self.measures, self.maxontsim_formula, self.ontology)
        return {
            "measures": list(self.measures) or None,
            "alpha": self.alpha,
            "relevance_level": 1 if self.level is None else self.level,
            "max_docs": self.max_docs,
            "judged_only": self.judged,
            "options": {"maxontsim_formula": self.maxontsim_formula, "ontology": self.ontology},
        }

    def progress(self):
        """What the library tells of its reading and scoring, drawn on stderr (on a
        terminal, without --quiet), else None: a context manager."""
        from .progress import drawn

        return drawn(self.quiet)

    def echo(self, result) -> None:
        """The inputs' warnings and the result's on stderr, then the result on stdout in
        --format."""
        echo_input_warnings()
        for warning in result.warnings:
            echo_warning(warning)
        click.echo(result.render(self.output_format), nl=False)


def conclusion_options(formats: tuple[str, ...]):
    """``-m``, ``--alpha``, ``--format`` (one of ``formats``) and the evaluation flags
    (``-l``, ``-M``, ``-J``, MaxOntSim's): the command receives them as one
    :class:`ConclusionArgs`, ``shared``."""
    names = [field.name for field in fields(ConclusionArgs)]

    def decorate(command):
        @functools.wraps(command)
        def gather(**values):
            shared = ConclusionArgs(**{name: values.pop(name) for name in names})
            return command(shared=shared, **values)

        return stack_options(
            evaluation_options(gather),
            [
                measures_option,
                click.option(
                    "--alpha",
                    type=FiniteFloat(0, 1, min_open=True, max_open=True),
                    default=0.05,
                    show_default=True,
                    help="Significance level of the tests.",
                ),
                format_option(
                    formats,
                    "What stdout shows: aligned tables, Markdown tables, the JSON report or LaTeX "
                    "tabulars (booktabs: \\usepackage{booktabs}; the legend and the reasons "
                    "as % comments).",
                ),
                quiet_option,
            ],
        )

    return decorate


def named_runs(paths) -> dict[str, str]:
    """``{name: path}``: each run named as every command names it (its file's stem, made
    distinct by its shortest parent folders: ``a/run``, ``b/run``); a file given twice is
    refused, spelt two ways too."""
    from ..naming import check_runs_once, run_names

    paths = [str(path) for path in paths]
    check_runs_once(paths)
    return dict(zip(run_names(paths), paths, strict=True))
