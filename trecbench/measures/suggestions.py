"""What a refusal of a measure name no spelling knows suggests: the registry's nearest
names, the user's parameters kept where they are valid for the name suggested, and, for a
name that ends in ``_<digits>`` (``ndcg_10``, which trec_eval and trecbench refuse), its
cut family at that cutoff first, as a label and as a display name (``ndcg_cut_10``,
``nDCG@10``); the cutoff a name that needs one takes (:func:`cutoff_example`,
:func:`needs_cutoff`); and what a list of cutoffs where one is taken is told to give
(:class:`CutoffListError`, advice in its caller's words).

The parser is handed in (``parse``) by :mod:`.names`, which calls this module when a name
is refused."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import Setting, TrecbenchError, UsageError, excerpt
from . import registry
from .catalog import NICKNAMES
from .trec_params import numbers_outside, uncalculable

LIST_HINT = "; `trecbench measures` lists them all"
MOST_SHOWN = 4  # names suggested at most
# a label whose number is a cutoff of a family that takes none under this name: ndcg_10
_CUTOFF_LABEL = re.compile(r"(?P<name>[A-Za-z][A-Za-z0-9_]*?)_(?P<k>[0-9]+)")
# a name with its cutoff glued on (P10, ndcg10) or after a dot its label lacks (Success.10)
_GLUED = re.compile(r"(?P<name>[A-Za-z][A-Za-z_]*?)(?P<dot>\.?)(?P<k>[0-9]+)")


class CutoffListError(UsageError):
    """A list of cutoffs (``P@1,5``) where a name takes one; ``names``: one name for each
    (``P@1``, ``P@5``). The advice is to give each, in the words of what was given the
    names (:class:`_EachName`: the library's list ``measures=['P@1', 'P@5']``, a command's
    ``-m 'P@1 P@5'``), unless the caller words its own (:meth:`advised`): a caller that
    takes one measure (fuse --optimize) has neither."""

    problem = "this name takes one cutoff, not a list"

    def __init__(self, text: str, names: list[str], advice: str | None = None):
        self.text, self.names, self.advice = text, list(names), advice
        said = f"illegal measure '{text}': {self.problem}: "
        if advice is None:
            super().__init__(said + "give each, ", _EachName("measures", tuple(self.names)))
        else:
            super().__init__(said + advice)

    def __reduce__(self):  # rebuilt from its fields, not its message (a worker's error)
        return type(self), (self.text, self.names, self.advice)

    def advised(self, advice: str) -> CutoffListError:
        """The same refusal with the caller's ``advice`` in place of the one to give each."""
        return type(self)(self.text, self.names, advice)  # a NameListError stays one


class NameListError(CutoffListError):
    """Names listed in one (``P@5,P@10``: its cutoff read ``5,P@10``) where one is asked."""

    problem = "a list of names, not one"


def names_listed(text: str, parse: Callable[[str], Any]) -> list[str] | None:
    """The names ``text`` lists, comma-separated, when each is one ``parse`` takes."""
    names = [name.strip() for name in text.split(",")]
    if len(names) < 2:
        return None
    try:
        for name in names:
            parse(name)
    except UsageError:
        return None
    return names


@dataclass(frozen=True)
class _EachName(Setting):
    """The names to give one each (``value``, a tuple): a list entry each in the library's
    words (``measures=['P@1', 'P@5']``, where one entry holding both is refused), one
    ``-m`` value on a command line (``-m 'P@1 P@5'``, one shell word)."""

    def said(self, flags: Mapping[str, str]) -> str:
        flag = flags.get(self.keyword)
        if flag is None:
            return f"{self.keyword}={list(self.value)!r}"
        return f"{flag} {shell_word(' '.join(self.value))}"


def shell_word(text: str) -> str:
    """``text`` quoted as one shell word that pastes as it reads: in single quotes, or in
    double quotes around a name's own single quotes (``nDCG(dcg='exp-log2')@5``)."""
    if "'" in text and not set(text) & set('"$`\\!'):
        return f'"{text}"'
    import shlex  # for a message only: off the path of every measure name read

    return shlex.quote(text)


# names of other libraries whose nearest name here means another measure: said, not
# suggested (ranx's hits@k counts the relevant documents of the top k; hit@k is 0 or 1)
_OTHER_MEANING = {
    "hits": "ranx's hits@k, the relevant documents in the top k, is P@k times k here; "
    "hit@k is Success@k, 0 or 1",
}


