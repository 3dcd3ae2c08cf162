"""What the findings of the per-line and per-topic checks say, written once.

The general path (:mod:`.runs`, :mod:`.run_topics`, :mod:`.qrels`) and the small path
(:mod:`.small`) find the same problems by different means (Arrow columns, Python lists);
the words come from here, so that both print the same bytes. Standard library only.
"""

from __future__ import annotations

from ..errors import excerpt_plain
from ..flag_wording import no_relevant_document
from ..plurals import counted


def quoted(text: str) -> str:
    """An id or tag read from the input, as a message quotes it: between single quotes, as
    read (cut as :func:`~trecbench.errors.excerpt_plain` cuts it), not as Python's ``repr``
    writes it. The printed finding escapes it as it escapes every id (``%XX``,
    :func:`~trecbench.escaping.escape_text`; ``unquote`` gives it back); a ``repr`` would add
    a second escaping (``a\\b``, ``\\xa0``) that ``unquote`` does not undo."""
    return f"'{excerpt_plain(text)}'"


def show(value: float) -> str:
    """A score as Python prints a double (the shortest text that reads back the same)."""
    return repr(float(value))


def run_line_comment(topic: str) -> str:
    """R22 of a ``#`` line of six fields or more: to trec_eval 9.x a document of topic
    ``topic`` (``#7``), which it scores as any other when the qrels judge the topic."""
    return (
        f"comment line: trec_eval 9.x reads it as a document of topic {excerpt_plain(topic)}, "
        "10.0 skips it"
    )


def not_q0(value: str) -> str:
    return f"field 2 is {quoted(value)}, expected 'Q0'"


def scientific(score: str) -> str:
    return f"score {excerpt_plain(score)} is in scientific notation"


def other_tag(value: str, first: str, number: int) -> str:
    """R17 of the file's ``number``-th distinct run tag (2 and on), ``value``."""
    return (
        f"run tag number {number} of the file, {quoted(value)} (the first: {quoted(first)}); "
        "trec_eval reports the tag of the last line only"
    )


def bad_tag(value: str) -> str:
    return f"tag {quoted(value)} is not 1-25 of A-Z a-z 0-9 _ . -"


def tag_not_name(value: str, expected: str) -> str:
    return f"tag {quoted(value)} differs from the file name {quoted(expected)}"


def too_deep(topic: str, depth: int) -> str:
    return (
        f"topic {excerpt_plain(topic)} has more than {counted(depth, 'document')} "
        f"({depth_setting(depth)}); trec_eval scores them all unless run with -M{depth}"
    )


def depth_setting(depth: int, setting: str = "--max-depth") -> str:
    """The setting R8's depth came from, as :func:`too_deep` names it: validate's flag, or
    the ``setting`` a caller gave it as (``validation.max_depth 50``: a benchmark's key)."""
    return f"{setting} {depth}"


def depth_renamed(message: str, depth: int, setting: str) -> str:
    """An R8 message (:func:`too_deep`) naming the caller's ``setting``, not validate's
    flag."""
    return message.replace(f"({depth_setting(depth)})", f"({depth_setting(depth, setting)})", 1)


# the setting R4's and R5's topics came from, in their messages: validate's flag
TOPICS_SETTING = "--topics"
TOPICS_PHRASES = ("is not in {}", "of {} has no document")


def topics_renamed(message: str, setting: str) -> str:
    """An R4 or R5 message naming the caller's ``setting`` (a benchmark's ``topics``
    key and file), not validate's flag."""
    for phrase in TOPICS_PHRASES:
        message = message.replace(phrase.format(TOPICS_SETTING), phrase.format(setting), 1)
    return message


def too_shallow(topic: str, documents: int, depth: int) -> str:
    """R9.shallow of a topic of ``documents`` documents, fewer than ``depth``."""
    shown = excerpt_plain(topic)
    return f"topic {shown} has {counted(documents, 'document')}, fewer than --min-depth {depth}"


def duplicate_docno(
    docno: str, topic: str, first_line: int, unit: str = "line", judged: bool = True
) -> str:
    """R7; ``unit``: what the file's line numbers are ("row" in a Parquet file).
    ``judged``: False when the qrels given do not hold the topic, which trec_eval (9.0.8
    and 10.0) then never evaluates, nor stops at: it said "trec_eval stops" beside X1's
    "trec_eval ignores it", where trec_eval and score printed their numbers."""
    found = (
        f"duplicate docno {excerpt_plain(docno)} in topic {excerpt_plain(topic)} "
        f"(first at {unit} {first_line})"
    )
    if not judged:
        return (
            f"{found}; the qrels do not judge the topic, so trec_eval ignores it rather than "
            "stop with 'duplicate docs'"
        )
    return f"{found}; trec_eval stops with 'duplicate docs' (exit 4)"


def bad_rank_start(topic: str, rank: int) -> str:
    base = " (zero-based?)" if rank == 0 else ""
    return f"ranks of topic {excerpt_plain(topic)} start at {rank}, not 1{base}"


