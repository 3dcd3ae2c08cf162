"""trec_eval's evaluation flags, the MaxOntSim options and the unjudged-run threshold,
shared by ``score`` and ``compare`` (same names, same meaning)."""

from __future__ import annotations

import click

from ..resource_bounds import FEWEST_JOBS, LEAST_MEMORY_MIB
from .paths import INPUT_FILE
from .report_options import stack_options
from .shared_options import DecimalInt, FiniteFloat


def evaluation_options(command):
    """Add ``-l``, ``-M``, ``-J``, ``--maxontsim-formula`` and ``--ontology``.

    The command receives ``level`` (int or None: 1), ``max_docs`` (int or None),
    ``judged`` (bool), ``maxontsim_formula`` and ``ontology`` (str or None).
    """
    return stack_options(
        command,
        [
            click.option(
                "-l",
                "--level_for_rel",
                "level",
                type=DecimalInt(),
                default=None,
                help="Minimum grade counted as relevant (default 1; 1 or more: trec_eval's 0 "
                "and below are refused; nDCG gains are unaffected).",
            ),
            click.option(
                "-M",
                "--Max_retrieved_per_topic",
                "max_docs",
                type=DecimalInt(),
                default=None,
                help="Evaluate only the first N documents of each topic (after trec_eval's sort).",
            ),
            click.option(
                "-J",
                "--Judged_docs_only",
                "judged",
                is_flag=True,
                help="Drop retrieved documents without a judgment first (use with care).",
            ),
            click.option(
                "--maxontsim-formula",
                default=None,
                callback=_known_formula,
                help="MaxOntSim@k formula: hybrid (default), simple_resnik_like, hybrid_strict.",
            ),
            click.option(
                "--ontology",
                type=INPUT_FILE,
                default=None,
                help="HPO ontology (hp.obo or hp.json) for MaxOntSim@k (default: the bundled one).",
            ),
        ],
    )


unjudged_threshold_option = click.option(
    "--unjudged-threshold",
    type=FiniteFloat(0, 1),
    default=0.5,
    show_default=True,
    help="A run is flagged as scored against qrels not its own (score warns, compare "
    "refuses) when over this share of the documents it retrieved within the evaluated "
    "depth are unjudged (no judgment, or a negative grade) and, in 90% of its topics or "
    "more, none is judged.",
)


def memory_budget_option(help: str):
    """``--memory MIB`` (the command receives ``memory``, None by default), with the help
    given: what the budget bounds differs between commands."""
    return click.option(
        "--memory", type=DecimalInt(min=LEAST_MEMORY_MIB), default=None, metavar="MIB", help=help
    )


_MEMORY_HELP = (
    "Memory budget in MiB (default: half of the memory available). Runs longer than "
    "a block of lines are read and scored in blocks of whole topics; a run whose topics "
    "are scattered over the file and do not fit is spilled to a temporary folder (TMPDIR). "
    "Runs are read whole with {options}a measure only trecbench's ports of trec_eval "
    "compute (dcg, ideal_dcg, yaap, rbp_resid, unj). A run read from a pipe (- from a pipe, "
    "<(zcat run.gz)) is held in memory whatever the budget (said once); - redirected from "
    "a file is read in blocks. With --jobs each worker gets its share, besides the "
    "interpreter and qrels every process holds."
)
memory_option = memory_budget_option(
    _MEMORY_HELP.format(options="-R other than qrels, -Z, -D, --compat 10.0 or ")
)
# compare has none of score's -R, -Z, -D, --compat
compare_memory_option = memory_budget_option(_MEMORY_HELP.format(options=""))

jobs_option = click.option(
    "--jobs",
    "-j",
    type=DecimalInt(min=FEWEST_JOBS),
    default=None,
    metavar="N",
    help="Processes scoring several run files at once (default: the cores available, when "
    "the runs are large enough to gain from it). Output is the same whatever N is.",
)


def _known_formula(ctx, param, value):
    """``--maxontsim-formula`` as given, once MaxOntSim knows it: an unknown one is a bad
    option value, refused naming the option (docs: cli-conventions), not in words of no
    option."""
    if value is None:
        return None
    from ..errors import UsageError
    from ..maxontsim_formulas import resolve_formula

    try:
        resolve_formula(value)
    except UsageError as error:
        raise click.BadParameter(str(error), ctx=ctx, param=param) from None
    return value


def check_formula_used(measures, formula, ontology=None) -> None:
    """--maxontsim-formula or --ontology with no MaxOntSim measure would change nothing,
    without a word: refused before the work (score's and compare's), as benchmark refuses
    its configuration's ``maxontsim_formula`` and ``ontology``. Measures the scoring
    refuses are left to it to refuse."""
    given = [name for name, value in (("--maxontsim-formula", formula), ("--ontology", ontology))
             if value is not None]  # fmt: skip
    if not given:
        return
    from ..errors import TrecbenchError, UsageError
    from ..measures import parse_measures

    try:
        parsed = parse_measures(list(measures) or None)
    except TrecbenchError:
        return
    if not any(measure.family == "MaxOntSim" for measure in parsed):
        # the measures themselves are not listed: -m all_trec's would be 86 names
        asked = "-m" if measures else "the default measures"
        raise UsageError(
            f"{' and '.join(given)}: no MaxOntSim measure is scored ({asked} hold none): "
            f"give -m MaxOntSim@k, or leave {'them' if len(given) > 1 else 'it'} out"
        )
