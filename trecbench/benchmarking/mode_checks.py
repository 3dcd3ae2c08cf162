"""The checks of a benchmark's modes (:class:`~.settings.Mode`) that no schema can make,
made when its settings are (:class:`~.settings.BenchmarkSettings`), before any run is
read, each refused at the key and line of the configuration that writes the setting
(:func:`refused`): names apart and fit for files, one label per mode and none another
mode's name, each run file and each fusion once, fusions' settings as ``fuse`` takes them
and within the validation's depth, references known, and no mode fusing or reranking
itself through a circle."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import UsageError, excerpt, shortened
from ..naming import composed

if TYPE_CHECKING:  # a mode is a settings.Mode, not imported: the settings import these
    from pathlib import Path

    from ..toml_loader import ConfigText


def refused(path: Path, text: ConfigText | None, keys: tuple, message: str) -> UsageError:
    """The error refusing the setting at ``keys``: at the key and the line the
    configuration ``text`` writes it (:meth:`ConfigText.where`), as the loader's refusals
    are; settings built in Python (no text) name the file and the key."""
    if text is None:
        from ..toml_loader import key_path

        return UsageError(f"{path}: {shortened(key_path(keys))}: {message}")
    return UsageError(f"{text.where(keys)}: {message}")


def _check_runs_once(modes: list, path: Path, text: ConfigText | None) -> None:
    """Each run file is one mode's (:func:`~trecbench.naming.run_given_twice`: two modes of
    one file would compare the run with itself, as ``leaderboard`` refuses two systems of
    one): refused at the second mode's ``run``, naming the first's line."""
    from ..naming import run_given_twice

    def first_line(name: str) -> int | None:
        return None if text is None else text.line(("modes", name, "run"))

    runs = {mode.name: mode.run for mode in modes if mode.run}
    problem = run_given_twice(runs, "modes", first_line)
    if problem is not None:
        name, message = problem
        raise refused(path, text, ("modes", name, "run"), message)


def _check_fusions_once(modes: list, path: Path, text: ConfigText | None) -> None:
    """Two modes fusing the same modes with the same settings (in any order: a fusion
    breaks ties by docno, not by the order of its runs; weights in proportion alike,
    unset ones 1 each: :func:`_shares`; wmnz of equal weights is combmnz, combmed of two
    modes combanz) make one run, which would be
    compared with itself, as two modes of one run file would: refused at the second's
    ``fuse``, naming the first's line."""
    from ..fusion import method_name, norm_name

    fusions: dict[tuple, object] = {}  # a fusion's settings -> the first mode of them
    for mode in modes:
        if mode.fuse is None:
            continue
        method = method_name(mode.method)
        weights = _weights(mode)
        # a set, not sorted: the names are distinct (_check_fusion) but need not be text
        # in Python (fuse=[1, "a"], refused as unknown below), where sorting raised
        pairs = frozenset(zip(mode.fuse, _shares(weights), strict=True))
        if method == "wmnz" and len({share for _, share in pairs}) == 1:
            method = "combmnz"  # its sum times the weights' sum: times the count, combmnz's
        if method == "combmed" and len(mode.fuse) == 2:
            method = "combanz"  # the median of one value or two is their mean
        k = mode.rrf_k if method == "rrf" else None
        first = fusions.setdefault((method, k, norm_name(mode.norm, method), mode.depth,
                                    pairs), mode)  # fmt: skip
        if first is not mode:
            line = None if text is None else text.line(("modes", first.name, "fuse"))
            at = "" if line is None else f" (line {line})"
            # each fused mode's weight, in whatever order the two name them
            scaled = _weighed(first) != _weighed(mode)
            alike = "; weights in proportion rank alike" if scaled else ""
            message = (
                f"modes {first.name!r}{at} and {mode.name!r} are one fusion "
                f"({mode.describe()}{alike}): the run would be compared with itself; give it once"
            )
            raise refused(path, text, ("modes", mode.name, "fuse"), message)


def _weights(mode) -> list[float]:
    """A fusion's weights as floats, 1 each where unset (`is None`: weights may be any
    sequence fuse takes, and a numpy array has no truth)."""
    return [1.0] * len(mode.fuse) if mode.weights is None else [float(w) for w in mode.weights]


def _weighed(mode) -> dict:
    """Each mode a fusion fuses, and its weight."""
    return dict(zip(mode.fuse, _weights(mode), strict=True))


