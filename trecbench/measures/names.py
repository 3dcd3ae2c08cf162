"""Measure names in every spelling, one meaning: :class:`Measure` and the parsers.

:func:`parse_measure` accepts

* trec_eval spellings: ``ndcg_cut.10``, ``P.5,10``, ``iprec_at_recall..10``,
  ``ndcg.1=3,2=9`` (and bare ``map``, ``P``, ...), and the labels trec_eval prints
  (``ndcg_cut_10``, ``P_5``, ``recip_rank_cut_10``);
* ir_measures spellings with parameters: ``nDCG@10``, ``P(rel=2)@5``,
  ``nDCG(dcg='exp-log2')@10``, ``RBP(p=0.8,rel=2)``, ``IPrec@0.2``, ``Judged@10``;
* display names and the seeds' spellings: ``MAP@100``, ``MRR@10``, ``HitRate@10``,
  ``hit@10``, ``mrr``, ``map@10``, ``ndcg_at_10``, ``precision_at_5``.

``MRR@10`` (``RR@10``, ``recip_rank@10``) is reciprocal rank over the run cut at 10
(trec_eval's ``-M 10 -m recip_rank``), never the uncut one; its label ``recip_rank_cut_10``.

:func:`.asked.parse_measures` reads a list of names (trec_eval's nicknames expanded), each request
computed as given, as pytrec_eval computes them (``P.5`` and ``P.10`` are both, and a bare
``P`` beside ``P.10`` takes that list; trec_eval's "the first parameter list given for a
measure wins" is ``trecbench score``'s: :mod:`.first_parameters`), and splits a name list
at spaces (``-m 'nDCG@10 P@5'``, as ir_measures' command line does). Unknown names are
answered with the nearest valid ones; an ir_measures measure object means what its
parameters say, those equal to ir_measures' defaults included (:mod:`.irm_objects`).

Numbers are checked against the domains the registry declares (:mod:`.params`): outside
them, ir_measures and display spellings are refused (:class:`ParameterDomainError`) and
trec_eval spellings, whose numbers are trec_eval's whatever the values, warned about
(:class:`ParameterDomainWarning`).
"""

from __future__ import annotations

import re
import warnings
import weakref
from dataclasses import dataclass, field, replace
from typing import Any

from ..callers import outside_trecbench
from ..errors import (
    ParameterDomainWarning,
    UsageError,
    shortened,
)
from ..trec_eval import compat
from . import registry, suggestions
from .expression import ExpressionError, blank_in, parse_expression, refuse_unprintable, split_names
from .irm_objects import is_ir_measure, name_of
from .keywords import keyword_options, refuse
from .registry import (
    FLOAT_CUTOFF,
    FLOAT_CUTOFFS,
    INT_CUTOFF,
    LOCAL,
    LONG_CUTOFFS,
    Definition,
)
from .suggestions import CutoffListError, cutoff_example, did_you_mean, label_needs, needs_cutoff
from .trec_params import (
    MeasureParameterError,
    c_atof,
    check_params,
    float_cutoffs,
    long_cutoffs,
    misread,
    numbers_outside,
    partly_read,
)


