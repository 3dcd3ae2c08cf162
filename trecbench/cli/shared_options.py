"""Click declarations several commands share, declared once: the RUNS argument, ``--names``
as a comma-separated list, ``--format``, ``--html-depth``, ``-m``, the resampling tests'
options (``--test``, ``--correction``, ``--samples``, ``--seed``) and the types of every
number option (:class:`DecimalInt`, :class:`FiniteFloat`). Each command keeps its own help
text where the meaning differs."""

from __future__ import annotations

import contextlib
import math
import os
import re

import click

from ..resource_bounds import LEAST_DEPTH, MAX_DIGITS, MOST_DEPTH
from .paths import INPUT_FILE, refuse_taken_option
from .report_options import stack_options

# a number as written in C or JSON: Python's float also takes 1_0, Unicode digits and
# blanks, which no other tool reads alike (and inf or nan, refused as not finite)
_DECIMAL_NUMBER = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:[+-]?(?:inf|infinity|nan))"
)


class FiniteFloat(click.FloatRange):
    """The type of every float option: a finite number, within the bounds given (none:
    any finite number). click's ``FloatRange`` lets ``nan`` through (it compares false
    with every bound: ``--unjudged-threshold nan`` switched the warning off) and ``inf``
    where a bound is open-ended; both are refused as a bad value is (exit 1), and so is
    text not written as a decimal number (``0.0_5``, Unicode digits)."""

    def __init__(self, min=None, max=None, min_open: bool = False, max_open: bool = False):
        super().__init__(min, max, min_open=min_open, max_open=max_open)
        if min is None and max is None:
            self.name = "float"  # shown as FLOAT, as click's float type

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, str):
            if not _DECIMAL_NUMBER.fullmatch(value):
                self.fail(
                    f"{value!r} is not a decimal number (ASCII, as 0.05 or 5e-2).", param, ctx
                )
            if not math.isfinite(float(value)):  # before the range: 1e400 is no "inf" typed
                self.fail(f"{value!r} is not a finite number.", param, ctx)
        try:
            number = super().convert(value, param, ctx)
        except click.BadParameter:
            if isinstance(value, str) and not _read_exactly(value):
                # 0.99999999999999999 is below 1, its nearest double is not: said so, not
                # "1.0 is not in the range", a number nobody typed
                self.fail(
                    f"{value!r} reads as {float(value)!r}, the nearest double, which is not "
                    f"in the range {self._describe_range()}.",
                    param,
                    ctx,
                )
            raise
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number

    def _describe_range(self) -> str:  # the help's [x>=0]; nothing without bounds
        return "" if self.min is None and self.max is None else super()._describe_range()


def _read_exactly(text: str) -> bool:
    """Whether the finite decimal ``text`` is the number its nearest double prints as
    (``1.5``, ``1``; not ``0.99999999999999999``, which prints as ``1.0``)."""
    import decimal  # here: a refusal's path alone needs it (score's start-up does not)

    return decimal.Decimal(text) == decimal.Decimal(repr(float(text)))


# ASCII digits and a sign: what C's atol reads in full, so that trec_eval's options and
# trecbench's read a value alike or not at all (Python's int takes 1_0, ٣ and blanks)
_DECIMAL_INTEGER = re.compile(r"[+-]?[0-9]+")


def is_decimal_integer(text: str) -> bool:
    """Whether ``text`` is a plain decimal integer: ASCII digits with an optional sign."""
    return _DECIMAL_INTEGER.fullmatch(text) is not None


def too_long(digits: str) -> str | None:
    """Why the decimal integer ``digits`` is not read (more than
    :data:`~trecbench.resource_bounds.MAX_DIGITS` digits: past 4,300 Python's int refuses
    it, an internal error), or None."""
    count = len(digits.lstrip("+-"))
    return f"an integer of {count} digits (at most {MAX_DIGITS})" if count > MAX_DIGITS else None


