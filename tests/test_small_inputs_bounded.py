"""Small inputs read whole (benchmark configurations, leaderboard suites, ir_metadata
blocks) are read up to a bound: a device or an endless pipe (/dev/zero, `yes |`) grew to
the machine's memory (23 GB resident before the kernel killed it, no message; reviewer
665), and is now refused in one line, exit 2, read no further."""

from __future__ import annotations

import os
import threading

import pytest

from trecbench import provenance
from trecbench.cli import run
from trecbench.errors import InputError


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize(
    "command", [["benchmark", "/dev/zero", "-o", "out"], ["leaderboard", "/dev/zero"]]
)
def test_a_device_as_a_configuration_is_refused_read_no_further(
    command, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(provenance, "MOST_SMALL_FILE_BYTES", 1 << 20)  # the test's memory
    assert run(command) == 2
    assert capsys.readouterr().err == (
        "trecbench: /dev/zero: more than 1 MiB: no configuration, suite or ir_metadata file "
        "(read whole, so refused, read no further)\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_pipe_is_read_to_its_end_below_the_bound_and_refused_past_it(monkeypatch):
    # an unbuffered read gives one system call's bytes (a pipe's 64 KiB): asked again
    monkeypatch.setattr(provenance, "MOST_SMALL_FILE_BYTES", 300_000)
    for size, refused in ((300_000, False), (300_001, True)):
        reader, writer = os.pipe()
        text = b"#" * (size - 1) + b"\n"
        feeder = threading.Thread(target=lambda w=writer, t=text: (os.write(w, t), os.close(w)))
        feeder.start()
        path = f"/dev/fd/{reader}"
        try:
            if refused:
                with pytest.raises(InputError, match="more than 0 MiB"):
                    provenance.read_file(path)
            else:
                assert provenance.read_file(path) == text
        finally:
            feeder.join()
            os.close(reader)
