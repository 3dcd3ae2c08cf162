"""What every converter shares, in one place to import it from: the :class:`Report` of
what a conversion dropped, repaired or noticed, and (from the modules that hold them) the
conversion model (:mod:`~trecbench.convert.model`), names and id escaping
(:mod:`~trecbench.convert.identifiers`), ranking-order preservation and qrels
(:mod:`~trecbench.convert.tables`), the sidecar (:mod:`~trecbench.convert.sidecar`) and
self-validation and writing (:mod:`~trecbench.convert.writing`).

A converter builds a :class:`Conversion` (qrels tables, run tables, a sidecar dict) and never
prints or writes; :func:`write_conversion` validates and writes it.

**Ranking order.** Every converter writes ``score = n - rank + 1`` so that trec_eval
reproduces the producer's order exactly; the original scores go to the sidecar (see
:mod:`trecbench.convert.tables`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .identifiers import (
    check_name,
    clean_tag,
    default_name,
    escape_ids,
    escaped,
    given_name,
    given_tag,
    input_stem,
    missing_options,
    output_name,
    refuse_repeat,
    run_naming,
    single_input_names,
    unique_tag,
)
from .model import Conversion, Findings, RunOutput
from .sidecar import (
    ID_POLICY,
    SCORE_POLICY,
    SIDECAR_FORMAT,
    SIDECAR_VERSION,
    json_text,
    sidecar_dict,
)
from .tables import FOUND_ONLY_WARNING, make_qrels, qrels_summary, ranked_run
from .writing import check_judgeable, compare_command, write_conversion

__all__ = [
    "FOUND_ONLY_WARNING", "ID_POLICY", "MAX_ITEMS", "SCORE_POLICY", "SIDECAR_FORMAT",
    "SIDECAR_VERSION", "Conversion", "Findings", "Report", "RunOutput", "check_judgeable",
    "check_name", "clean_tag", "compare_command", "default_name", "escape_ids", "escaped",
    "given_name", "given_tag", "input_stem", "json_text", "make_qrels", "missing_options",
    "output_name", "qrels_summary", "ranked_run", "refuse_repeat", "run_naming", "sidecar_dict",
    "single_input_names", "unique_tag", "write_conversion",
]  # fmt: skip

# Cap on itemised entries of one kind in the sidecar; the counts stay exact.
MAX_ITEMS = 1000


@dataclass
class Report:
    """Everything a conversion dropped, repaired or noticed, for the sidecar.

    ``dropped`` and ``repaired`` hold one dict per item (``reason`` plus ids); ``counts``
    holds exact totals per reason even when the item lists are capped at ``MAX_ITEMS``.
    """

    dropped: list[dict] = field(default_factory=list)
    repaired: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    # entries listed per (bucket, reason): counts cannot say it (a reason may also be
    # counted without items, or be both dropped and repaired), and re-counting the
    # bucket on every call was quadratic (most of the time on 30k memorybench results)
    _listed: dict[tuple[str, str], int] = field(default_factory=dict, repr=False, compare=False)

    def _add(self, bucket: str, key: str, items: Iterable[dict]) -> None:
        items = list(items)
        if not items:
            return
        self.counts[key] = self.counts.get(key, 0) + len(items)
        listed = self._listed.get((bucket, key), 0)
        room = max(0, MAX_ITEMS - listed)
        getattr(self, bucket).extend({"reason": key, **item} for item in items[:room])
        self._listed[bucket, key] = listed + min(room, len(items))

    def drop(self, reason: str, items: Iterable[dict]) -> None:
        """Record items left out of the output, e.g. duplicate documents."""
        self._add("dropped", reason, items)

    def repair(self, reason: str, items: Iterable[dict]) -> None:
        """Record items changed on the way to the output, e.g. escaped whitespace in ids."""
        self._add("repaired", reason, items)

    def count(self, key: str, n: int) -> None:
        """Add ``n`` to a counter without itemising."""
        if n:
            self.counts[key] = self.counts.get(key, 0) + int(n)

    def note(self, text: str) -> None:
        """A sentence the user should read (printed by the CLI, kept in the sidecar)."""
        self.notes.append(text)

    def as_dict(self) -> dict:
        return {
            "counts": dict(sorted(self.counts.items())),
            "dropped": self.dropped,
            "repaired": self.repaired,
            "notes": self.notes,
        }
