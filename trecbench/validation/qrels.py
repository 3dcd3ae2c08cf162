"""The qrels checker: Q1-Q11 (and the shared encoding and line rules), and the
:class:`~.cross_checks.QrelsInfo` that run checks compare against."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import excerpt_plain
from ..inputs import trec_text
from ..inputs.trec_text import QRELS_FIELDS, Tokens
from ..trec_eval.clib import c_atol
from . import wording
from .checker import Checker, pair_text
from .findings import Collector, QrelsInfo
from .runs import joined_fields

NO_GRADE = np.iinfo(np.int64).min  # the "highest grade" of a topic without a valid one

# the checks of what trec_eval stops reading qrels at ('Malformed line', 'Cannot read qrels
# file'; Q1 but on a first-column comment, which 10.0 skips): the runs of the call are not
# checked against such qrels (X1-X5)
UNREAD_AT = ("Q1", "Q2", "R9.empty", "R26")


class QrelsChecker(Checker):
    kind = "qrels"
    field_names = QRELS_FIELDS
    swapped_check = "Q11"
    duplicate_numbers = 2  # the first judgment's line and grade (as written: its number)

    def __init__(self, path: str, report: Collector, relevance_level: int, collect_judged: bool):
        super().__init__(path, report)
        self.relevance_level = relevance_level
        self.collect_judged = collect_judged
        self.max_grade: dict[str, int] = {}
        self.first_line: dict[str, int] = {}
        self.judged: list[pa.Array] = []
        # each grade as written, numbered as it first comes (a duplicate's first grade is
        # kept as its number, for the earlier chunks)
        self.grade_numbers: dict[str, int] = {}
        self.grade_texts: list[str] = []
        self.last_comment_line = -1
        self.comment_run = 0  # first-column comment lines in the run that line ended
        self.last_record_line = -1
        # malformed lines (Q1) but first-column comments, which trec_eval 10.0 skips:
        # both trec_evals stop at one (UNREAD_AT)
        self.malformed = 0

    @property
    def topic_count(self) -> int:
        return len(self.max_grade)

    def _blank(self, lines: np.ndarray) -> None:
        self.report.add_many(
            "Q2", lines, "line", lambda _: "blank line (trec_eval stops: 'Malformed line')"
        )

    def _places_in_runs(self, commented: np.ndarray) -> np.ndarray:
        """The 0-based place of each first-column comment line (``commented``, line
        numbers) in its run of consecutive ones, a run carried on from the last chunk: 10.0
        skips the first of a run, reads the second as data, skips the third..."""
        follows = np.diff(commented, prepend=self.last_comment_line) == 1
        index = np.arange(len(commented))
        start = np.maximum.accumulate(np.where(follows, 0, index)) if len(index) else index
        place = index - start
        carried = np.cumsum(~follows) == 0  # the run the last chunk ended in, going on
        place[carried] += self.comment_run
        return place

    def _rows(self, tokens: Tokens) -> None:
        fields, nf, line = tokens.fields, tokens.nfields, tokens.line
        comment, header = self._classify(tokens, 3)
        add = self.report.add_many
        # 10.0 skips a '#' in the first column only: after blanks it is data to both
        after_blanks = comment & np.isin(line, tokens.leading_blank_lines)
        indented, commented = line[after_blanks], line[comment & ~after_blanks]
        add(
            "Q8.comment",
            commented,
            "line",
            lambda _: "comment line (trec_eval 9.x reads it as data; 10.0 skips it)",
        )
        add(
            "Q8.comment",
            indented,
            "line",
            lambda _: (
                "'#' after leading blanks: a judgment to trec_eval 9.x and 10.0 alike (10.0 "
                "skips only a '#' in the first column)"
            ),
        )
        place = self._places_in_runs(commented)
        add(
            "Q8.fatal",
            commented[place % 2 == 1],
            "line",
            lambda _: (
                "comment line at an even place in a run of them (trec_eval 10.0 skips every "
                "other one and reads this one as data)"
            ),
        )
        if len(commented):
            self.last_comment_line, self.comment_run = int(commented[-1]), int(place[-1]) + 1
        self.last_record_line = int(line[-1])
        for row in np.flatnonzero(header):
            self.report.add(
                "Q9", int(line[row]), "line", "header line: TREC qrels have no header; remove it"
            )
        self.records += int(np.count_nonzero(~comment & ~header))
        self.read_as_data += int(np.count_nonzero(~header))
        # comment lines stay data: trec_eval 9.x reads them as it reads any other line
        wrong = np.flatnonzero((nf != 4) & ~header)

        def wrong_message(i: int) -> str:
            row = wrong[i]
            hint = ""
            joined = nf[row] < 4 and joined_fields(fields, row, min(int(nf[row]), len(fields)))
            if comment[row] and not after_blanks[row]:
                hint = " (a comment line: trec_eval 9.x reads it as data, 10.0 skips it)"
            elif comment[row]:  # 10.0 skips a '#' in the first column only
                hint = " (a '#' after blanks: data to trec_eval 9.x and 10.0 alike)"
            elif joined:  # 'q1<NBSP>0 a 1' was hinted "a 3-column BEIR qrels?"
                hint = joined
            elif nf[row] == 3:
                hint = trec_text.BEIR_HINT
            return f"expected 4 fields (qid iter docno rel), found {nf[row]}{hint}"

        add("Q1", line[wrong], "line", wrong_message)
        self.malformed += int(np.count_nonzero(~(comment & ~after_blanks)[wrong]))
        data = (nf == 4) & ~header
        if not data.any():
            return
        index = arrow.array(np.flatnonzero(data))
        qid, _, docno, rel = (pc.take(f, index) for f in fields[:4])
        self._judgments(qid, docno, rel, line[data])

    def _judgments(self, qid: pa.Array, docno: pa.Array, rel: pa.Array, line: np.ndarray):
        add = self.report.add_many
        integer, small, grades, too_big = trec_text.parse_grades(rel)
        bad = np.flatnonzero(~integer)
        add(
            "Q3",
            line[bad],
            "rel",
            lambda i: (
                f"grade {wording.quoted(rel[int(bad[i])].as_py())} is not an integer "
                f"(trec_eval's atol reads it as {c_atol(rel[int(bad[i])].as_py())})"
            ),
        )
        # a grade too large is refused (Q4): what atol would read of it is no matter
        plus = np.flatnonzero(integer & ~too_big & arrow.to_numpy(pc.starts_with(rel, "+")))

        def plus_message(i: int) -> str:
            text = rel[int(plus[i])].as_py()
            read = text[1:].lstrip("0") or "0"
            return (
                f"grade {excerpt_plain(text)} has a leading '+', outside the grade grammar "
                f"^-?[0-9]+$ (trec_eval's atol, and trecbench, read it as {excerpt_plain(read)})"
            )

        add("Q3.plus", line[plus], "rel", plus_message)
        huge = np.flatnonzero(too_big)
        add(
            "Q4",
            line[huge],
            "rel",
            lambda i: (
                f"grade {excerpt_plain(rel[int(huge[i])].as_py())} "
                f"{trec_text.grade_beyond(rel[int(huge[i])].as_py())}"
            ),
        )
        negative = np.flatnonzero(small & (grades < 0))
        add(
            "Q6",
            line[negative],
            "rel",
            lambda i: (
                f"negative grade {grades[negative[i]]}: trec_eval reads the document as in "
                "the pool but unjudged (not relevant, not judged non-relevant: bpref and -J "
                "leave it out)"
            ),
        )
        # a grade that is no integer (Q3) as trec_eval's atol reads it (1.5 as 1): a topic
        # judged 1.5 and -1 was said to be judged only negatively (a false Q10)
        read, small = grades.copy(), small | ~integer
        read[bad] = [c_atol(rel[int(row)].as_py()) for row in bad]
        encoded = pc.dictionary_encode(qid)
        codes = arrow.to_numpy(encoded.indices).astype(np.int64)
        names = encoded.dictionary.to_pylist()
        repeats, first = self._duplicates_of(
            encoded.dictionary, codes, docno, line, notes=self._grade_numbers(rel)
        )

        def duplicate(i: int) -> str:
            row, (at, grade) = int(repeats[i]), first[i]
            topic, docid = names[codes[row]], docno[row].as_py()
            again = rel[row].as_py()
            return wording.duplicate_judgment(
                docid, topic, at, self.grade_texts[grade], again, self.unit
            )

        add("Q5", line[repeats], "docno", duplicate)
        # per topic: the highest grade and the first line, merged one by one only for the
        # topics an earlier chunk held too (a sorted file's chunks share one at most)
        top = np.full(len(names), NO_GRADE)
        np.maximum.at(top, codes[small], read[small])
        starts = np.full(len(names), np.iinfo(np.int64).max)
        np.minimum.at(starts, codes, line)
        earlier = {name: (self.max_grade[name], self.first_line[name])
                   for name in self.max_grade.keys() & names}  # fmt: skip
        self.max_grade.update(zip(names, top.tolist(), strict=True))
        self.first_line.update(zip(names, starts.tolist(), strict=True))
        for name, (grade, start) in earlier.items():
            self.max_grade[name] = max(grade, self.max_grade[name])
            self.first_line[name] = start
        if self.collect_judged:
            judged = small & (read >= 0)
            index = arrow.array(np.flatnonzero(judged))
            self.judged.append(pair_text(pc.take(qid, index), pc.take(docno, index)))

    def _grade_numbers(self, rel: pa.Array) -> np.ndarray:
        """Each row's grade as written, as its number in :attr:`grade_texts`."""
        encoded = pc.dictionary_encode(rel)
        numbers = []
        for text in encoded.dictionary.to_pylist():  # the distinct grades: a few
            if text not in self.grade_numbers:
                self.grade_numbers[text] = len(self.grade_texts)
                self.grade_texts.append(text)
            numbers.append(self.grade_numbers[text])
        return np.array(numbers, np.int64)[arrow.to_numpy(encoded.indices)]

    def finish(self) -> None:
        if self._settle():
            return
        self._finish_file()
        if self.cut_short:  # broke off (R27): the rest of a topic, the last line, unread
            return
        if self.physical and self.read_as_data == 0:
            self.report.add("R9.empty", None, None, "no judgments")
        if self.last_record_line >= 0 and self.last_comment_line == self.last_record_line:
            self.report.add(
                "Q8.fatal",
                self.last_record_line,
                "line",
                "comment on the last line (trec_eval 10.0 fails or misreads it)",
            )
        negative = [q for q, g in self.max_grade.items() if NO_GRADE < g < 0]
        self.report.add_many(
            "Q10",
            [self.first_line[q] for q in negative],
            "qid",
            lambda i: (
                f"every judgment of topic {excerpt_plain(negative[i])} is negative: trec_eval "
                "9.0.8 stops ('Can't calculate measure', exit 4) when it is the first topic of "
                "a run it evaluates"
            ),
        )
        level = self.relevance_level
        unjudged = [q for q, g in self.max_grade.items() if 0 <= g < level]
        self.report.add_many(
            "Q7",
            [self.first_line[q] for q in unjudged],
            "qid",
            lambda i: wording.no_relevant(unjudged[i], level, self.max_grade[unjudged[i]] > 0),
        )

    def _stops_at(self, key: str) -> bool:
        """Whether both trec_evals stop reading the file at check ``key``'s findings."""
        return self.malformed > 0 if key == "Q1" else self.report.checks[key] > 0

    def info(self) -> QrelsInfo | None:
        """What run checks compare against; None when the file was not read as qrels
        (UTF-16, doubly gzipped, or a run given as qrels)."""
        if self.refused:
            return None
        judged = None
        if self.collect_judged:
            judged = (
                pa.concat_arrays(self.judged) if self.judged else arrow.array([], pa.large_string())
            )
        negative = {q: g for q, g in self.max_grade.items() if NO_GRADE < g < 0}
        unread_at = next((key for key in UNREAD_AT if self._stops_at(key)), None)
        return QrelsInfo(
            set(self.max_grade), judged, negative, not self.cut_short, unread_at=unread_at
        )