def _shares(weights: list[float]) -> list[float]:
    """Each weight over the largest, to 12 digits: weights in proportion are one fusion
    (every weighted method's fused score is in proportion to its weights: [3, 7] ranks as
    [0.3, 0.7], [2, 2] as no weights), though as doubles 0.3 : 0.7 is not 3 : 7 exactly.
    Over the largest, not the sum: a sum of weights near 1e308 is infinite, and made
    [1e308, 1e308] one fusion with [1.5e308, 1e308] (shares 0 each)."""
    largest = max(weights)
    return [float(f"{weight / largest:.12g}") for weight in weights]


# a mode's name, as the configuration's schema takes it (modes' propertyNames): it names
# the mode's files (reports/<mode>.json, runs/<mode>.run) and its lines in messages
MODE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,25}")


def _check_names_apart(modes: list, path: Path, text: ConfigText | None) -> None:
    """A mode's name outside :data:`MODE_NAME` (possible only in Python: ``Mode("a/b")``
    named a file in another folder, ``Mode("a\\nb")`` split a message in two) is refused,
    as the schema refuses it in a configuration. Two modes whose names differ only in case
    (``H``, ``h``) are refused at the second's table, naming the first's line: their files
    (``reports/H.json`` and ``reports/h.json``, a fusion's ``runs/H.run``) are one file on
    macOS's and Windows' file systems, where the second replaced the first, as convert
    refuses such tags."""
    names: dict[str, str] = {}
    for mode in modes:
        if not isinstance(mode.name, str) or not MODE_NAME.fullmatch(mode.name):
            message = (
                f"{excerpt(mode.name)} is no mode name: 1 to 25 ASCII letters, digits, '_', "
                "'.' or '-' (it names the mode's files)"
            )
            raise UsageError(f"{path}: modes: {message}")
        other = names.setdefault(mode.name.lower(), mode.name)
        if other != mode.name:
            first = None if text is None else text.line(("modes", other))
            at = "" if first is None else f" (line {first})"
            message = (
                f"modes {other!r}{at} and {mode.name!r} would write one file where case is "
                "not told apart (macOS, Windows: reports/<mode>.json): rename one"
            )
            raise refused(path, text, ("modes", mode.name), message)


def _check_labels(modes: list, path: Path, text: ConfigText | None) -> None:
    """Two modes of one label (the tables would show two columns of one name: the labels
    are compared as shown, blanks collapsed, as Unicode composes them,
    :func:`~trecbench.naming.composed`) are refused at the second's ``label`` (its table
    when the label is its name, not written), naming the first's line; so is a blank
    label, shown as the empty one the schema refuses, and a label that is another mode's
    name (a report would call one mode by two names, two modes by one)."""
    labels: dict[str, str] = {}  # a label as shown -> the mode that has it
    by_name = {mode.name: mode for mode in modes}
    for mode in modes:
        shown_as = composed(" ".join(mode.label.split()))
        if not shown_as:
            message = f"{excerpt(mode.label)} is blank: the label titles the mode's column"
            raise refused(path, text, ("modes", mode.name, "label"), message)
        if shown_as in by_name and shown_as != mode.name:  # one report, one name a mode
            message = (
                f"{excerpt(shown_as)} is the name of another mode: the statistics call "
                "each mode by its name, the R-task part by its label; give another label"
            )
            raise refused(path, text, ("modes", mode.name, "label"), message)
        other = labels.setdefault(shown_as, mode.name)
        if other == mode.name:
            continue
        shown = excerpt(mode.label) + _written_otherwise(mode.label, by_name[other].label)
        if text is None:
            raise UsageError(f"{path}: modes {other!r} and {mode.name!r} have one label {shown}")
        keys: tuple = ("modes", mode.name, "label")
        if text.line(keys, own=True) is None:  # the label is the mode's name
            keys = keys[:-1]
        first = text.line(("modes", other, "label"))
        at = "" if first is None else f" (line {first})"
        message = f"modes {other!r}{at} and {mode.name!r} have one label {shown}"
        raise refused(path, text, keys, message)


def _written_otherwise(label: str, other: str) -> str:
    """What a message adds when two labels shown alike are not one text: that Unicode
    writes them two ways (both show ``Lexé``)."""
    if " ".join(label.split()) == " ".join(other.split()):
        return ""
    return " (written two ways in Unicode, shown alike)"