def did_you_mean(text: str, parse: Callable[[str], Any]) -> str:
    """`` (did you mean X, Y?)`` and where the list of every measure is, for the refused
    name ``text``; ``parse(spelling)``: the measure a spelling means (the parser of the
    trec_eval version in use), raising a :class:`TrecbenchError` where it means none.
    Each name suggested reads as a measure (one that needs a cutoff with one:
    ``recip_rank_cut.10``), and none is ``text`` itself."""
    name = re.split(r"[(@.]", text, maxsplit=1)[0]
    if name.lower() in _OTHER_MEANING:
        return f" ({_OTHER_MEANING[name.lower()]}){LIST_HINT}"
    rest = text[len(name) :]
    spellings: dict[str, tuple[str, Any]] = {n: (n, None) for n in NICKNAMES}
    for d in registry.definitions():  # the preferred spelling of a name is written last
        for spelling in (d.trec_name, d.label, *d.aliases, d.name, d.ir_measures, d.display):
            if spelling is not None:
                spellings[spelling.lower()] = (spelling, d)
    import difflib  # only for a name to suggest for (a tenth of the measures' import)

    close = difflib.get_close_matches(name.lower(), list(spellings), n=MOST_SHOWN, cutoff=0.6)
    kept = (_kept(*spellings[c], rest, parse) for c in close)
    first = [*_cut_forms(text, parse), *_glued_forms(text, parse)]
    shown = [s for s in dict.fromkeys([*first, *kept]) if s and s != text]
    shown = shown[:MOST_SHOWN]
    return f" (did you mean {', '.join(shown)}?){LIST_HINT}" if shown else LIST_HINT


def _kept(name: str, definition: Any, rest: str, parse: Callable[[str], Any]) -> str | None:
    """``name + rest`` when that is a valid measure with its numbers in their domains,
    else ``name`` alone, else ``name`` with a cutoff it takes (the one in ``rest``, or
    :func:`cutoff_example`'s: ``HitRate@10``, ``recip_rank_cut.10``); None when none is.
    A nickname (``official``), which no parser of one name reads, is kept as itself when
    nothing follows it (:func:`nickname_with_parameters` refuses ``official.5``)."""
    if definition is None and name in NICKNAMES:
        return None if rest else name
    tries = [name + rest] if rest else []
    tries.append(name)
    if definition is not None and definition.numbers is not None:
        given = re.search(r"@([0-9.]+)$", rest)
        k = given[1] if given else cutoff_example(definition)
        tries += [f"{name}@{k}", f"{name}.{k}"]
    return next((t for t in tries if _valid(t, parse) is not None), None)


def label_needs(text: str, label: str, definition, parse: Callable[[str], Any]) -> str:
    """The refusal of ``text``: a label that only names values (``recip_rank_cut``, as
    trec_eval's ``recip_rank_cut_10``) given without its cutoff after ``.`` or ``_``
    (``recip_rank_cut``, ``recip_rank_cut(rel=2)@5``): what it needs, and the family's
    name with what was given, where that reads (``MRR(rel=2)@5``)."""
    rest = text[len(label) :]
    given = re.search(r"@([0-9]+)$", rest)
    k = given[1] if given else cutoff_example(definition)
    name = definition.display or definition.ir_measures or definition.name
    other = name + rest if given else f"{name}{rest}@{k}"
    also = f" or '{other}'" if _valid(other, parse) is not None else ""
    if not rest:
        return f"measure '{text}' needs a cutoff, e.g. '{label}.{k}'{also}"
    return (
        f"illegal measure '{text}': {label} takes a cutoff alone, after a dot, e.g. "
        f"'{label}.{k}'{also}"
    )


def _cut_forms(text: str, parse: Callable[[str], Any]) -> list[str]:
    """The label and the display name of the cut family ``text`` names, when it is a
    name, ``_`` and a cutoff (``ndcg_10``: ``ndcg_cut_10``, ``nDCG@10``;
    ``recip_rank_10``: ``recip_rank_cut_10``, ``MRR@10``); none otherwise. Each is shown
    only where it reads back as that measure."""
    match = _CUTOFF_LABEL.fullmatch(text)
    if match is None:
        return []
    name, k = match["name"], match["k"]
    for spelling in (f"{name}@{k}", f"{name}_cut.{k}"):
        measure = _valid(spelling, parse)
        if measure is None or measure.params is None:
            continue
        definition = measure.definition
        label = definition.trec_name or definition.label or measure.family
        display = f"{definition.display}@{measure.params}" if definition.display else None
        forms = (f"{label}_{measure.params}", display, measure.spelled())
        shown = [f for f in dict.fromkeys(forms) if f and _valid(f, parse) == measure]
        return shown[:2]  # a label and a display name
    return []


