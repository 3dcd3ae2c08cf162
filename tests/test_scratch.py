"""Scratch folders a killed call leaves (trecbench/scratch.py): a `score --memory 1`
killed with SIGKILL while it spilled left its spill in TMPDIR for good, tens of MB here and
gigabytes for a large run; the next call that spills now removes it, and nothing else."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest
from random_cases import random_case

from trecbench import scratch

pytestmark = pytest.mark.skipif(scratch.fcntl is None, reason="flock is POSIX")

# `score --memory 1` in tiny blocks, so that a shuffled run spills; with WAIT set, each
# spill says so once written and waits (to be killed)
_SPILLING = textwrap.dedent(
    """
    import os, sys, time
    import pyarrow.dataset as ds
    from trecbench import memory
    from trecbench.cli import run
    from trecbench.inputs import blocks

    memory.BLOCK_LINES, memory.READ_BYTES, blocks.READ_BYTES = 7, 300, 300
    written = ds.write_dataset

    def write_then_wait(*args, **kwargs):
        written(*args, **kwargs)
        # one write to the pipe, whole (print's two, of two workers at once, interleaved:
        # 'spilledspilled')
        os.write(1, b"spilled\\n")
        time.sleep(60)

    if os.environ.get("WAIT"):
        ds.write_dataset = write_then_wait
    sys.exit(run(["score", "--memory", "1", *sys.argv[1:]]))
    """
)


def _inputs(tmp_path):
    qrels_text, run_text = random_case(23, n_topics=8, shuffle=True)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "a").write_text(run_text)
    (tmp_path / "b").write_text(run_text)
    return [str(tmp_path / "qrels"), str(tmp_path / "a"), str(tmp_path / "b")]


def _score(arguments, spill, **kwargs):
    env = {**os.environ, "TMPDIR": str(spill), "WAIT": "1" if kwargs.pop("wait", False) else ""}
    command = [sys.executable, "-c", _SPILLING, *arguments]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


@pytest.mark.parametrize("jobs", [[], ["--jobs", "1"], ["--jobs", "2"]])
def test_a_spill_a_sigkill_left_goes_with_the_next_spill(jobs, tmp_path):
    spill = tmp_path / "tmp"
    spill.mkdir()
    arguments = [*jobs, *_inputs(tmp_path)]
    child = _score(arguments, spill, wait=True)
    assert child.stdout.readline() == b"spilled\n"
    child.kill()  # as the kernel's OOM killer does: no clean-up runs
    child.stdout.read()  # end of file: the workers, which share the pipe, are gone too
    assert child.wait(timeout=60) == -signal.SIGKILL
    expected = "trecbench-workers-" if jobs == ["--jobs", "2"] else "trecbench-spill-"
    assert [p.name.startswith(expected) for p in spill.iterdir()] == [True]
    left = next(spill.iterdir())
    if jobs == ["--jobs", "2"]:  # a worker's spill in the parent's folder
        assert any(p.name.startswith("trecbench-spill-") for p in left.iterdir())
    again = _score(arguments, spill)
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert b"map" in out
    assert list(spill.iterdir()) == []


# a helper that holds the lock of a scratch folder, as another live call does
_HOLDING = textwrap.dedent(
    """
    import fcntl, os, sys, time
    handle = os.open(sys.argv[1], os.O_RDONLY)
    fcntl.flock(handle, fcntl.LOCK_EX)
    print("held", flush=True)
    time.sleep(60)
    """
)


@contextlib.contextmanager
def _held_by_another_process(folder):
    """``folder``'s lock held by a live process of its own while the block runs."""
    helper = subprocess.Popen(
        [sys.executable, "-c", _HOLDING, str(folder / scratch.LOCK_NAME)], stdout=subprocess.PIPE
    )
    try:
        assert helper.stdout.readline() == b"held\n"
        yield
    finally:
        helper.kill()
        helper.wait()