@dataclass(frozen=True)
class Measure:
    """One requested measure: family, parameter text and keyword parameters.

    ``params`` is trec_eval's parameter text for trec_eval families (``5,10``) and the cutoff
    for the others (``10``); ``options`` the keyword parameters that differ from their
    defaults, sorted by name (``(("rel", 2),)``). Two spellings of the same meaning compare
    equal (``nDCG@10`` == ``ndcg_cut.10``); ``requested`` keeps what the user typed and
    ``trec_spelled`` whether it was trec_eval syntax or one of its labels (then trec_eval's
    printing order applies, and its ``-m`` rules but to ``labelled`` ones: a label such as
    pytrec_eval's ``P_5`` is not ``-m`` syntax, so ``P_5`` and ``P_10`` are both computed).
    ``pinned``: the keyword parameters given at their default that a call's option sets
    when they are not given (``AP(judged_only=False)``: not ``-J``'s judged_only=True).
    """

    family: str
    params: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    requested: str = field(default="", compare=False)
    trec_spelled: bool = field(default=False, compare=False)
    labelled: bool = field(default=False, compare=False)
    pinned: tuple[str, ...] = field(default=(), compare=False)

    @property
    def definition(self) -> Definition:
        """The registry's description of the family."""
        return registry.get(self.family)

    @property
    def provider(self) -> str:
        """The reference the values follow: ``pytrec_eval`` (trec_eval 9.0.8's code),
        ``local`` (trecbench's definition), ``trecbench`` (runid, num_q) or the provider
        ir_measures uses (``gdeval``, ``cwl_eval``, ``judged``, ``pyndeval``, ...)."""
        definition = self.definition
        for name, _ in self.options:
            param = definition.param(name)
            if param is not None and param.source is not None:
                return param.source
        return definition.source

    def option(self, name: str) -> Any:
        """A keyword parameter's value (its default when not given)."""
        for key, value in self.options:
            if key == name:
                return dict(value) if isinstance(value, tuple) and name == "gains" else value
        param = self.definition.param(name)
        return None if param is None else param.default

    @property
    def summary(self) -> str:
        return self.definition.summary

    @property
    def cutoffs(self) -> tuple[int, ...]:
        """Integer cutoffs of a trec_eval cutoff family (defaults when none were given)."""
        definition = self.definition
        if definition.trec_params != LONG_CUTOFFS:
            return ()
        return long_cutoffs(self.params) if self.params is not None else definition.trec_defaults

    @property
    def k(self) -> int | None:
        """The cutoff of a non-trec_eval measure (None when it has none)."""
        return None if self.params is None else int(self.params)

    @property
    def canonical(self) -> str:
        """trec_eval spelling for trec_eval measures, ``Family@k`` for local ones, an
        ir_measures-style spelling for the rest (``P(rel=2)@5``, ``RBP(p=0.9)``)."""
        definition = self.definition
        if not self.options:
            if definition.trec_name is not None:
                return self.family if self.params is None else f"{self.family}.{self.params}"
            if definition.source == LOCAL or definition.ir_measures is None:
                return self.family if self.params is None else f"{self.family}@{self.params}"
        return self.spelled()

    def spelled(self) -> str:
        """The ir_measures-style spelling: ``Name(key=value,...)@cutoff``."""
        definition = self.definition
        name = definition.ir_measures or definition.display or definition.name
        shown = list(self.options)
        if self.family == "set_relative_P":
            name = "SetP"
            shown.insert(0, ("relative", True))
        elif self.family == "num_rel_ret" and self.option("rel") is None:
            name = "NumRelRet"
        elif self.family == "set_F" and self.params is not None:
            shown.insert(0, ("beta", c_atof(self.params)))
        text = name
        if shown:
            text += "(" + ",".join(f"{k}={_literal(v)}" for k, v in shown) + ")"
        if self.params is not None and self.family != "set_F":
            text += f"@{self.params}"
        return text

    def __str__(self) -> str:
        return self.canonical


def _literal(value: Any) -> str:
    if isinstance(value, tuple):  # a gain map, kept as sorted pairs
        return "{" + ",".join(f"{k}:{v}" for k, v in value) + "}"
    return repr(value)


_SEED_AT = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9]*)_at_(?P<k>[0-9]+)$")  # ndcg_at_10
_PARAM_TEXT = re.compile(r"^[0-9.,=+-]+$")


def _parse_trec(text: str, version: str | None = None) -> Measure | None:
    """trec_eval syntax (``ndcg_cut.10``, ``map``) or a local family's ``label.k``
    (``version``: the trec_eval whose families are known, all by default)."""
    name, dot, params = text.partition(".")
    index = registry.index()
    definition = index.trec.get(name)
    if definition is not None and version is not None and version not in definition.trec_eval:
        definition = None  # 10.0's rbp in 9.0.8 mode: an ordinary name again
    if definition is None:
        local = index.labels.get(name)
        if local is None or not dot or local.cutoff != INT_CUTOFF:
            return None
        return Measure(local.name, _cutoff_text(local, _integer(params), text), (), text, True)
    if dot and params == "":
        raise UsageError(f"illegal measure '{text}' (empty parameter list)")
    if not dot:
        params = None
    else:
        check_params(definition, params, text)
        if definition.trec_params is None:
            params = None
        elif definition.trec_params == FLOAT_CUTOFFS:  # ..2 and 0.20 mean 0.2
            params = ",".join(map(repr, float_cutoffs(params)))
    return Measure(definition.name, params, (), text, True)


