"""``--report``, ``--manifest`` and ``--meta`` options, shared by commands that write them."""

from __future__ import annotations

import click

from .paths import JSON_FILE


def stack_options(command, decorators):
    """Apply click option ``decorators`` to ``command``, listed in --help in their order."""
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def manifest_options(command):
    """Add ``--manifest FILE`` and repeatable ``--meta KEY=VALUE``.

    The command receives ``manifest`` (Path or None) and ``meta`` (a dict, already
    checked, so a malformed pair fails before any work is done).
    """
    return stack_options(
        command,
        [
            click.option(
                "--manifest",
                type=JSON_FILE,
                default=None,
                help="Write an ExperimentManifest (JSON): id, time, command line, environment, "
                "git commit, --meta pairs, inputs and outputs with sha256.",
            ),
            click.option(
                "--meta",
                "meta",
                metavar="KEY=VALUE",
                multiple=True,
                callback=meta_pairs,
                help="Experiment metadata for the report and manifest (repeatable), e.g. "
                "--meta model=bm25 --meta index=snap-2024-05.",
            ),
        ],
    )


def report_options(command):
    """Add ``--report FILE`` (an EvaluationReport) and the :func:`manifest_options`.

    The command receives ``report``, ``manifest`` (Path or None) and ``meta`` (a dict).
    """
    report = click.option(
        "--report",
        type=JSON_FILE,
        default=None,
        help="Write an EvaluationReport (JSON): values, measures, options, inputs "
        "with sha256, versions.",
    )
    return report(manifest_options(command))


def meta_pairs(ctx, param, value) -> dict[str, str]:
    """``--meta`` pairs as a dict (click calls this without pairs too: trecbench.meta_values
    is imported only for pairs to check)."""
    if not value:
        return {}
    from ..meta_values import parse_meta

    return parse_meta(value)
