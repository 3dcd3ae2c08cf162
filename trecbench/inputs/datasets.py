"""Qrels of an ir_datasets dataset (``irds:msmarco-passage/dev/small``), as ir_measures
reads them: the optional extra ``trecbench[datasets]`` installs ir_datasets.

ir_datasets downloads a dataset's files on first use (into ``$IR_DATASETS_HOME``, by
default ``~/.ir_datasets``) and reads them from there afterwards. Its log lines (usage
agreements, download retries) are kept off stderr; when the download fails, the error
names the file and where ir_datasets looks for a local copy (its log names a large
file's; a small file's is read off the failed download), else the dataset's page.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import logging
import os
import re

import pyarrow as pa

from .. import extras
from ..errors import InputError, TrecbenchError
from . import records

PREFIX = "irds:"


# said where an ``irds:ID`` names no file and the input is no qrels (a run, validate's)
NOT_QRELS_HERE = (
    "an ir_datasets id, irds:ID, names qrels: score, compare, power and agree read it as "
    "their QRELS, a leaderboard suite as a collection's qrels, the library's readers and "
    "trecbench.evaluate as qrels; not a run, nor what validate reads"
)


def is_dataset_id(text: str) -> bool:
    """Whether a qrels argument names an ir_datasets dataset: ``irds:ID`` always; a bare
    ``ID`` when it is no file and ir_datasets is installed (as ir_measures decides). ``-``
    is standard input, never a dataset id (``score - run.txt < qrels.txt``)."""
    if text.startswith(PREFIX):
        return True
    if text in ("-", ""):  # an empty name is no id either: the file's reader says it
        return False
    return not os.path.exists(text) and importlib.util.find_spec("ir_datasets") is not None


def qrels_table(text: str) -> pa.Table:
    """The typed qrels table of dataset ``text`` (``irds:ID`` or ``ID``)."""
    dataset_id = text.removeprefix(PREFIX)
    ir_datasets = extras.require("ir_datasets", f"{text}: reading qrels from ir_datasets")
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise _unreadable(text, "no such file, nor an ir_datasets dataset") from None
    if not dataset.has_qrels():
        raise _unreadable(text, "this ir_datasets dataset has no qrels")
    with _captured_log() as log:
        qrels = dataset.qrels_iter()
        try:
            first = next(qrels, None)
        except TrecbenchError:
            raise
        except Exception as error:  # noqa: BLE001 - any downloader failure is this input's
            raise _unavailable(text, error, log, ir_datasets) from None
        found = itertools.chain([first], qrels) if first is not None else iter(())
        return records.to_table(found, "qrels", f"{PREFIX}{dataset_id}")


def _unreadable(text: str, message: str) -> InputError:
    """``text: message``, why the dataset's qrels cannot be read, kept as the error's
    ``reason`` too: a suite or configuration naming the dataset says it at its setting's
    line (:meth:`~trecbench.errors.InputError.unreadable_reason`)."""
    error = InputError(text, None, message)
    error.reason = message
    return error


class _Kept(logging.Filter):
    """Keeps ir_datasets' log records instead of letting its handler print them."""

    def __init__(self):
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        self.records.append(record)
        return False


@contextlib.contextmanager
def _captured_log():
    """ir_datasets' logger (``ir_datasets``, its own handler) silenced for the call, its
    records kept for the error message."""
    logger, kept = logging.getLogger("ir_datasets"), _Kept()
    logger.addFilter(kept)
    try:
        yield kept.records
    finally:
        logger.removeFilter(kept)


_LOCAL_COPY = re.compile(r"local copy of (\S+), you can symlink it here [^:]*: (\S+)")


def _unavailable(text: str, error: Exception, log, ir_datasets) -> InputError:
    """One line: the dataset needs a download that failed, and where a local copy goes:
    the place ir_datasets' log names (a large file's), else the file the failed download
    was to write (:func:`_failed_download`), else the dataset's page that lists them."""
    messages = [record.getMessage() for record in log]
    places = [(m[1], m[2]) for m in map(_LOCAL_COPY.search, messages) if m]
    places += _failed_download(error, ir_datasets)
    home = ir_datasets.util.home_path()
    if places:
        where = f"a copy of {places[0][0]} at {places[0][1]}"
    else:
        page = f"https://ir-datasets.com/{text.removeprefix(PREFIX).split('/')[0]}.html"
        where = f"its files (listed at {page}) in {home}"
    reason = " ".join(f"{type(error).__name__}: {error}".split())
    reason = reason if len(reason) <= 80 else reason[:77] + "..."
    return _unreadable(
        text,
        f"ir_datasets must download this dataset's qrels and could not ({reason}); "
        f"put {where} (ir_datasets looks under $IR_DATASETS_HOME, here {home})",
    )


def _failed_download(error: Exception, ir_datasets) -> list[tuple[str, str]]:
    """``(url, path)``: the file ir_datasets failed to download and where it keeps it, read
    off the download that raised ``error`` (a small file, ``vaswani``'s ``npl.tar.gz``, is
    never named in its log); none when the download had no place of its own (a temporary
    file) or ir_datasets' downloader is not as this reads it."""
    download_class = getattr(ir_datasets.util.download, "Download", None)
    trace = error.__traceback__
    while trace is not None:
        frame = trace.tb_frame
        download = frame.f_locals.get("self")
        if download_class is not None and isinstance(download, download_class):
            path = getattr(download, "_cache_path", None)
            urls = [getattr(mirror, "url", None) for mirror in getattr(download, "mirrors", ())]
            urls = [url for url in urls if isinstance(url, str)]
            return [(urls[0], str(path))] if path is not None and urls else []
        trace = trace.tb_next
    return []