def _check_fusion(mode, path: Path, text: ConfigText | None) -> None:
    """A fusion names two modes or more, each once, and its settings are those
    :func:`trecbench.fuse` takes (:func:`trecbench.fusion.checked_settings`: method, norm,
    k, a weight per run neither negative nor all 0, depth, tag), and no weight 0 (the mode
    would add only its documents, at 0), refused naming the mode
    before any run is read, as a configuration's are."""
    from ..fusion import checked_settings

    fused = mode.fuse or []
    twice = next((m for i, m in enumerate(fused) if m in fused[:i]), None)
    if twice is not None:
        message = f"mode {mode.name!r} fuses {excerpt(twice)} twice"
        raise refused(path, text, ("modes", mode.name, "fuse"), message)
    if len(fused) == 1:  # as two modes of one run file are (_check_runs_once)
        message = (
            f"mode {mode.name!r} fuses one mode, {excerpt(fused[0])}: it would rank as that "
            "mode's run, compared with itself; fuse two modes or more"
        )
        raise refused(path, text, ("modes", mode.name, "fuse"), message)
    if mode.fuse is None:
        return
    try:
        checked_settings(
            mode.method, mode.norm, mode.k, mode.weights, len(fused), mode.depth, mode.run_tag
        )
    except UsageError as error:
        raise UsageError(f"{path}: modes.{mode.name}: {error}") from None
    weights = _weights(mode)
    if 0.0 in weights:  # fuse takes it; a mode of the benchmark is compared as a mode
        at = weights.index(0.0)
        message = (
            f"mode {mode.name!r} weighs {excerpt(fused[at])} 0, which so adds nothing but its "
            "documents at score 0 (beside one other mode: almost that mode's run, compared "
            "with it); leave it out of fuse"
        )
        raise refused(path, text, ("modes", mode.name, "weights", at), message)


def check_fusion_depths(modes: list, max_depth: int, path: Path, text: ConfigText | None) -> None:
    """A fusion deeper than the validation lets a run be (or kept whole) fails R8 once
    fused, on a file never written: refused before any run is read."""
    for mode in modes:
        if mode.fuse is not None and (mode.depth is None or mode.depth > max_depth):
            deep = "keeps every document" if mode.depth is None else f"is {mode.depth} deep"
            message = (
                f"the fusion {deep}, beyond validation.max_depth {max_depth}: its run "
                f"would fail R8; give a depth of at most {max_depth}"
            )
            keys = ("modes", mode.name, "depth")
            if text is None:  # the mode named as where() names it
                raise UsageError(f"{path}: modes.{mode.name}: {message}")
            if text.line(keys, own=True) is None:  # the depth validation.max_depth's
                keys = ("validation", "max_depth")
            raise refused(path, text, keys, message)


def check_modes(modes: list, path: Path, text: ConfigText | None = None) -> None:
    """Refuse two modes of one label (the tables would show two columns of one name: the
    labels are compared as shown, blanks collapsed), two modes of one run file, a fusion
    of one mode twice or with settings ``fuse`` refuses, and unknown, self- and circular
    references."""
    known = {mode.name: mode for mode in modes}
    _check_names_apart(modes, path, text)
    _check_labels(modes, path, text)
    for mode in modes:
        _check_fusion(mode, path, text)
    _check_runs_once(modes, path, text)
    _check_fusions_once(modes, path, text)
    for mode in modes:
        # (an empty name is a reference too: unknown, refused here, not looked up later)
        for other in [*(mode.fuse or []), *([] if mode.reranks is None else [mode.reranks])]:
            keys = ("modes", mode.name, "reranks" if other == mode.reranks else "fuse")
            if other not in known:
                message = f"mode {mode.name!r} refers to unknown mode {excerpt(other)}"
                raise refused(path, text, keys, message)
            if other == mode.name:
                raise refused(path, text, keys, f"mode {mode.name!r} refers to itself")
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:  # at the edge closing it: its fuse list's item
            cycle = " -> ".join([*trail[trail.index(name) :], name])
            keys = ("modes", trail[-1], "fuse", known[trail[-1]].fuse.index(name))
            raise refused(path, text, keys, f"modes fuse each other in a circle: {cycle}")
        state[name] = 1
        for other in known[name].fuse or []:
            visit(other, [*trail, name])
        state[name] = 2

    for mode in modes:
        visit(mode.name, [])
    _check_rerank_circles(known, path, text)


def _check_rerank_circles(known: dict, path: Path, text: ConfigText | None) -> None:
    """Refuse modes that rerank each other in a circle (a reranks b, b reranks a): each
    run would be made from the other's, and the reranking table would show both
    improvements, one against the other, as a mode reranking itself would (refused)."""
    for mode in known.values():
        trail = [mode.name]
        while known[trail[-1]].reranks is not None:
            trail.append(known[trail[-1]].reranks)
            if trail[-1] in trail[:-1]:
                if trail[-1] != mode.name:  # a circle further on: refused from its own mode
                    break
                cycle = " -> ".join(trail)
                keys = ("modes", trail[-2], "reranks")  # at the edge closing it
                raise refused(path, text, keys, f"modes rerank each other in a circle: {cycle}")