def _parse_label(text: str, version: str | None = None) -> Measure | None:
    """A label trec_eval (or trecbench's trec format) prints: ``P_5``, ``ndcg_cut_10``,
    ``iprec_at_recall_0.20``, ``recip_rank_cut_10``, ``ndcg_1=3,2=9``, ``Judged_10``; one
    of a family ``version`` lacks is refused as its ``-m`` spelling is (``unj_10``)."""
    index = registry.index()
    for cut in (m.start() for m in re.finditer("_", text)):
        prefix, params = text[:cut], text[cut + 1 :]
        if not params or not _PARAM_TEXT.match(params):
            continue
        definition = index.trec.get(prefix) or index.labels.get(prefix)
        if definition is None:  # trecbench's labels of the others: Judged_10, ERR_10
            other = registry.find(prefix)
            if other is not None and other.cutoff == INT_CUTOFF and other.label_prefix == prefix:
                return Measure(other.name, _cutoff_text(other, _integer(params), text), (), text)
            continue
        if definition.trec_name is not None and definition.trec_params is None:
            continue
        if version is not None and definition.trec_eval and version not in definition.trec_eval:
            raise UsageError(_other_version(text, definition))
        if definition.trec_params == LONG_CUTOFFS:  # P_0 refused as P.0 is, as written
            check_params(definition, params, text)
        try:
            measure = _parse_trec(f"{prefix}.{params}")
        except MeasureParameterError:  # ndcg_10: no parameter list of ndcg, so no label
            continue
        except UsageError as error:  # recip_rank_cut_0: quoted as typed, not as read
            raise type(error)(str(error).replace(f"'{prefix}.{params}'", f"'{text}'")) from None
        if measure is not None and partly_read(definition, params):
            # P_5.1: trec_eval prints no such label (and refuses it: P_5); a cutoff beyond
            # a long is P_9223372036854775807's, said as such (misread's later lines)
            said = misread(definition, params)[0]  # the numbers read in part come first
            raise UsageError(f"illegal measure '{text}': no label trec_eval prints: {said}")
        # pytrec_eval's spelling, not trec_eval's -m syntax (which refuses P_5): -m's
        # "first parameter list wins" is not for it, P_5 and P_10 are both computed
        return None if measure is None else replace(measure, requested=text, labelled=True)
    return None


def _integer(text: str) -> int | str:
    """A cutoff written in digits as an int (the text itself otherwise, refused later)."""
    return int(text) if re.fullmatch(r"[0-9]{1,30}", text) else text


class _UnknownName(UsageError):
    """A name the registry does not know (:func:`parse_measure` adds the nearest ones)."""

    def __init__(self, text: str, why: str = ": no such measure"):
        super().__init__(f"illegal measure '{text}'{why}")
        self.text = text


def _irm_expression(text: str) -> tuple[str, dict[str, Any], Any]:
    """``(name, keyword parameters, cutoff)`` of ``Name(k=v,...)@cutoff``."""
    try:
        return parse_expression(text)
    except ExpressionError as error:
        if error.unknown:
            raise _UnknownName(text, f": {error}") from None
        raise UsageError(f"illegal measure '{text}': {error}") from None


def _resolve(name: str, params: dict[str, Any], has_cutoff: bool, text: str) -> Definition:
    """The definition a name (any case) with these parameters and cutoff presence means."""
    candidates = registry.index().names.get(name.lower(), [])
    label = registry.index().labels.get(name)
    if not candidates and label is not None:  # recip_rank_cut: its values' labels' prefix
        raise UsageError(label_needs(text, name, label, _parse_named))
    if not candidates:
        raise _UnknownName(text)
    preset = _preset(candidates, name)
    if preset is not None:  # SetRelP(relative=False): SetP(relative=False), as in ir_measures
        for key, value in preset.ir_measures_when:
            params.setdefault(key, value)
        return _resolve(preset.ir_measures, params, has_cutoff, text)
    # a name with and without cutoff (AP: map / map_cut): the cutoff decides
    if has_cutoff:
        fitting = [d for d in candidates if d.cutoff is not None]
    else:
        fitting = [d for d in candidates if not d.cutoff_required]
    specific = [d for d in fitting if _named_when(d, name) and _when_holds(d, params)]
    if specific:
        for key, value in specific[0].ir_measures_when:
            if value is not ...:  # SetP(relative=True) is set_relative_P itself
                params.pop(key)
        return specific[0]
    fitting = [d for d in fitting if not _named_when(d, name)]
    cut = None if has_cutoff or not fitting else _taking_them_cut(candidates, fitting[0], params)
    if cut is not None:  # AP(normalize='min'): map_cut's parameter, not map's
        raise UsageError(needs_cutoff(name, text, cut, _parse_named))
    if fitting:
        return fitting[0]
    if has_cutoff:  # the name as given: another of the family's may take one (MAP@10)
        raise UsageError(f"illegal measure '{text}': {name} takes no cutoff")
    shown = candidates[0].display or candidates[0].ir_measures or candidates[0].name
    if text.lower() != name.lower():  # P(rel=2): its parameters kept, 'P(rel=2)@10'
        raise UsageError(needs_cutoff(name, text, candidates[0], _parse_named))
    example = f"{shown}@{cutoff_example(candidates[0])}"
    raise UsageError(f"measure '{text}' needs a cutoff, e.g. '{example}'")


