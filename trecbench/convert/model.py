"""What a converter builds: a :class:`Conversion` (qrels tables by name, the runs as
:class:`RunOutput`, the sidecar's content) and what it records its findings in
(:class:`Findings`, implemented by :class:`trecbench.convert.common.Report`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import pandas as pd


class Findings(Protocol):
    """Where a conversion records what it dropped, repaired or noticed
    (:class:`trecbench.convert.common.Report`)."""

    def drop(self, reason: str, items: Iterable[dict]) -> None: ...

    def repair(self, reason: str, items: Iterable[dict]) -> None: ...

    def count(self, key: str, n: int) -> None: ...

    def note(self, text: str) -> None: ...

    def as_dict(self) -> dict: ...


@dataclass
class RunOutput:
    """One run to write as ``<name>.run``, judged against the qrels called ``qrels``."""

    tag: str
    # its file's name before .run: the tag, or the input file's name it was read from
    # (convert.identifiers.run_naming)
    name: str
    table: pd.DataFrame  # qid, docno, rank, score, tag (written order)
    original_scores: list[float | None] | None  # None: the producer gave no scores
    qrels: str | None  # None: converted without qrels
    stats: dict
    source: str | None = None  # the file it was read from, if not the conversion's input


@dataclass
class Conversion:
    """The result of a converter: qrels tables by name, runs, and the sidecar content."""

    def __repr__(self) -> str:  # its tables and report printed whole: 54,000 characters
        from ..plurals import few_reprs, short_repr

        runs = few_reprs([run.tag for run in self.runs])
        return (
            f"Conversion(name={short_repr(self.name)}, converter={self.converter!r}, "
            f"qrels={few_reprs(list(self.qrels))}, runs={runs})"
        )

    name: str
    converter: str
    qrels: dict[str, pd.DataFrame]
    runs: list[RunOutput]
    report: Findings
    strata: pd.DataFrame | None = None  # qid + one string column per stratum field
    provenance: dict = field(default_factory=dict)
    qrels_info: dict[str, dict] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)  # converter-specific sidecar keys
    ir_metadata: dict[str, Any] | None = None  # written atop every run (convert --ir-metadata)
    # the input a qrels table was read from, where it is not the main one (errors name it)
    qrels_sources: dict[str, str] = field(default_factory=dict)
    # the line where a qrels table's query is first read in its input, by the query's id as
    # the table holds it (escaped), where the reader can tell (looked up on errors only)
    qrels_lines: dict[str, Callable[[str], int | None]] = field(default_factory=dict)
    # the order tied scores keep: what the producer ranked, or, for a dict (which has no
    # order but its scores), pytrec_eval's
    tie_order: str = "producer order"

    @property
    def source(self) -> str:
        """The path of the main input (what errors about the whole conversion name)."""
        inputs = self.provenance.get("inputs") or [{}]
        return str(inputs[0].get("path", self.name))