def _glued_forms(text: str, parse: Callable[[str], Any]) -> list[str]:
    """The cut family ``text`` names when it is a name of a family that takes a cutoff (in
    any case) and a cutoff glued on (``P10``: ``P@10``, ``P.10``; ``ndcg10``: ``nDCG@10``,
    ``ndcg_cut.10``) or after a dot (``Success.10``: ``success.10``, ``Success@10``, the
    label first, as the dot asks); none otherwise. Each reads back as that measure."""
    match = _GLUED.fullmatch(text)
    if match is None:
        return []
    given, k = match["name"], match["k"]
    labels = [  # trec_eval's labels are case-sensitive: Success.10 is none, success.10 is
        f"{s}.{k}"
        for d in registry.definitions()
        for s in (d.trec_name, d.label)
        if s and d.numbers is not None and s.lower() == given.lower() and _valid(f"{s}.{k}", parse)
    ]
    measure = _valid(f"{given}@{k}", parse)
    forms = []
    if measure is not None and measure.params is not None:
        definition, k = measure.definition, measure.params
        label = definition.trec_name or definition.label
        name = definition.display or definition.ir_measures or definition.name
        forms = [f"{name}@{k}", f"{label}.{k}" if label else None]
        forms = [f for f in forms if f and _valid(f, parse) == measure]
    return list(dict.fromkeys([*labels, *forms] if match["dot"] else [*forms, *labels]))


def _valid(spelling: str, parse: Callable[[str], Any]) -> Any:
    """The measure ``spelling`` means with its numbers in their domains and calculable
    (not utility.10, which score and measures refuse), else None."""
    try:
        measure = parse(spelling)
    except TrecbenchError:
        return None
    if uncalculable(measure.definition, measure.params) is not None:
        return None
    return None if numbers_outside(measure.definition, measure.params) else measure


def cutoff_example(definition) -> int | float:
    """A cutoff ``definition`` takes, for a message's example: 10 where its number is a
    rank its domain holds, else the middle one of its trec_eval defaults (``IPrec@0.5``,
    ``Rprec_mult.1.2``: R x 10 is no multiplier of use); 10 when it holds none of them,
    as every hint said before the domains were read."""
    defaults, numbers = definition.trec_defaults, definition.numbers
    ranks = (10,) if numbers.what == "the cutoff" else ()
    taken = (k for k in (*ranks, *defaults[len(defaults) // 2 :]) if numbers.contains(k))
    return next(taken, 10)


def needs_cutoff(name: str, text: str, definition, parse: Callable[[str], Any]) -> str:
    """The refusal of ``text``: a measure that needs a cutoff (``P``) or a family of
    trec_eval's cutoff lists (``success``, ``relative_P``, ``Rprec_mult``), whose defaults
    give several values, given keyword parameters but no cutoff (``name``: the name it was
    given by); refused as ir_measures refuses ``P(rel=2)`` and ``Success(rel=2)``: no name
    would tell those values apart. Its example is ``text`` with a cutoff where ``name``
    takes one (``P(rel=2)@10``, ``Success(rel=2)@10``; a parameter ``parse`` refuses there
    is refused first, in ``text``'s words), else trec_eval's spelling, which takes no
    keyword parameters (``relative_P.10``)."""
    k = cutoff_example(definition)
    try:
        parse(f"{name}@{k}")
    except TrecbenchError:
        number = definition.numbers.what.replace("the ", "a ", 1)  # Rprec_mult: a multiplier
        return (
            f"measure '{text}' needs {number}, which {definition.name} takes in trec_eval's "
            "spelling alone, without keyword parameters (-l and -J for rel and judged_only): "
            f"e.g. '{definition.name}.{k}'"
        )
    example = f"{text}@{k}"
    try:
        parse(example)
    except UsageError as error:  # Success(rel=0): its own refusal, of the text as given
        raise type(error)(str(error).replace(f"'{example}'", f"'{text}'", 1)) from None
    return f"measure '{text}' needs a cutoff, e.g. '{example}'"


def nickname_with_parameters(text: str) -> UsageError | None:
    """The refusal of ``text`` when it is a trec_eval nickname with parameters
    (``official.5``), which trec_eval reads as the nickname alone: the parameters would
    change nothing. None for any other text (``official.`` is no measure name)."""
    nickname, _, parameters = text.partition(".")
    if nickname not in NICKNAMES or not parameters:
        return None
    return UsageError(
        f"illegal measure {excerpt(text)}: the nickname {nickname} takes no parameters (trec_eval "
        "ignores them); give it alone and the measures with their parameters after it, e.g. ",
        _EachName("measures", (nickname, "P.5")),
    )


def parameters_after(text: str, cutoff: Any) -> str:
    """Advice for parameters written after the cutoff (``nDCG@10(rel=2)``): where they go
    (``nDCG(rel=2)@10``, ir_measures' order), else nothing."""
    after = re.fullmatch(r"([0-9]+)(\(.*\))", cutoff, re.ASCII) if isinstance(cutoff, str) else None
    if after is None or not text.endswith(f"@{cutoff}"):
        return ""
    return f"; parameters go before it: {text[: -len(cutoff) - 1]}{after[2]}@{after[1]}"
