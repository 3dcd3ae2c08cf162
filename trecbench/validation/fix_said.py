"""What ``validate --fix`` says of the changes it makes that alter what trec_eval computes
of the run as given: the cut at ``--max-depth`` and the tag trec_eval reports as
``runid``."""

from __future__ import annotations


def cut_said(max_depth: int | None, split: int) -> str:
    """The change of the documents cut at ``max_depth``: what trec_eval gives the fixed
    run, and where 10.0 may not (``split`` topics whose cut splits a float32-only tie)."""
    said = f"trec_eval 9.x scores the fixed run as the run given with -M {max_depth}"
    if split:
        said += (
            f"; the cut splits scores equal as float32, not as doubles, in {split:,} "
            f"{'topic' if split == 1 else 'topics'}: trec_eval 10.0, which compares doubles, "
            f"may keep others with -M {max_depth}"
        )
    return f"dropped documents beyond --max-depth {max_depth} ({said})"


def runid_said(before_9x: str, before_10: str, after: str) -> str:
    """The change of the tag trec_eval reports as ``runid`` (the last line's) that the new
    order or a line dropped makes ("" for none): mixed tags, a warning under ``lenient``,
    let tagA become tagB unsaid. ``before_9x``: the last tag 9.x reads (a comment line of
    6 fields is a document to it), ``before_10``: 10.0's (it skips comment lines)."""
    from ..escaping import escape_text

    who, before = "trec_eval's", escape_text(before_9x)
    if before_9x == before_10 == after:
        return ""
    if before_9x != before_10:
        if before_10 == after:
            who = "trec_eval 9.x's"
        elif before_9x == after:
            who, before = "trec_eval 10.0's", escape_text(before_10)
        else:
            before = f"{before} (9.x), {escape_text(before_10)} (10.0)"
    return f"changed {who} runid (the last line's tag): {before} -> {escape_text(after)}"