class DecimalInt(click.IntRange):
    """The type of every integer option: ASCII digits with an optional sign, within the
    bounds given (none: any integer). click's ``int`` reads as Python's ``int`` does,
    ``-M 1_0`` as 10 and ``-M ٣`` as 3, where trec_eval's ``atol`` reads 1 and 0: the
    same command line gave other numbers than trec_eval without a word. Anything but
    digits is refused as a bad value is (exit 1)."""

    def __init__(self, min=None, max=None):
        super().__init__(min, max)
        if min is None and max is None:
            self.name = "integer"  # shown as INTEGER, as click's int type

    def convert(self, value, param, ctx) -> int:
        if isinstance(value, str) and not is_decimal_integer(value):
            self.fail(
                f"{value!r} is not a valid integer (ASCII digits 0-9 with an optional sign).",
                param,
                ctx,
            )
        refusal = too_long(value) if isinstance(value, str) else None
        if refusal is not None:
            self.fail(f"{refusal}.", param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:  # the help's [x>=0]; nothing without bounds
        return "" if self.min is None and self.max is None else super()._describe_range()


# a number of documents per topic: at least 1, and at most what numpy and Arrow index with
# (a larger one was an internal error, an OverflowError, after reading the inputs)
DEPTH = DecimalInt(LEAST_DEPTH, MOST_DEPTH)  # the library's depth= too

runs_argument = click.argument("runs", nargs=-1, required=True, type=INPUT_FILE)

quiet_option = click.option("--quiet", is_flag=True, help="No progress on stderr.")
# --names NAME=RUN as score takes it (docs/cli-conventions.md: one meaning per flag); a
# RUN must be one of the runs given (compare's may also add a run of its own)
names_option = click.option(
    "--names",
    multiple=True,
    metavar="NAME=RUN",
    help="Name a run (repeatable; default: its file's stem, with parent folders when two "
    "share one).",
)


def measure_values(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]):
    """The callback of ``-m`` (score's, and :data:`measures_option`'s): a value that is
    the command's next argument, which click hands to ``-m`` when its value is left out,
    is refused saying so, before the arguments it took are missed (score's RUNS) or it is
    read as a measure (``illegal measure 'qrels/x.qrels'``, ``-q``: "did you mean Q?"):
    one of the command's options, or a path (a ``/`` in its name, or an existing file that
    no measure is named). A value's names separated by spaces (``-m "P@5 map"``) are
    given to the command one by one, as the Python API takes a list of names (each entry
    one name: :func:`trecbench.measures.parse_measures`); a value of no name as it is."""
    from ..measures.expression import entry_names

    names: list[str] = []
    for value in values:
        check_measure_value(ctx, "-m", value)
        names.extend(entry_names(value))
    return tuple(names)


def check_measure_value(ctx: click.Context, flag: str, value: str) -> None:
    """Refuse ``value``, given to the measure option ``flag`` (``-m``, fuse's
    ``--optimize``), when it is what the option took for want of its own value: one of the
    command's options, or a path (see :func:`measure_values`)."""
    give = f"give {flag} a value (e.g. {flag} nDCG@10)"
    refuse_taken_option(ctx, flag, value, give)
    if _a_path(value):
        raise click.UsageError(f"{flag} took '{value}' as a measure name: {give}", ctx)


def _a_path(value: str) -> bool:
    """Whether ``value``, given to ``-m``, names a file rather than a measure: a ``/`` (or
    the system's separator) before any parameters, which no measure's name holds, or an
    existing file or folder whose name no measure has (a file ``map`` beside a call is
    not a reason to refuse ``-m map``)."""
    name = value.partition("(")[0]
    if "/" in name or os.sep in name:
        return True
    if not os.path.exists(value):
        return False
    import warnings

    from ..errors import TrecbenchError
    from ..measures import parse_measures

    try:
        with warnings.catch_warnings():  # a domain warning is said when -m is read
            warnings.simplefilter("ignore")
            parse_measures([value])
    except TrecbenchError:
        return True
    return False


measures_option = click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    callback=measure_values,
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
    # at most what numpy and Arrow index with, as --depth: refused as the line is read, a
    # usage error before a missing input (it was refused after reading the inputs)
    depth = DecimalInt(0, MOST_DEPTH)
    return click.option("--html-depth", type=depth, default=20, show_default=True, help=help)


def resampling_options(*, test: str, correction: str, samples: str, seed: str):
    """``--test`` (a registered paired test, t by default), ``--correction`` (holm by
    default), ``--samples`` (10,000) and ``--seed`` (0), each with the help given."""
    # imported by the commands that declare these options only: the registry of tests and
    # the bounds of its options are off the path of score and validate
    from ..resampling_bounds import MOST_SAMPLES
    from ..statistical_tests import CORRECTION_CHOICES as CORRECTIONS
    from ..statistical_tests import DEFAULT_CORRECTION
    from ..statistical_tests import NAMES as TESTS

    def decorate(command):
        shown = {"show_default": True}
        return stack_options(
            command,
            [
                click.option("--test", type=click.Choice(TESTS), default="t", help=test, **shown),
                click.option(
                    "--correction",
                    type=click.Choice(CORRECTIONS),
                    default=DEFAULT_CORRECTION,
                    help=correction,
                    **shown,
                ),
                click.option(
                    "--samples",
                    type=DecimalInt(min=1, max=MOST_SAMPLES),
                    default=10_000,
                    help=samples,
                    **shown,
                ),
                click.option("--seed", type=DecimalInt(min=0), default=0, help=seed, **shown),
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


def given_correction(test: str, correction: str) -> str | None:
    """``--correction`` as the library takes it: None where it was not given (its default,
    Holm, is the library's), refused with a family-wise ``--test`` (Tukey HSD) by the
    library's one rule (:func:`trecbench.statistical_tests.refuse_correction_of_family_wise`),
    naming the option where the settings would name none."""
    from ..statistical_tests import refuse_correction_of_family_wise
    from .group import given

    chosen = correction if given("correction") else None
    refuse_correction_of_family_wise(test, chosen, ("--test", "--correction"))
    return chosen
