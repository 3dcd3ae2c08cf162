"""Click declarations several commands share, declared once: the RUNS argument, ``--names``
as a comma-separated list, ``--format``, ``--html-depth``, ``-m`` and the resampling tests'
options (``--test``, ``--correction``, ``--samples``, ``--seed``). Each command keeps its own
help text where the meaning differs."""

from __future__ import annotations

import contextlib

import click

from ..statistical_tests import NAMES as TESTS  # the registry: numpy-free
from .paths import INPUT_FILE
from .report_options import stack_options

# stats.CORRECTIONS, repeated so that loading the CLI imports no numpy
# (tests/test_agree.py keeps them equal to the library's)
CORRECTIONS = ("holm", "bonferroni", "bh", "none")

runs_argument = click.argument("runs", nargs=-1, required=True, type=INPUT_FILE)

quiet_option = click.option("--quiet", is_flag=True, help="No progress on stderr.")
names_option = click.option(
    "--names",
    default=None,
    callback=lambda ctx, param, value: None if value is None else value.split(","),
    help="Comma-separated run names (default: file stems).",
)

measures_option = click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    help="Measure (repeatable; trec_eval, ir_measures or display spelling). "
    "Default: nDCG@10 MAP@100 MRR@10 Recall@50 Recall@100 HitRate@10.",
)


def format_option(formats: tuple[str, ...], help: str):
    """``--format`` (one of ``formats``, the first the default): the command receives
    ``output_format``."""
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(formats),
        default=formats[0],
        show_default=True,
        help=help,
    )


def html_depth_option(help: str):
    """``--html-depth`` (documents per run and topic in an HTML page's drill-down, 20 by
    default): the command receives ``html_depth``."""
    return click.option(
        "--html-depth", type=click.IntRange(min=0), default=20, show_default=True, help=help
    )


def resampling_options(*, test: str, correction: str, samples: str, seed: str):
    """``--test`` (a registered paired test, t by default), ``--correction`` (holm by
    default), ``--samples`` (10,000) and ``--seed`` (0), each with the help given."""

    def decorate(command):
        shown = {"show_default": True}
        return stack_options(
            command,
            [
                click.option("--test", type=click.Choice(TESTS), default="t", help=test, **shown),
                click.option(
                    "--correction",
                    type=click.Choice(CORRECTIONS),
                    default="holm",
                    help=correction,
                    **shown,
                ),
                click.option(
                    "--samples", type=click.IntRange(min=1), default=10_000, help=samples, **shown
                ),
                click.option("--seed", type=click.IntRange(min=0), default=0, help=seed, **shown),
            ],
        )

    return decorate


@contextlib.contextmanager
def samples_checked():
    """A :class:`~trecbench.errors.TooFewSamplesError` raised within, as a usage error of
    ``--samples`` (one line naming the command and its ``--help``): the bound depends on
    ``--confidence`` or ``--alpha``, so the typed settings check it, not the option."""
    from ..errors import TooFewSamplesError

    try:
        yield
    except TooFewSamplesError as error:
        raise click.BadParameter(str(error), param_hint="'--samples'") from None


def refuse_correction_of_family_wise(test: str) -> None:
    """A family-wise test (Tukey HSD) is not corrected again: a --correction given with it
    would be silently ignored, so it is refused."""
    from ..errors import UsageError
    from ..statistical_tests import get
    from .group import given

    if get(test).family_wise and given("correction"):
        raise UsageError(
            f"--test {test} is family-wise over all pairs: its p-values are not corrected "
            "again; leave --correction out"
        )
