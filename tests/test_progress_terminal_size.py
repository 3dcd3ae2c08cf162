"""A bar is drawn on any terminal: one that tells no size (0 by 0, as a pty nobody sized,
``script`` run under a pipe, reports) counts as 80 columns; tqdm took it as -1 and drew
nothing (reviewer 437). Checked on a real pty, sized 0 by 0 with TIOCSWINSZ."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

import pytest
from conftest import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pty")

# a command's progress, drawn at once: 10 of 40 steps, then the job done
DRAW = """
import sys, time
from trecbench.cli import progress
assert sys.stderr.isatty() and progress.wanted(False)
tasks = progress.TaskProgress(delay=0, interval=0)
tasks("resampling", 10, 40)
time.sleep(0.05)
tasks("resampling", 40, 40)
tasks.close()
"""


def _drawn_on_a_pty(rows: int, columns: int, sizes: dict[str, str]) -> str:
    """What DRAW writes on stderr, a pty of ``rows`` by ``columns``, with ``sizes`` as
    COLUMNS and LINES (unset where empty)."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    for name, value in sizes.items():
        if value:
            env[name] = value
        else:
            env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", DRAW], stderr=side, stdout=subprocess.PIPE, env=env, timeout=60
    )
    os.close(side)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the side closed, all read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert done.returncode == 0, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode()


def _frames(drawn: str) -> list[str]:
    return [frame for frame in drawn.replace("\n", "\r").split("\r") if frame.strip()]


@pytest.mark.parametrize("told", ["", "0", "\u00b2", "\u0663"])  # none, 0, '²', Arabic 3
def test_a_terminal_of_no_size_draws_a_bar_80_columns_wide(told):
    # COLUMNS=² was a digit to str.isdigit but no number to int(): an internal error
    frames = _frames(_drawn_on_a_pty(0, 0, {"COLUMNS": told, "LINES": told}))
    assert any(frame.startswith("resampling:  25%|") for frame in frames), frames
    assert any(frame.startswith("resampling: 100%|") for frame in frames), frames
    bars = [frame for frame in frames if "%|" in frame]
    assert {len(frame) for frame in bars} == {79}, bars  # tqdm's measure: the last free


def test_a_terminal_of_no_size_takes_columns_from_the_environment_a_sized_one_not():
    frames = _frames(_drawn_on_a_pty(0, 0, {"COLUMNS": "100", "LINES": ""}))
    bars = [frame for frame in frames if "%|" in frame]
    assert bars and {len(frame) for frame in bars} == {99}, bars
    # COLUMNS stands in for a size not told only: a terminal's own size comes first
    frames = _frames(_drawn_on_a_pty(40, 120, {"COLUMNS": "100", "LINES": ""}))
    bars = [frame for frame in frames if "%|" in frame]
    assert bars and {len(frame) for frame in bars} == {119}, bars