def _taking_them_cut(
    candidates: list[Definition], chosen: Definition, params: dict[str, Any]
) -> Definition | None:
    """The definition of ``candidates`` with a cutoff taking the ``params`` that ``chosen``
    (the name without a cutoff) has not, if any: they are asked at a cutoff."""
    lacking = [k for k, v in params.items() if chosen.param(k) is None
               and not chosen.unset_in_ir_measures(k, v)]  # fmt: skip
    if not lacking:
        return None
    taking = (d for d in candidates if d.cutoff is not None)
    return next((d for d in taking if all(d.param(k) is not None for k in lacking)), None)


def _preset(candidates: list[Definition], name: str) -> Definition | None:
    """The family whose alias ``name`` is ir_measures' name for its ir_measures measure
    with the ``ir_measures_when`` values preset (``SetRelP`` = ``SetP(relative=True)``):
    given other values, that name is the ir_measures measure with them."""
    for definition in candidates:
        when = definition.ir_measures_when
        fixed = bool(when) and all(value is not ... for _, value in when)
        if fixed and name.lower() in (alias.lower() for alias in definition.aliases):
            return definition
    return None


def _named_when(definition: Definition, name: str) -> bool:
    """Whether ``name`` is the ir_measures name that means this family only with certain
    parameters (``SetP`` with ``relative=True``, ``NumRet`` with ``rel``)."""
    irm = definition.ir_measures
    return bool(definition.ir_measures_when) and irm is not None and irm.lower() == name.lower()


def _when_holds(definition: Definition, params: dict[str, Any]) -> bool:
    return all(  # the value itself (relative=True, never 1: ir_measures refuses an int)
        key in params if value is ... else params.get(key) is value
        for key, value in definition.ir_measures_when
    )


def _cutoff_text(definition: Definition, cutoff: Any, text: str) -> str | None:
    """The cutoff as ``Measure.params`` holds it, once checked against its domain."""
    if cutoff is None:
        return None
    if definition.cutoff == FLOAT_CUTOFF:
        if isinstance(cutoff, bool) or not isinstance(cutoff, (int, float)):
            raise UsageError(f"illegal measure '{text}': the recall level must be a number")
        refuse(definition.numbers.problem(cutoff), text)
        return repr(float(cutoff))
    # trec_eval's P.5,10 is a list, a name of trecbench's one cutoff each
    if isinstance(cutoff, str) and re.fullmatch(r"[0-9]+(,[0-9]+)+", cutoff, re.ASCII):
        shown = definition.display or definition.name
        raise CutoffListError(text, [f"{shown}@{part}" for part in cutoff.split(",")])
    if isinstance(cutoff, bool) or not isinstance(cutoff, int):
        if (names := suggestions.names_listed(text, parse_measure)) is not None:
            raise suggestions.NameListError(text, names)  # P@5,P@10
        after = suggestions.parameters_after(text, cutoff)
        raise UsageError(f"illegal measure '{text}': the cutoff must be a positive integer{after}")
    refuse(definition.numbers.problem(cutoff), text)
    return str(cutoff)


