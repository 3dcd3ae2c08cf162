"""validate on a full TMPDIR (reviewer 456): the duplicate check's keys that cannot go to
their temporary file are one clear line, not numpy's "N requested and M written"."""

from __future__ import annotations

import errno
import tempfile

import pytest

from trecbench.cli import run
from trecbench.errors import ExitCode, OutputError

# topic 1 comes back after topic 2: its keys are looked up, those of earlier chunks
# held past a budget of 1 MiB (none in memory) go to a temporary file
SCATTERED = b"".join(f"{q} Q0 d{d} {d} {9 - d} t\n".encode() for q in "121" for d in (1, 2, 3))


def test_a_full_tmpdir_for_the_duplicate_keys_is_one_line_naming_it(tmp_path, monkeypatch, capfd):
    """numpy's tofile on a full disk raises an OSError without errno ("N requested and
    M written"), as it does on /dev/full: the command says the folder and why, exit 2
    (an output that cannot be written), nothing on stdout."""
    path = tmp_path / "scattered.run"
    path.write_bytes(SCATTERED)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # every temporary file is on a full disk
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda **_: open("/dev/full", "w+b"))  # noqa: SIM115
    code = run(["validate", str(path), "--memory", "1", "--quiet"])
    out, err = capfd.readouterr()
    assert (code, out) == (ExitCode.INPUT, "")
    assert err == (
        f"trecbench: {tmp_path}: cannot write the duplicate check's temporary file (No space "
        "left on device); free space in TMPDIR, point TMPDIR to a larger folder, or give a "
        "larger --memory\n"
    )


def test_a_split_topic_s_rank_sequence_is_not_checked_per_stretch(tmp_path, monkeypatch):
    """Without the rows kept (a full disk), a split topic's first stretch was checked for
    gaps as if it were the whole topic: two shards concatenated (odd ranks, then even
    ones) gave "ranks jump from 1 to 3", or not, by the chunk size. A stretch tells its
    repeated ranks only: none here, whatever the chunks, as the whole file says."""
    from trecbench.validation import split_topics, validate_run

    def no_space(*_):
        raise OSError(errno.ENOSPC, "No space left on device")

    shard = "".join(f"{q} Q0 d{q}-{r} {r} {9 - r} t\n" for q in (1, 2) for r in (1, 3))
    other = "".join(f"{q} Q0 d{q}-{r} {r} {9 - r} t\n" for q in (1, 2) for r in (2, 4))
    path = tmp_path / "shards.run"
    path.write_text(shard + other)
    whole = validate_run(path, profile="strict").findings
    assert sorted({f.check for f in whole}) == ["R13", "R20.order", "R20.split"]
    monkeypatch.setattr(split_topics, "MEMORY_ROWS", 0)
    monkeypatch.setattr(split_topics._Files, "write", no_space)
    for chunk_bytes in (1, 20, 40, 60, 100):  # topics 1 and 2 split across chunks
        found = validate_run(path, profile="strict", chunk_bytes=chunk_bytes).findings
        assert not [f for f in found if f.check.startswith("R11")], chunk_bytes
        # and one info says that the split topics could not be re-checked whole
        expected = {f.check for f in whole} | {"R20.unchecked"}
        assert {f.check for f in found} == expected, chunk_bytes


def test_the_memory_option_says_what_goes_to_tmpdir_whatever_it_is(capfd):
    """--memory's help named only the duplicate keys' temporary file: the split topics'
    rows go to TMPDIR past MEMORY_ROWS lines, ROW_BYTES a line, whatever the budget."""
    from trecbench.validation import split_topics

    assert run(["validate", "--help"]) == ExitCode.OK
    said = " ".join(capfd.readouterr().out.split())
    assert f"past {split_topics.MEMORY_ROWS:,} lines" in said
    assert f"({split_topics.ROW_BYTES} bytes a line, up to twice while sorted into groups)" in said
    assert "go to TMPDIR too, to check split topics again whole" in said


def test_no_usable_temporary_folder_for_the_duplicate_keys_is_that_line_too(
    tmp_path, monkeypatch, capfd
):
    """With no usable temporary folder at all (TMPDIR, /tmp, /var/tmp and the working
    folder unwritable), tempfile.gettempdir() raises FileNotFoundError, and asking it
    again for the folder to name did so inside the handler: the command said only
    Python's 'No usable temporary directory found in [...]' and validate_run raised
    FileNotFoundError, as for a missing run. Now the OutputError's line, naming TMPDIR."""
    from trecbench.validation import validate_run

    path = tmp_path / "scattered.run"
    path.write_bytes(SCATTERED)

    def nowhere():
        raise FileNotFoundError(errno.ENOENT, "No usable temporary directory found in ['/x']")

    with monkeypatch.context() as patch:  # undone before capfd's own temporary files go
        patch.setattr(tempfile, "tempdir", None)
        patch.setattr(tempfile, "_get_default_tempdir", nowhere)
        code = run(["validate", str(path), "--memory", "1", "--quiet"])
        with pytest.raises(OutputError):
            validate_run(path, memory=1)
    out, err = capfd.readouterr()
    assert (code, out) == (ExitCode.INPUT, "")
    assert err == (
        "trecbench: TMPDIR: cannot write the duplicate check's temporary file (No usable "
        "temporary directory found in ['/x']); free space in TMPDIR, point TMPDIR to a "
        "larger folder, or give a larger --memory\n"
    )
