"""validate on a full TMPDIR (reviewer 456): the duplicate check's keys that cannot go to
their temporary file are one clear line, not numpy's "N requested and M written"."""

from __future__ import annotations

import tempfile

from trecbench.cli import run
from trecbench.errors import ExitCode

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