def _parse_named(text: str) -> Measure:
    """ir_measures, display and seed spellings: ``Name(k=v,...)@cutoff``."""
    seed = _SEED_AT.match(text)
    if seed:  # memorybench's ndcg_at_10, precision_at_5
        text_to_parse = f"{seed['name']}@{seed['k']}"
    else:
        text_to_parse = text
    if text_to_parse.lower() in registry.index().names:  # R-prec: no Python name
        name, params, cutoff = text_to_parse, {}, None
    else:
        name, params, cutoff = _irm_expression(text_to_parse)
    if cutoff is None:  # ir_measures also accepts the cutoff as a parameter
        cutoff = params.pop("cutoff", None)
        if name.lower() == "iprec":
            cutoff = params.pop("recall", cutoff)
    definition = _resolve(name, params, cutoff is not None, text)
    trec_text = None
    if definition.name == "set_F" and "beta" in params:  # trec_eval's set_F parameter
        beta = definition.param("beta")
        refuse(beta.check(params["beta"]), text)
        given = float(params.pop("beta"))
        # at its default, dropped as keyword_options drops one: SetF(beta=1.0) is SetF
        trec_text = None if given == beta.default else repr(given)
    asked = f"{name}@k" if cutoff is not None else name
    named = name if name == definition.name else f"{asked} ({definition.name})"
    if params and cutoff is None and definition.trec_params in (LONG_CUTOFFS, FLOAT_CUTOFFS):
        raise UsageError(needs_cutoff(name, text, definition, _parse_named))
    options, pinned = keyword_options(definition, params, text, named)
    try:
        params_text = trec_text or _cutoff_text(definition, cutoff, text)
    except CutoffListError as error:  # P(rel=2)@5,10: each keeps its parameters, P(rel=2)@5
        each = [name.rpartition("@")[2] for name in error.names] if options else []
        names = [Measure(definition.name, k, options, text, pinned=pinned).spelled() for k in each]
        raise CutoffListError(text, names) if options else error from None
    return Measure(definition.name, params_text, options, text, pinned=pinned)


def parse_measure(text: str, version: str | None = None) -> Measure:
    """Parse ``text``, one measure name in any spelling accepted, into its :class:`Measure`.

    ``version`` ("9.0.8", "10.0"): the trec_eval whose ``-m`` names are known (its
    families that the other version lacks are read as ordinary names); None: all.
    Raises :class:`UsageError` (exit 1) for an unknown or malformed name (naming the
    nearest valid ones), :class:`ParameterDomainError` (exit 1) for a number outside its
    domain in an ir_measures or display spelling, and :class:`MeasureParameterError` (exit
    2) for parameters trec_eval refuses; trec_eval spellings outside a domain are computed
    as trec_eval computes them, with a :class:`ParameterDomainWarning`.
    """
    version = known_version(version)  # "banana" was taken, "10" not read as 10.0
    text = ir_measure_name(text) if is_ir_measure(text) else text  # as evaluate takes it
    if not isinstance(text, str):
        raise UsageError(f"measure {text!r} ({type(text).__name__}): give a name (str)")
    # 'P.5\n' was read as P.5 and keyed so, 'P@ 5' and 'P @5' as P.5 too
    if text.strip() and split_names(text) != [text]:
        raise blank_in(text, "give it without blanks around or inside it")
    refuse_unprintable(text)  # a line feed inside its parentheses, an escape after P.5
    try:
        measure = _parse(text.strip(), version)
    except _UnknownName as error:
        other = _other_versions(error.text, version)
        if other:  # unj.10 under 9.0.8: a family of 10.0's, its parameters 10.0's syntax
            raise UsageError(_other_version(error.text, other)) from None
        suggested = did_you_mean(error.text, lambda spelling: _parse(spelling, version))
        raise UsageError(f"{error}{suggested}") from None
    if check_domains(measure):
        _SAID_WHEN_PARSED[id(measure)] = measure
    return measure


# the measures parse_measure warned of (a trec_eval spelling's parameters), by identity
# (an equal Measure built otherwise is warned of when evaluated), held no longer than
# their callers hold them: evaluating one is not told again
_SAID_WHEN_PARSED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def said_when_parsed(measure: Measure) -> bool:
    """Whether :func:`parse_measure` warned of this ``measure`` object when it returned it."""
    return _SAID_WHEN_PARSED.get(id(measure)) is measure


def known_version(version: str | compat.Compat | None) -> str | None:
    """``version`` as :mod:`~trecbench.trec_eval.compat` spells it ("10" as "10.0"), None
    as None; an unknown one refused (:func:`~trecbench.trec_eval.compat.get`)."""
    return None if version is None else compat.get(version).version


def _parse(text: str, version: str | None) -> Measure:
    return _parse_trec(text, version) or _parse_label(text, version) or _parse_named(text)


