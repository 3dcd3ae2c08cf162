"""What trec_eval 9.0.8 does with a topic whose every judgment is negative.

``form_res_rels`` sizes its buffer of grade levels by the largest grade + 1: no room for
such a topic. When it is the first topic evaluated, no earlier topic sized the buffer and
trec_eval stops (``Can't calculate measure``, exit 4); a largest grade of -2 or less
writes before the buffer and crashes it wherever the topic comes (checked with the
binary: exit 4, then 139). Later with a largest grade of -1, it is evaluated.
"""

from __future__ import annotations

STOPS = "stops"  # exit 4, 'Can't calculate measure'
CRASHES = "crashes"  # a segmentation fault


def unevaluable(position: int, largest_grade: int) -> str | None:
    """:data:`STOPS` or :data:`CRASHES` for a topic evaluated at ``position`` (0: first)
    whose largest grade is ``largest_grade``; None when trec_eval evaluates it."""
    if largest_grade >= 0:
        return None
    if position == 0:
        return STOPS
    return CRASHES if largest_grade <= -2 else None
