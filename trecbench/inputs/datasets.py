"""Qrels of an ir_datasets dataset (``irds:msmarco-passage/dev/small``), as ir_measures
reads them: the optional extra ``trecbench[datasets]`` installs ir_datasets.

ir_datasets downloads a dataset's files on first use (into ``~/.ir_datasets``) and reads
them from there afterwards.
"""

from __future__ import annotations

import importlib.util
import os

import pyarrow as pa

from .. import extras
from ..errors import InputError
from . import records

PREFIX = "irds:"


def is_dataset_id(text: str) -> bool:
    """Whether a qrels argument names an ir_datasets dataset: ``irds:ID`` always; a bare
    ``ID`` when it is no file and ir_datasets is installed (as ir_measures decides)."""
    if text.startswith(PREFIX):
        return True
    return not os.path.exists(text) and importlib.util.find_spec("ir_datasets") is not None


def qrels_table(text: str) -> pa.Table:
    """The typed qrels table of dataset ``text`` (``irds:ID`` or ``ID``)."""
    dataset_id = text.removeprefix(PREFIX)
    ir_datasets = extras.require("ir_datasets", f"{text}: reading qrels from ir_datasets")
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(text, None, "no such file, nor an ir_datasets dataset") from None
    if not dataset.has_qrels():
        raise InputError(text, None, "this ir_datasets dataset has no qrels")
    return records.to_table(dataset.qrels_iter(), "qrels", f"{PREFIX}{dataset_id}")