def _other_versions(text: str, version: str | None) -> Definition | None:
    """The family of another trec_eval version (10.0's ``unj``) that ``text`` spells
    with parameters (``unj.10``), when ``version`` lacks that family; else None."""
    name, dot, _ = text.strip().partition(".")
    definition = registry.index().trec.get(name)
    if not dot or definition is None or version is None or version in definition.trec_eval:
        return None
    return definition


# the commands that score as trec_eval 9.0.8 alone: no --compat (score and measures have it)
WITHOUT_COMPAT = "compare, power, agree, benchmark and leaderboard"


def _other_version(text: str, definition: Definition) -> str:
    """The refusal of ``text``, ``definition``'s family with parameters (``unj.10``,
    ``unj_10``) where the trec_eval version in use lacks it (docs/trec-eval.md)."""
    other = ", ".join(definition.trec_eval)
    return (
        f"illegal measure '{text}': trec_eval {other}'s {definition.trec_name} with "
        f"parameters (score reads it with --compat {other}, which {WITHOUT_COMPAT} do not "
        "take)"
    )


def check_domains(measure: Measure, warn: bool = True) -> bool:
    """Refuse a measure whose numbers are outside their domains, or warn when it is spelled
    the trec_eval way (trec_eval's numbers, whatever they mean, are what it asks for);
    ``warn=False``: refuse alone (a measure parsed before warned when it was parsed).
    Whether it warned."""
    definition = measure.definition
    warned = warn and _warn_ignored(measure)
    problems = numbers_outside(definition, measure.params)
    if measure.trec_spelled and measure.params is not None:
        # the list as written (a float list is rewritten)
        problems += misread(definition, _written_params(measure) or measure.params)
    for key, value in measure.options:
        param = definition.param(key)
        problem = None if param is None else param.check(dict(value) if key == "gains" else value)
        problems += [problem] if problem else []
    if not problems:
        return warned
    text = measure.requested or measure.canonical
    if not measure.trec_spelled:
        refuse(problems[0], text)
    for problem in problems if warn else ():
        message = f"measure '{shortened(text)}': {problem}; computed as trec_eval computes it"
        warnings.warn(ParameterDomainWarning(message), stacklevel=outside_trecbench())
    return warn


def _written_params(measure: Measure) -> str | None:
    """The parameter list of a trec_eval spelling as it was asked (``5`` of ``map.5``,
    ``.2`` of ``iprec_at_recall..2``), None when it was asked otherwise."""
    given = f"{measure.definition.trec_name}."
    asked = (measure.requested or "").strip()
    return asked[len(given) :] if measure.trec_spelled and asked.startswith(given) else None


def _warn_ignored(measure: Measure) -> bool:
    """Warn of parameters given to a trec_eval family that takes none (``map.5``,
    ``recip_rank.10``): trec_eval ignores them, and so does trecbench, but the value keyed
    ``map.5`` would otherwise read as AP cut at 5. Whether it warned."""
    definition = measure.definition
    ignored = _written_params(measure)
    if definition.trec_params is not None or ignored is None:
        return False
    cut = _cut_spelling(definition, ignored)
    hint = f" (at a cutoff: {cut})" if cut else ""
    message = (
        f"measure '{shortened(measure.requested.strip())}': {definition.trec_name} takes no "
        f"parameters; computed as trec_eval computes it, '{ignored}' ignored{hint}"
    )
    warnings.warn(ParameterDomainWarning(message), stacklevel=outside_trecbench())
    return True


def _cut_spelling(definition, ignored: str) -> str | None:
    """The measure ``definition`` cut at ``ignored`` where that is one rank (``map.5``:
    ``map_cut.5``; ``recip_rank.10``: ``RR@10``), in trec_eval's spelling where it has
    one; None for anything else (``map.x``, ``map.5,10``)."""
    if definition.ir_measures is None or not re.fullmatch("[1-9][0-9]{0,8}", ignored):
        return None
    for cut in registry.definitions():
        if cut.ir_measures == definition.ir_measures and cut.cutoff == INT_CUTOFF:
            return f"{cut.trec_name}.{ignored}" if cut.trec_name else f"{cut.ir_measures}@{ignored}"
    return None


def ir_measure_name(item: Any) -> str:
    """The name an ir_measures measure object is asked by (:func:`.irm_objects.name_of`)."""
    return name_of(item, _parse_quietly)


def _parse_quietly(text: str) -> Measure:
    """The measure ``text`` means, its warnings said when the name kept is read."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _parse(text, None)
