"""trec_eval's long options abbreviated as its getopt_long reads them (``--query`` for
``--query_eval_wanted``, ``--Num=50`` for ``--Number_docs_in_coll=50``), for ``score``."""

from __future__ import annotations

import click

from .group import Command

# trec_eval 9.0.8's and 10.0's getopt table (``--version`` aside: ``score`` has none; its
# own --help answers trec_eval's, abbreviated as trec_eval's is: ``--he``)
TREC_EVAL_LONG = (
    "help",
    "query_eval_wanted",
    "measure",
    "complete_rel_info_wanted",
    "level_for_rel",
    "nosummary",
    "Debug_level",
    "Number_docs_in_coll",
    "Max_retrieved_per_topic",
    "Judged_docs_only",
    "Rel_info_format",
    "Results_format",
    "Zscore",
    "Output_old_results_format",
)


class TrecEvalCommand(Command):
    """A command that reads trec_eval's abbreviated long options as trec_eval does."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, expand_long_prefixes(self, args, ctx))


def expand_long_prefixes(
    command: click.Command, args: list[str], ctx: click.Context | None = None
) -> list[str]:
    """``args`` with each abbreviation of a trec_eval long option written in full.

    A word is expanded only where it is an option (not an option's value, not after
    ``--``), is no option of ``command`` as written, and starts exactly one of
    ``command``'s long options, that one trec_eval's. Where trecbench's own options make a
    trec_eval prefix ambiguous (``--q``: ``--query_eval_wanted`` or ``--quiet``), it is
    a usage error naming them, rather than trecbench guessing."""
    names = {name for param in command.params for name in getattr(param, "opts", ())}
    names |= {name for name in (ctx.help_option_names if ctx else ()) if name.startswith("--")}
    takes_value = {
        name
        for param in command.params
        if isinstance(param, click.Option) and not param.is_flag and not param.count
        for name in param.opts
    }
    expanded: list[str] = []
    value_next = False
    for position, word in enumerate(args):
        if word == "--" and not value_next:
            return expanded + list(args[position:])
        option, equals, value = word.partition("=")
        if not value_next and option.startswith("--") and option not in names:
            option = _trec_eval_option(option, names, ctx)
        expanded.append(option + equals + value)
        value_next = not value_next and _value_follows(option + equals + value, takes_value)
    return expanded


def _value_follows(word: str, takes_value: set[str]) -> bool:
    """Whether the word after the option ``word`` is its value: a long option taking one
    written without ``=``, or short options run together whose last takes one (``-qm``,
    as click and trec_eval's getopt read ``-qm --Num``: ``--Num`` is the measure asked).
    A short option taking a value ends the run: the letters after it are its value."""
    if word.startswith("--"):
        return word in takes_value
    if not word.startswith("-"):
        return False
    for position in range(1, len(word)):
        if f"-{word[position]}" in takes_value:
            return position == len(word) - 1
    return False


def _trec_eval_option(prefix: str, names: set[str], ctx: click.Context | None) -> str:
    """The one long option of ``names`` that starts with ``prefix``, if it is trec_eval's;
    else ``prefix`` unchanged (click then says it is no option)."""
    candidates = sorted(name for name in names if name.startswith(prefix) and len(prefix) > 2)
    if not any(name[2:] in TREC_EVAL_LONG for name in candidates):
        return prefix
    if len(candidates) > 1:
        raise click.UsageError(
            f"option '{prefix}' is ambiguous ({', '.join(candidates)}): write it in full",
            ctx,
        )
    return candidates[0]
