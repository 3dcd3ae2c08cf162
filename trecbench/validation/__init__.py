"""Validation of TREC runs and qrels: the rules of ``docs/validate-rules.md`` as findings.

Where things are:

* :mod:`.rules`: every check once, as data: rule id, severity per profile (``default``,
  ``strict``, ``lenient``, ``rtask``), summary and documentation; the profiles;
* :mod:`.api`: :func:`validate_run`, :func:`validate_qrels`, :func:`validate_files`,
  :func:`check_tokens`, :func:`validate_tokens`;
* :mod:`.reader`: files streamed chunk by chunk into a checker; topics files;
* :mod:`.checker`: what run and qrels checkers share (encoding, comments, headers,
  duplicates); :mod:`.runs` and :mod:`.run_topics`: the run checker and its per-topic
  checks; :mod:`.qrels`: the qrels checker; :mod:`.cross_checks`: a run against
  ``--topics`` and qrels;
* :mod:`.findings`: :class:`Finding`, :class:`ValidationResult` and the capped collector;
  :mod:`.report`: text and JSON; :mod:`.fix`: ``--fix``; :mod:`.docs`: the rule page.

Line numbers are physical and 1-based (blank and comment lines count); trec_eval's own
"Malformed line N" counts content lines only.
"""

from __future__ import annotations

from .api import (
    check_regex,
    check_tokens,
    run_name,
    validate_files,
    validate_qrels,
    validate_run,
    validate_tokens,
)
from .cross_checks import qrels_info
from .findings import DEFAULT_LIMIT, Finding, QrelsInfo, ValidationResult
from .fix import Change, UnfixableError, fix_run
from .reader import CHUNK_BYTES, read_topics
from .rules import CHECKS, FIXABLE, PROFILE_DEPTH, PROFILES, SEVERITIES, Check, Profile

__all__ = [
    "CHECKS",
    "CHUNK_BYTES",
    "DEFAULT_LIMIT",
    "FIXABLE",
    "PROFILES",
    "PROFILE_DEPTH",
    "SEVERITIES",
    "Change",
    "Check",
    "Finding",
    "Profile",
    "QrelsInfo",
    "UnfixableError",
    "ValidationResult",
    "check_regex",
    "check_tokens",
    "fix_run",
    "qrels_info",
    "read_topics",
    "run_name",
    "validate_files",
    "validate_qrels",
    "validate_run",
    "validate_tokens",
]