def _abandoned(parent, name):
    folder = parent / name
    folder.mkdir()
    (folder / scratch.LOCK_NAME).write_text("")
    (folder / "part-0.arrow").write_bytes(b"x" * 100)
    return folder


def test_a_folder_whose_lock_is_held_is_left(tmp_path):
    # another call's, perhaps in another container sharing TMPDIR: its pid means nothing
    held = _abandoned(tmp_path, "trecbench-spill-held")
    gone = _abandoned(tmp_path, "trecbench-spill-gone")
    with _held_by_another_process(held):
        with scratch.scratch_folder("trecbench-spill-", tmp_path) as folder:
            assert sorted(os.listdir(tmp_path)) == sorted([held.name, os.path.basename(folder)])
        assert os.listdir(tmp_path) == [held.name]
    # its owner gone, the next folder made removes it
    with scratch.scratch_folder("trecbench-spill-", tmp_path):
        pass
    assert os.listdir(tmp_path) == []
    assert not gone.exists()


def test_a_workers_folder_is_left_while_a_worker_spills_in_it(tmp_path):
    workers = _abandoned(tmp_path, "trecbench-workers-x")
    inner = _abandoned(workers, "trecbench-spill-y")
    with _held_by_another_process(inner):
        assert scratch.sweep(str(tmp_path)) == []
        assert inner.exists()
    assert scratch.sweep(str(tmp_path)) == [str(workers)]


def test_folders_without_a_lock_file_and_others_are_left(tmp_path):
    # one being made (its lock file not in place yet), an older trecbench's, not ours
    for name in ("trecbench-spill-old", "trecbench-workers-old", "other-spill-x"):
        (tmp_path / name).mkdir()
    _abandoned(tmp_path, "other-spill-y")
    (tmp_path / "trecbench-spill-file").write_text("")  # not a folder
    (tmp_path / "elsewhere").mkdir()
    target = _abandoned(tmp_path / "elsewhere", "trecbench-spill-z")
    (tmp_path / "trecbench-spill-link").symlink_to(target)  # a link: never followed
    before = sorted(os.listdir(tmp_path))
    with scratch.scratch_folder("trecbench-spill-", tmp_path) as folder:
        assert os.path.exists(os.path.join(folder, scratch.LOCK_NAME))
    assert sorted(os.listdir(tmp_path)) == before
    assert target.exists()
    shutil.rmtree(tmp_path / "elsewhere")


def test_a_lock_file_is_in_place_only_once_locked(tmp_path):
    # made under a passing name and renamed once locked: a sweep between the two never
    # finds it unlocked
    made = scratch.Scratch("trecbench-spill-", tmp_path)
    try:
        assert os.listdir(made.path) == [scratch.LOCK_NAME]
        assert scratch.sweep(str(tmp_path)) == []
        assert os.path.exists(made.path)
    finally:
        made.close()
    assert os.listdir(tmp_path) == []


def test_a_filesystem_without_locks_still_gets_its_folder_unswept(tmp_path, monkeypatch):
    # flock raising ENOLCK (some NFS) made every spill fail (reviewer 343): the folder is
    # made without a lock file, which no sweep removes
    import errno

    def refused(handle, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(scratch.fcntl, "flock", refused)
    with scratch.scratch_folder("trecbench-spill-", tmp_path) as folder:
        assert os.listdir(folder) == []
        assert scratch.sweep(str(tmp_path)) == [] and os.path.isdir(folder)
    assert os.listdir(tmp_path) == []


def test_a_process_never_sweeps_a_folder_it_holds(tmp_path, monkeypatch):
    # where flock is a POSIX lock (NFS), a process takes its own lock again through a
    # second open: its own live folders must not look abandoned to its sweep
    made = scratch.Scratch("trecbench-spill-", tmp_path)
    try:
        monkeypatch.setattr(scratch, "_taken_lock", lambda folder: os.open(folder, os.O_RDONLY))
        assert scratch.sweep(str(tmp_path)) == [] and os.path.isdir(made.path)
    finally:
        made.close()
    assert os.listdir(tmp_path) == []
