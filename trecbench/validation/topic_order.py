"""R20.order: whether a run lists its topics in ascending order, numerically or byte-wise.

Either order is ascending (docs/validate-rules.md): numeric, when every qid is ASCII
digits (``1, 2, 10``), and byte-wise, trec_eval's own (``1, 10, 2``), which ``validate
--fix`` writes for a run in neither. A run is out of order only where it has left every
order that applies to its ids: at the later of the two first descents (ids that are not
all digits have the byte-wise one alone). The run checker (Arrow, chunk by chunk) and the
small path (lists) find the descents their own ways and give them to one
:class:`TopicOrder`, so that both say the same, and ``--fix`` keeps the order of a run
:func:`ascending` accepts. Standard library only.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass


def is_digits(qid: str) -> bool:
    """Whether ``qid`` is ASCII digits only, an id the numeric order applies to."""
    return qid.isdigit() and qid.isascii()


def numeric_key(qid: str) -> tuple[int, str]:
    """An id of ASCII digits as a key that orders them as numbers (``int`` would refuse
    one of more than 4,300 digits): its length, then its digits, leading zeros aside."""
    digits = qid.lstrip("0")
    return len(digits), digits


def first_descent(keys: Sequence) -> int | None:
    """Index of the first key below the one before it, or None."""
    return next((i for i, (a, b) in enumerate(itertools.pairwise(keys), 1) if b < a), None)


@dataclass(frozen=True)
class Descent:
    """A topic block whose id is below the one before it, in one order."""

    line: int
    topic: str
    before: str


class TopicOrder:
    """The topics of one run, stretch by stretch of topic blocks in file order: where
    they leave both ascending orders (said once)."""

    def __init__(self) -> None:
        self.digits = True  # every id so far is ASCII digits: the numeric order applies
        self.numeric: Descent | None = None
        self.bytewise: Descent | None = None
        self.said = False

    def add(
        self, digits: bool, numeric: Descent | None, bytewise: Descent | None
    ) -> Descent | None:
        """One stretch of blocks, compared with the last block of the stretch before:
        whether its ids are all digits, and its first descent in each order (``numeric``
        is looked for only while :attr:`digits`). The descent to report, once: when the
        topics have left the byte-wise order and an id is not digits; of ids all digits so
        far, :meth:`finish` says it (a later id that is not digits takes the numeric order
        away: ``5, 13, 10, x`` leaves the byte-wise order at 13, not at 10)."""
        if self.said:
            return None
        self.bytewise = self.bytewise or bytewise
        self.digits = self.digits and digits
        if self.digits:
            self.numeric = self.numeric or numeric
        if self.bytewise is None or self.digits:
            return None
        self.said = True
        return self.bytewise

    def finish(self) -> Descent | None:
        """After the last stretch: the descent of ids all digits (the later of the first
        descents in both orders), when :meth:`add` has not said one."""
        if self.said or self.bytewise is None or self.numeric is None:
            return None
        self.said = True
        return max(self.numeric, self.bytewise, key=lambda descent: descent.line)


def out_of_order(ids: Sequence[str], lines: Sequence[int]) -> Descent | None:
    """R20.order's finding of topic blocks ``ids`` (in file order) starting at ``lines``:
    the descent where they leave both ascending orders, or None."""
    digits = all(is_digits(qid) for qid in ids)

    def descent(keys: list) -> Descent | None:
        at = first_descent(keys)
        return None if at is None else Descent(lines[at], ids[at], ids[at - 1])

    numeric = descent([numeric_key(qid) for qid in ids]) if digits else None
    order = TopicOrder()
    return order.add(digits, numeric, descent([qid.encode() for qid in ids])) or order.finish()


def ascending(ids: Sequence[str]) -> bool:
    """Whether topics listed in the order of ``ids`` are in an ascending order R20 accepts."""
    return out_of_order(ids, range(len(ids))) is None
