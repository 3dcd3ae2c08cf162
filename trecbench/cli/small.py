"""``trecbench score``'s small-input path (issue 31): a call on one small plain run with
nothing but ``-m``, ``-q``, ``-n``, ``--format trec``, ``--labels trec``, ``--quiet`` and
trec_eval's ``-T trec_results`` and ``-o`` (which change nothing) is scored by
:func:`trecbench.small_score.score_small`, without Arrow; every other call, and every call
that path declines, takes the general path."""

from __future__ import annotations

import functools

import click

from ..text_bytes import utf8
from .group import given, open_input_scope
from .stdout import echo_bytes

# the parameters a small call may give; every other one is left at its default
_TAKEN = frozenset(
    {"qrels", "runs", "measure", "query", "nosummary", "output_format", "names", "quiet"}
    | {"results_format", "old_results_format", "old_results_value"}  # change nothing
)


def small_path(command):
    """``score``'s callback, unless the small path takes the call (and prints its text);
    the general path runs in the input scope (score is in ``group.SCOPE_THEIR_OWN``)."""

    @functools.wraps(command)
    def callback(**params):
        ctx = click.get_current_context()
        if small_score(ctx):
            return None
        open_input_scope(ctx)
        return command(**params)

    return callback


def small_score(ctx: click.Context) -> bool:
    """Whether the small path took the ``score`` call of ``ctx`` (and printed its text)."""
    params = ctx.params
    if given(*(name for name in params if name not in _TAKEN), ctx=ctx):
        return False
    # no progress to draw: it starts after a second, and the small path takes a tenth
    if len(params["runs"]) != 1 or params["output_format"] != "trec":
        return False
    if params["names"] not in (None, "trec"):
        return False
    from ..small_text import SCORED_BYTES, small_file

    if not small_file(str(params["runs"][0]), SCORED_BYTES):
        return False  # a large run: the general path imports nothing of the small one
    from ..small_score import score_small

    text = score_small(
        str(params["qrels"]),
        str(params["runs"][0]),
        list(params["measure"]) or None,
        per_query=params["query"],
        summary=not params["nosummary"],
    )
    if text is not None:
        echo_bytes(utf8(text))  # bytes: written untranslated, as score's
    return text is not None
