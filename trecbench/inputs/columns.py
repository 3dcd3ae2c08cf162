"""Which of a table's columns (a DataFrame's, an Arrow table's, dict records' keys) play
each role of a run or qrels: the accepted names (trec, ir_measures, ranx, BEIR: see
:mod:`trecbench.inputs.tables`), two names for one role refused, and a run's columns given
as qrels refused."""

from __future__ import annotations

from ..errors import InputError, UsageError, excerpt, shortened
from ..escaping import id_list

QID_NAMES = ("qid", "query_id", "q_id", "query-id")
DOCNO_NAMES = ("docno", "doc_id", "docid", "corpus-id")
SCORE_NAMES = ("score",)
REL_NAMES = ("rel", "relevance", "label", "score")
SUBTOPIC_NAMES = ("iter", "iteration", "subtopic_id")  # ir_datasets' TrecSubQrel's last


class HeldColumnError(UsageError):
    """A column missing or named twice in a table the caller built (exit 1), which keeps
    the table's ``origin`` apart from the ``detail`` so that a run among several can be
    named (:func:`trecbench.inputs.held.naming`: ``run 'dense' (run DataFrame): ...``)."""

    def __init__(self, origin: str, detail: str):
        self.origin, self.detail = origin, detail
        super().__init__(f"{origin}: {detail}")


def column_error(origin: str, file: bool, message: str) -> InputError | UsageError:
    """A column missing or named twice: bad input in a file read (exit 2), a usage error
    in a table the caller built (exit 1)."""
    return InputError(origin, None, message) if file else HeldColumnError(origin, message)


def pick_column(
    columns: list[str], names: tuple[str, ...], role: str, origin: str, file=False, noun="column"
) -> str | None:
    """Which of ``columns`` names the ``role`` (one of ``names``), or None; two of them
    are ambiguous and refused (``file``: read from a file, bad input; ``noun``: a column's)."""
    present = [name for name in names if name in columns]
    if "docid" in present and len(present) > 1:
        # PyTerrier's frames: docid is Terrier's internal number, beside the docno under
        # any of its names (renamed doc_id for ir_measures), whatever its type
        present.remove("docid")
    if len(present) > 1:
        raise column_error(origin, file, f"{noun}s {present} all name the {role}; keep one")
    return present[0] if present else None


def need_column(
    columns: list[str], names: tuple[str, ...], role: str, origin: str, file=False, noun="column"
) -> str:
    """:func:`pick_column`'s column, which must be there: none is refused naming ``names``
    and the columns there are."""
    name = pick_column(columns, names, role, origin, file, noun)
    if name is None:
        shown = _listed(columns)
        message = f"no {role} {noun} (one of {', '.join(names)}); {noun}s: {shown}"
        raise column_error(origin, file, message)
    return name


# `score` names a qrels' grades in ranx's and BEIR's frames alone (q_id, query-id): beside
# other query ids, or a run's rank, tag or Q0, it is a run's score, whose integral values
# were read as grades (a run given where the qrels go, scored against itself)
_QRELS_SCORE_IDS = ("q_id", "query-id")
_RUN_COLUMNS = ("rank", "tag", "Q0")


def refuse_a_run(
    columns: list[str], roles: tuple[str, str, str], origin: str, file: bool, noun: str
) -> None:
    """Refuse, naming the columns expected, a run's columns given as qrels (``roles``:
    the query id's, document id's and grade's columns picked)."""
    qid_name, doc_name, rel_name = roles
    if rel_name != "score":
        return
    if qid_name in _QRELS_SCORE_IDS and not set(_RUN_COLUMNS) & set(columns):
        return
    shown = _listed(columns)
    raise column_error(
        origin,
        file,
        f"{noun}s {shown} are a run's, not qrels': give the grades as {qid_name}, "
        f"{doc_name}, rel (or relevance, label; score only beside ranx's q_id or BEIR's "
        "query-id, without rank or tag)",
    )


def _listed(columns: list) -> str:
    """The ``columns`` a file or table has, every one, as an error lists them: each name
    escaped as a list's item (:func:`~trecbench.escaping.id_list`: a line break or a
    ``, `` of a Parquet or CSV header as ``%XX``, reversibly), the list cut where long."""
    return shortened(id_list(columns, limit=None))


# the columns a table's reading may look up by name (any other is left unread)
_READ = (*QID_NAMES, *DOCNO_NAMES, *SCORE_NAMES, *REL_NAMES, *SUBTOPIC_NAMES, "tag", "line")


def refuse_named_twice(names: list[str], origin: str, file: bool, noun: str) -> None:
    """Refuse two columns of one name that is read (an Arrow table may hold them:
    looking one up raised Arrow's KeyError), as a DataFrame's are refused; two of a name
    left unread are left."""
    seen: set[str] = set()
    for name in names:
        if name in seen and name in _READ:
            raise column_error(origin, file, f"two {noun}s are named {excerpt(name)}; keep one")
        seen.add(name)
