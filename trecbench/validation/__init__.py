"""Validation of TREC runs and qrels: the rules of ``docs/validate-rules.md`` as findings.

Where things are:

* :mod:`.rules`: every check once, as data: rule id, severity per profile (``default``,
  ``strict``, ``lenient``, ``rtask``), summary and documentation; the profiles;
* :mod:`.api`: :func:`validate_run`, :func:`validate_qrels`, :func:`validate_files`,
  :func:`check_tokens`, :func:`validate_tokens` (:class:`TokenChecker` for chunks);
* :mod:`.reader`: files streamed chunk by chunk into a checker; topics files;
* :mod:`.checker`: what run and qrels checkers share (encoding, comments, headers,
  duplicates); :mod:`.runs` and :mod:`.run_topics`: the run checker and its per-topic
  checks; :mod:`.qrels`: the qrels checker; :mod:`.cross_checks`: a run against
  ``--topics``, qrels, its file name and ``--min-depth``; :mod:`.docids`: ``--docids``
  (R6); :mod:`.topic_order`: R20.order's verdict, for both paths and ``--fix``;
* :mod:`.small`: the same findings for small plain files, with Python lists (no Arrow,
  no numpy; ``validate``'s small-input path); :mod:`.wording`: what both paths' findings
  say;
* :mod:`.findings`: :class:`Finding`, :class:`ValidationResult` and the capped collector;
  :mod:`.report`: text and JSON; :mod:`.fix`: ``--fix``; :mod:`.docs`: the rule page.

Line numbers are physical and 1-based (blank and comment lines count); trec_eval's own
"Malformed line N" counts content lines only.

The names below are imported when first used: the small path (:mod:`.small`, for the
``validate`` of a small plain file) imports neither Arrow nor numpy, which the streamed
checkers need.
"""

from __future__ import annotations

from ..lazy import lazy_exports

# each public name and the module of this package that defines it
_HOMES = {
    "TokenChecker": "api",
    "check_regex": "api",
    "check_tokens": "api",
    "validate_files": "api",
    "validate_qrels": "api",
    "validate_run": "api",
    "validate_tokens": "api",
    "file_name": "cross_checks",
    "DocidList": "docids",
    "read_docids": "docids",
    "run_name": "cross_checks",
    "qrels_info": "cross_checks",
    "DEFAULT_LIMIT": "findings",
    "Finding": "findings",
    "QrelsInfo": "findings",
    "ValidationResult": "findings",
    "Change": "fix",
    "UnfixableError": "fix",
    "fix_run": "fix",
    "CHUNK_BYTES": "reader",
    "read_topics": "reader",
    "CHECKS": "rules",
    "FIXABLE": "rules",
    "PROFILE_DEPTH": "rules",
    "PROFILES": "rules",
    "SEVERITIES": "rules",
    "Check": "rules",
    "Profile": "rules",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(globals(), _HOMES)
