"""A leaderboard's result: per measure a :class:`MeasureBoard` (means, ranks, paired tests
against the baseline), the :class:`Leaderboard` of a suite, and its JSON document
(:meth:`Leaderboard.to_json`), which :mod:`.leaderboard` computes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .suite import Suite

ALPHA = 0.05  # the adjusted p below which a test is starred (board_text's LEGEND says it)


@dataclass(frozen=True)
class PairedTest:
    """One system against the baseline: the mean ``difference`` (None without a pair),
    the ``p``-value and its Holm-adjusted value (None when undefined, ``reason`` says
    why), over ``n`` pairs."""

    difference: float | None
    n: int
    p: float | None
    p_adjusted: float | None
    reason: str | None = None


@dataclass(frozen=True)
class MeasureBoard:
    """One measure's table: ``means[s, c]`` of system ``s`` on collection ``c``."""

    measure: str
    better: str | None  # None: a count without a better direction, not ranked
    systems: list[str]
    collections: list[str]
    topics: list[int]
    means: np.ndarray
    macro: np.ndarray
    ranks: np.ndarray
    mean_rank: np.ndarray
    over_collections: list[PairedTest | None]
    over_topics: list[PairedTest | None]
    summed: bool = False  # a count trec_eval sums over topics: its means are per topic


@dataclass(frozen=True)
class Leaderboard:
    """Every measure's :class:`MeasureBoard` of a suite."""

    def __repr__(self) -> str:
        from ..plurals import few_reprs, short_repr

        suite = self.suite
        return (
            f"Leaderboard(suite={short_repr(suite.name)}, systems={few_reprs(suite.systems)}, "
            f"collections={len(suite.collections)}, measures={few_reprs(suite.measures)})"
        )

    suite: Suite
    boards: list[MeasureBoard]
    # systems lacking topics, collections with topics without a relevant document, and
    # score's of run topics the qrels lack and of negative grades
    warnings: list[str] = field(default_factory=list)
    input_warnings: tuple[str, ...] = ()  # what its inputs warned: input_warnings.carried
    # the records of its input files (trecbench.report.input_record), taken as read
    inputs: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        """The JSON document of ``leaderboard --format json``: the boards, with what made
        them, as compare's and benchmark's reports record it (``created``, ``tool``,
        ``environment``, ``settings``, ``inputs``)."""
        from ..report import environment, tool, utc_now

        return {
            "name": self.suite.name,
            "description": self.suite.description,
            "created": utc_now(),
            "tool": tool(),
            "environment": environment(),
            "settings": _settings(self.suite),
            "inputs": list(self.inputs),
            "baseline": self.suite.baseline,
            "collections": [
                {
                    "name": c.name,
                    "qrels": str(c.qrels),
                    "runs": {system: str(c.runs[system]) for system in self.suite.systems},
                    "strata": None if c.strata is None else str(c.strata),
                    "where": c.where or None,
                }
                for c in self.suite.collections
            ],
            "measures": [_board_json(board) for board in self.boards],
            "warnings": list(self.warnings),
        }


def _settings(suite: Suite) -> dict:
    """How the boards were computed, keyed as compare's report keys its ``settings``:
    nothing is random (no resampling: ``seed`` None)."""
    return {
        "baseline": suite.baseline,
        "measures": list(suite.measures),
        "test": "t",
        "alternative": "two-sided",
        "correction": "holm",
        "correction_over": "the systems of a measure",
        "tests": ["over collections", "over topics"],
        "alpha": ALPHA,
        "seed": None,
        "mean": "trec_eval's, per collection; macro: over collections",
        "names": {"test": "paired t-test", "correction": "Holm"},
    }


def _test_json(test: PairedTest | None) -> dict | None:
    if test is None:
        return None
    return {
        "difference": test.difference,
        "n": test.n,
        "p": test.p,
        "p_adjusted": test.p_adjusted,
        "reason": test.reason,
    }


def _number(value) -> float | None:
    """A rank for JSON: None where the measure ranks no one (NaN is no JSON number)."""
    return None if np.isnan(value) else float(value)


def _board_json(board: MeasureBoard) -> dict:
    rows = []
    for s, system in enumerate(board.systems):
        rows.append(
            {
                "system": system,
                "means": dict(zip(board.collections, map(float, board.means[s]), strict=True)),
                "macro_mean": float(board.macro[s]),
                "ranks": dict(zip(board.collections, map(_number, board.ranks[s]), strict=True)),
                "mean_rank": _number(board.mean_rank[s]),
                "over_collections": _test_json(board.over_collections[s]),
                "over_topics": _test_json(board.over_topics[s]),
            }
        )
    topics = dict(zip(board.collections, board.topics, strict=True))
    return {
        "measure": board.measure,
        "better": board.better,
        "mean": "per topic, where trec_eval sums" if board.summed else "trec_eval's",
        "topics": topics,
        "systems": rows,
    }