def repeated_rank(topic: str, rank: int, other_line: int, unit: str = "line") -> str:
    """R11.unique; ``unit`` as :func:`duplicate_docno`'s."""
    return f"rank {rank} appears twice in topic {excerpt_plain(topic)} (also {unit} {other_line})"


def rank_gap(topic: str, before: int, rank: int) -> str:
    return f"ranks of topic {excerpt_plain(topic)} jump from {before} to {rank}"


def score_up(topic: str, score: float, previous: float) -> str:
    return (
        f"score {show(score)} is higher than the one before ({show(previous)}) in topic "
        f"{excerpt_plain(topic)}"
    )


def rank_against_score(topic: str, rank, score: float, before_rank, before_score: float) -> str:
    return (
        f"rank {rank} has a higher score ({show(score)}) than rank {before_rank} "
        f"({show(before_score)}) in topic {excerpt_plain(topic)}: trec_eval ranks by score, "
        "rank-based tools by rank"
    )


TIE = "share their score with another document"
FLOAT32_TIE = "tie with another only at float32 precision (trec_eval 9.x ties them, 10.0 does not)"


def ties(topic: str, tied: int, text: str, one_score: bool = False, parted: bool = False) -> str:
    """R15: ``tied`` of the topic's documents in a tie (``text``: :data:`TIE` or
    :data:`FLOAT32_TIE`); ``one_score``: every document of the topic has the same score
    (not only each a neighbour's); ``parted``: the topic was checked in parts (split into
    blocks far apart in a run too long to check them again whole), so ``tied`` counts ties
    within each part only."""
    topic = excerpt_plain(topic)
    if parted:
        return (
            f"at least {tied} documents of topic {topic} {text}, counted within each stretch "
            f"of the file (topic {topic} is split, R20); trec_eval orders tied documents by "
            "docno, descending"
        )
    if one_score and text == TIE:
        return (
            f"all {tied} documents of topic {topic} have the same score; trec_eval orders them "
            "by docno, descending"
        )
    return (
        f"{tied} documents of topic {topic} {text}; trec_eval orders tied documents by docno, "
        "descending"
    )


def descending_topic(topic: str, before: str) -> str:
    return (
        f"topic {excerpt_plain(topic)} after {excerpt_plain(before)}: topics are not in "
        "ascending order"
    )


def duplicate_judgment(
    docno: str, topic: str, first_line: int, a: str, b: str, unit: str = "line"
) -> str:
    """Q5 of two judgments of one document, graded ``a`` then ``b`` (as written, cut as
    every field a message quotes: a grade of thousands of digits, Q4's, as Q4 cuts it);
    ``unit`` as :func:`duplicate_docno`'s."""
    value, shown = _grade_value(a), (excerpt_plain(a), excerpt_plain(b))
    if a == b:
        grade = f"same grade {shown[0]}"
    elif value is not None and value == _grade_value(b):  # 1 and 01, as atol reads them
        grade = f"same grade {excerpt_plain(value)}, written {shown[0]} and {shown[1]}"
    else:
        grade = f"conflicting grades {shown[0]} and {shown[1]}"
    return (
        f"duplicate judgment of {excerpt_plain(docno)} for topic {excerpt_plain(topic)} "
        f"(first at {unit} {first_line}; {grade})"
    )


def _grade_value(text: str) -> str | None:
    """The grade trec_eval's ``atol`` (and trecbench) reads from ``text`` when it is an
    integer of ASCII digits, with a sign or leading zeros (``+1``, ``01``: Q3 says of
    them), in its shortest decimal (``1``; ``-0``: ``0``); None for any other text (Q3
    refuses it). Text, not ``int``: Python converts at most 4,300 digits, and a grade of
    more (Q4) stopped validate with an internal error."""
    digits = text[1:] if text.startswith(("+", "-")) else text
    if not (digits.isascii() and digits.isdigit()):
        return None
    digits = digits.lstrip("0") or "0"
    return "-" + digits if text.startswith("-") and digits != "0" else digits


def no_relevant(topic: str, level: int, graded: bool) -> str:
    """Q7: ``topic`` has no document of grade ``level`` or more (``graded``: some of a
    positive grade below it)."""
    return no_relevant_document(excerpt_plain(topic), level, graded)


def block_tag_differs(block, tag: str) -> str:
    """R30.tag: the ir_metadata block names a tag the run's lines do not have (``block``
    as YAML read it: a list or mapping is no tag at all)."""
    if isinstance(block, (list, dict)):
        kind = "a list" if isinstance(block, list) else "a mapping"
        return f"the ir_metadata block's tag is {kind}, not the run's tag {quoted(tag)}"
    return (
        f"the ir_metadata block's tag {quoted(str(block))} is not the run's tag "
        f"{quoted(tag)}: the block describes another run, or the tag changed since"
    )
