"""The grid a fusion search scores (:mod:`trecbench.runstudy.fusion_tuning`): RRF's ``k``
over ``k_grid``, or the runs' weights of a weighted method over the simplex with step
``step`` (weights summing to 1), each point a :class:`Candidate`; its settings checked
before any run is read, and its size once the runs are counted."""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass

from ..errors import UsageError
from ..number_text import exact_number

K_GRID = tuple(range(10, 101, 10))
MAX_CANDIDATES = 10_000  # weightings a search scores (each a fusion and an evaluation)
TUNED = {"rrf": "k", "combsum": "weights", "wmnz": "weights"}


@dataclass(frozen=True)
class Candidate:
    """One point of the grid: RRF's ``k`` or the runs' ``weights`` (the other None)."""

    k: float | None = None
    weights: tuple[float, ...] | None = None

    def __repr__(self) -> str:  # what the candidate sets: no k where the method has none
        if self.weights is None:
            return f"Candidate(k={self.k!r})"
        return f"Candidate(weights={self.weights!r})"

    def label(self) -> str:
        if self.weights is None:
            return f"k={_grid_text(self.k)}"
        return "weights=" + ",".join(_grid_text(w) for w in self.weights)


def _grid_text(value: float) -> str:
    """A grid value as ``:g`` writes it where that reads back as the value, else in full:
    ``:g`` alone labelled k = 1000000 and 1000001 both ``1e+06`` (two candidates, one
    label, in the JSON's ``chosen`` and ``fold_choices`` too)."""
    text = format(value, "g")
    return text if float(text) == value else repr(float(value))


def grid(method: str, n_runs: int, k_grid=K_GRID, step: float = 0.1) -> list[Candidate]:
    """The candidates searched for ``method`` (see the module docstring)."""
    parts = grid_parts(method, k_grid, step)
    if parts is None:
        from ..fusion import check_number, k_as_given

        return [Candidate(k=k_as_given(check_number("k", k, 0))) for k in k_grid]
    check_grid_size(method, n_runs, k_grid, step)
    return [Candidate(weights=tuple(i / parts for i in c)) for c in _compositions(parts, n_runs)]


def check_grid_size(method: str, n_runs: int, k_grid=K_GRID, step: float = 0.1) -> None:
    """Refuse a grid of weights too fine for ``n_runs`` runs: a check made as soon as the
    number of runs is known (from the arguments, before a run is read), not once every run
    is read. RRF's grid of k does not grow with the runs; ``method`` by any of its names."""
    from ..fusion import method_name

    parts = grid_parts(method_name(method), k_grid, step)
    if parts is None:
        return
    count = math.comb(parts + n_runs - 1, n_runs - 1)  # weightings summing to 1
    if count > MAX_CANDIDATES:
        # a short line: the digits of a count of 10^600 are no help
        shown = f"{count:,}" if count < 10**15 else f"about 2^{count.bit_length() - 1}"
        raise UsageError(
            f"step {exact_number(step)} over {n_runs} runs makes {shown} weightings to score "
            f"(at most {MAX_CANDIDATES:,}): take a larger step"
        )


def check_grid_given(method: str, k_grid, step) -> None:
    """Refuse the grid of a parameter ``method`` does not tune (None: not given), as fuse
    refuses --k and --step: it was taken, and recorded in the search, as if searched."""
    from ..fusion import method_name

    tuned = TUNED.get(method_name(method))
    if tuned == "weights" and k_grid is not None:
        raise UsageError(f"k_grid: {method} has no k (it is RRF's constant); its grid is step")
    if tuned == "k" and step is not None:
        raise UsageError(
            "step is the grid of the weights optimize_fusion searches; rrf's is k_grid"
        )


def grid_parts(method: str, k_grid=K_GRID, step: float = 0.1) -> int | None:
    """The grid's own settings checked, before the runs are known: RRF's ``k_grid`` (None
    returned) or the weights' ``step``, which must divide 1 (its parts returned)."""
    if TUNED.get(method) == "k":
        from ..fusion import check_number

        if not len(k_grid):
            raise UsageError("the grid of RRF's k is empty: give at least one k")
        seen = set()
        for k in k_grid:
            value = check_number("k", k, 0)
            if value in seen:  # one setting scored twice, and counted as two candidates
                raise UsageError(f"k_grid: the k {k!r} is given twice; give each k once")
            seen.add(value)
        return None
    if TUNED.get(method) == "weights":
        # the range first: 1 / 0 and round(nan) would fail before the check
        real = isinstance(step, numbers.Real) and not isinstance(step, bool)
        # and finite 1 / step: a subnormal step (5e-324) overflowed round() (an internal error)
        parts = round(1 / step) if real and 0 < step <= 1 and math.isfinite(1 / step) else 0
        if not parts or abs(parts * step - 1) > 1e-9:
            raise UsageError(
                f"step must divide 1 (0.1, 0.25, ...): the weights' step, not {step!r}"
            )
        return parts
    tunable = ", ".join(TUNED)
    raise UsageError(f"{method} has no parameter to tune; optimise one of {tunable}")


def _compositions(parts: int, n_runs: int):
    """Every way to share ``parts`` among ``n_runs`` (stars and bars: the bars' places)."""
    for bars in itertools.combinations(range(parts + n_runs - 1), n_runs - 1):
        edges = (-1, *bars, parts + n_runs - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(n_runs))
