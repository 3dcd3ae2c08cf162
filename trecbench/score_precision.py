"""The precision trec_eval compares scores at, in one place: trec_eval 9.x holds a score
as a C float, so two scores equal at float32 precision tie (and are ordered by docno,
:mod:`trecbench.ranking`); 10.0 holds doubles. Whether a ranking compares as float32
(:func:`compares_float32`: the scoring, the preference measures, fusion and the report's
drill-down ask it), the scores at that precision (:func:`comparable_scores`) and C's cast
to float (:func:`as_float32`)."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from . import arrow


class _Holding(Protocol):
    """A trec_eval version (:class:`~trecbench.trec_eval.compat.Compat`), as far as its
    scores' precision goes."""

    float32: bool  # scores held as C float
    version: str  # its name (10.0)


def compares_float32(version: _Holding, float32: bool = True) -> bool:
    """Whether a ranking compares scores as float32: ``version`` holds them so (9.x) and
    ``float32`` (the setting; off: as doubles under 9.x too) asks for it."""
    return bool(float32) and version.float32


def setting_float32(version: _Holding, float32: bool | None) -> bool:
    """:func:`compares_float32` of a ``float32`` setting (None: as ``version`` holds
    scores); True asked of a version holding doubles (10.0) is refused, a
    :class:`~trecbench.errors.UsageError` (it was dropped, doubles compared)."""
    if float32 and not version.float32:
        from .errors import Setting, UsageError

        raise UsageError(
            Setting("float32", True),
            " compares scores as trec_eval 9.x holds them (C floats); ",
            Setting("compat", version.version),
            " holds doubles: give float32 with 9.x alone",
        )
    return compares_float32(version, float32 is not False)


def as_float32(scores: np.ndarray) -> np.ndarray:
    """Scores as trec_eval 9.x holds them: C's cast of the double to float, which rounds
    to nearest and turns magnitudes beyond float32's range into +-inf (as x86 does), so
    3.5e38 and 1e39 tie at +inf. numpy does the same, without its overflow warning here."""
    with np.errstate(over="ignore"):
        return np.asarray(scores).astype(np.float32)


def comparable_scores(column, float32: bool) -> np.ndarray:
    """The scores as trec_eval compares them: float32 (9.x) or float64, -0.0 as +0.0."""
    dtype = np.float32 if float32 else np.float64
    values = [arrow.to_numpy(chunk) for chunk in column.chunks]
    parts = [as_float32(v) if float32 else v.astype(dtype) for v in values]
    scores = np.concatenate(parts) if parts else np.empty(0, dtype)
    scores += dtype(0)  # -0.0 becomes +0.0: C compares them equal
    return scores
