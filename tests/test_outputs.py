"""The output layer: regular files only, inputs protected, multi-file outputs as a unit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from trecbench import output_identity, outputs
from trecbench.errors import OutputError, UsageError
from trecbench.outputs import OutputSet, check_target, input_scope, note_input, write_file


def test_writes_a_new_file_and_replaces_a_regular_one(tmp_path):
    target = tmp_path / "sub" / "a.txt"
    write_file(target, "one")
    write_file(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["a.txt"]  # no temporary left


def test_permissions_follow_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        write_file(tmp_path / "a", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a").stat().st_mode & 0o777 == 0o640


def test_a_replaced_file_keeps_its_permissions(tmp_path):
    """A report kept private (0600) became 0644 when written again (the new file got 0666
    less the umask): it keeps the permission bits of the file it replaces."""
    target = tmp_path / "report.json"
    write_file(target, "old")
    target.chmod(0o600)
    old = os.umask(0o022)
    try:
        write_file(target, "new")
        write_file(tmp_path / "fresh.json", "new")
    finally:
        os.umask(old)
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "fresh.json").stat().st_mode & 0o777 == 0o644  # a new file: the umask's


def test_score_report_over_a_private_file_keeps_it_private(tmp_path):
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 3 r\n")
    report = tmp_path / "report.json"
    report.write_text("{}")
    report.chmod(0o600)
    args = ["score", "-m", "P.1", "--report", str(report), str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(args) == 0
    assert report.stat().st_mode & 0o777 == 0o600
    assert json.loads(report.read_text()) != {}  # the new report, not the old one


@pytest.mark.parametrize("special", ["/dev/null", "/dev/zero"])
def test_a_device_node_is_never_replaced(special):
    before = os.stat(special)
    with pytest.raises(OutputError, match="not a regular file"):
        write_file(special, "x")
    after = os.stat(special)
    assert (after.st_ino, after.st_rdev, after.st_mode) == (
        before.st_ino,
        before.st_rdev,
        before.st_mode,
    )


def test_symlinks_fifos_and_folders_are_refused(tmp_path):
    real = tmp_path / "real"
    real.write_text("keep")
    link = tmp_path / "link"
    link.symlink_to(real)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(OutputError, match="symbolic link"):
        write_file(link, "x")
    with pytest.raises(OutputError, match="not a regular file"):
        write_file(fifo, "x")
    with pytest.raises(OutputError, match="is a directory"):
        write_file(folder, "x")
    assert real.read_text() == "keep" and link.is_symlink()
    with pytest.raises(OutputError, match="symbolic link"):
        write_file("/dev/stdout", "x")  # a symlink to the terminal or a pipe


def test_inputs_read_in_the_call_are_protected_under_any_name(tmp_path):
    source = tmp_path / "run.txt"
    source.write_text("keep")
    alias = tmp_path / "alias.txt"
    os.link(source, alias)
    with input_scope():
        note_input(source)
        for target in (source, alias, tmp_path / "." / "run.txt"):
            with pytest.raises(OutputError, match="refusing to overwrite an input file"):
                write_file(target, "x")
        write_file(tmp_path / "other.txt", "fine")
    assert alias.read_text() == "keep"
    write_file(source, "outside the call it is just a file")
    assert source.read_text() == "outside the call it is just a file"


def test_nested_scopes_share_the_outer_inputs(tmp_path):
    source = tmp_path / "q"
    source.write_text("keep")
    with input_scope():
        with input_scope():
            note_input(source)
        with pytest.raises(OutputError):
            write_file(source, "x")


def test_explicit_inputs_are_protected_without_a_scope(tmp_path):
    source = tmp_path / "in"
    source.write_text("keep")
    with pytest.raises(OutputError, match="refusing to overwrite an input file"):
        write_file(source, "x", inputs=[source])
    assert source.read_text() == "keep"


def test_a_set_is_all_or_nothing_when_a_target_is_bad(tmp_path):
    (tmp_path / "b.json").mkdir()
    (tmp_path / "a.md").write_text("old")
    with pytest.raises(OutputError, match="is a directory"):
        with OutputSet() as out:
            out.write(tmp_path / "a.md", "new")
            out.write(tmp_path / "b.json", "new")
    assert (tmp_path / "a.md").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.json"]


def test_a_set_is_all_or_nothing_on_any_error(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with OutputSet() as out:
            out.write(tmp_path / "new" / "deeper" / "a", "x")
            1 / 0  # noqa: B018
    assert list(tmp_path.iterdir()) == []  # the folders it made are gone too


def test_a_failed_rename_puts_back_what_was_replaced(tmp_path, monkeypatch):
    _second_rename_fails_and_the_set_is_undone(tmp_path, monkeypatch)


def test_a_failed_rename_puts_back_a_file_no_hard_link_could_keep(tmp_path, monkeypatch):
    """Where no hard link can be made (a file system without them; a file of another user
    under protected_hardlinks), the file replaced is kept as a copy: undoing the set put
    nothing back and deleted it."""

    def no_link(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_link)
    _second_rename_fails_and_the_set_is_undone(tmp_path, monkeypatch)


def _second_rename_fails_and_the_set_is_undone(tmp_path, monkeypatch):
    """A set of two files replacing two, the second rename failing: both old files back."""
    first, second = tmp_path / "1", tmp_path / "2"
    first.write_text("old 1")
    second.write_text("old 2")
    real_replace = os.replace
    calls = []

    def failing(src, dst):
        calls.append(dst)
        if str(dst) == str(second) and len(calls) == 2:
            raise OSError(28, "No space left on device", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(outputs.os, "replace", failing)
    with pytest.raises(OutputError, match="No space left"):
        with OutputSet() as out:
            out.write(first, "new 1")
            out.write(second, "new 2")
    assert (first.read_text(), second.read_text()) == ("old 1", "old 2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1", "2"]


def test_the_same_target_twice_and_targets_outside_the_root_are_refused(tmp_path):
    with pytest.raises(OutputError, match="written twice"):
        with OutputSet() as out:
            out.write(tmp_path / "a", "x")
            out.write(tmp_path / "." / "a", "y")
    (tmp_path / "out").mkdir()  # (through a missing folder, out/.. is refused first)
    with pytest.raises(OutputError, match="outside the output folder"):
        with OutputSet(root=tmp_path / "out") as out:
            out.write(tmp_path / "out" / ".." / "escaped", "x")
    assert list(tmp_path.iterdir()) == [tmp_path / "out"]


def test_a_staged_file_is_readable_before_the_commit(tmp_path):
    with OutputSet() as out:
        staged = out.write(tmp_path / "a", "content")
        assert staged.read_text() == "content" and not (tmp_path / "a").exists()
    assert (tmp_path / "a").read_text() == "content"


def test_a_parent_that_is_a_file_is_a_one_line_error(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="not a directory"):
        write_file(tmp_path / "file" / "a", "x")
    assert check_target(tmp_path / "missing") == tmp_path / "missing"


@pytest.mark.parametrize("under", ["", "new/", "new/deeper/"])
def test_a_name_longer_than_the_file_system_takes_is_refused_at_once(tmp_path, under):
    # in a folder still to be made the system said nothing until the folder was made,
    # once the work was done: "score --report new/<300 characters>.json" printed first
    name = "y" * (os.pathconf(tmp_path, "PC_NAME_MAX") + 1)
    target = tmp_path / f"{under}{name}.json"
    with pytest.raises(OutputError) as refused:
        check_target(target)
    assert str(refused.value) == f"{target}: cannot write here (File name too long)"
    check_target(tmp_path / f"{under}{name[:-6]}.json")  # as long as it may be
    assert list(tmp_path.iterdir()) == []


def test_sigterm_removes_staged_files(tmp_path):
    script = textwrap.dedent(
        f"""
        import sys, time
        from trecbench.outputs import OutputSet
        with OutputSet() as out:
            out.write({str(tmp_path / "a")!r}, "x")
            print("staged", flush=True)
            # short sleeps: a signal that lands just before a sleep begins is handled when
            # that sleep ends (a single 30 s sleep then outlasted the test's wait)
            for _ in range(3000):
                time.sleep(0.01)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert child.stdout.readline() == b"staged\n"
    assert len(list(tmp_path.iterdir())) == 1  # the temporary file
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=30) == 128 + signal.SIGTERM
    time.sleep(0.05)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "{run}", "--fix", "{run}"],
        ["validate", "{run}", "--qrels", "{qrels}", "--fix", "{qrels}"],
        ["fuse", "{run}", "-o", "{run}"],
        # the -Z file: the scores were printed before the refusal
        ["score", "-m", "map", "-Z", "{zscores}", "{qrels}", "{run}", "--report", "{zscores}"],
    ],
)
def test_an_output_naming_an_input_is_refused_before_the_work(argv, tmp_path, capsys):
    """Nothing is validated or fused (nothing printed on stdout) when the output is an
    input: the refusal comes first, and the input is untouched."""
    from trecbench.cli import run

    paths = {"run": tmp_path / "r.run", "qrels": tmp_path / "q.qrels", "zscores": tmp_path / "z"}
    paths["run"].write_text("1 Q0 d 1 1 t\n")
    paths["qrels"].write_text("1 0 d 1\n")
    paths["zscores"].write_text("1\tmap\t0.5\t0.1\nz\tz\t0\t1\n")
    assert run([arg.format(**paths) for arg in argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().endswith("refusing to overwrite an input file")
    assert (
        paths["run"].read_text() == "1 Q0 d 1 1 t\n" and paths["qrels"].read_text() == "1 0 d 1\n"
    )


def _no_work(monkeypatch):
    """Make the work of compare, benchmark and score fail loudly if it is started."""
    import trecbench.benchmarking
    import trecbench.comparison
    import trecbench.evaluation

    def started(*args, **kwargs):
        raise AssertionError("the work started before the output was refused")

    for module, name in (
        (trecbench.comparison, "compare"),
        (trecbench.benchmarking, "run_benchmark"),
        (trecbench.evaluation, "evaluate"),
    ):
        monkeypatch.setattr(module, name, started)


@pytest.mark.parametrize(
    "argv, refusal",
    [
        (["compare", "{q}", "{r}", "{s}", "-o", "{o}", "--manifest", "{r}"], "an input file"),
        (["compare", "{q}", "{r}", "-o", "{o}", "--manifest", "{q}"], "an input file"),
        (["compare", "{q}", "{r}", "{o}/AllPairs.tex", "-o", "{o}"], "an input file"),
        (
            ["compare", "{q}", "{r}", "{s}", "-o", "{o}", "--plots", "--strata", "{o}/means.svg"],
            "an input file",
        ),
        (
            ["compare", "{q}", "{r}", "{s}", "-o", "{o}", "--plots"],
            "differences.png: is a symbolic link",
        ),
        (
            ["compare", "{q}", "{r}", "-o", "{o}", "--manifest", "{o}/AllPairs.tex"],
            "AllPairs.tex: written twice by one command, as --manifest and as compare's LaTeX",
        ),
        (["benchmark", "{o}/bench.toml"], "an input file"),
        (
            ["benchmark", "{o}/bench.toml", "-o", "{o}/../o2"],
            "ExperimentManifest.json: is a symbolic link",
        ),
        (["score", "{q}", "{r}", "--report", "{r}"], "an input file"),
        (["score", "{q}", "{r}", "--manifest", "{q}"], "an input file"),
        (
            ["score", "{q}", "{r}", "--report", "{o}/x.json", "--manifest", "{o}/x.json"],
            "x.json: written twice by one command, as --report and as --manifest",
        ),
    ],
)
def test_compare_benchmark_and_score_refuse_a_bad_output_before_the_work(
    argv, refusal, tmp_path, monkeypatch, capsys
):
    """Every output whose name is known before the work (compare's report files, plots over
    all topics and manifest; benchmark's files, named after its modes; score's --report and
    --manifest) is refused before anything is read or computed when it is an input, a
    symbolic link, or another output; the inputs are untouched."""
    from trecbench.cli import run

    folder, other = tmp_path / "o", tmp_path / "o2"
    folder.mkdir()
    other.mkdir()
    paths = {"q": tmp_path / "q.qrels", "r": tmp_path / "r.run", "s": tmp_path / "s.run"}
    paths["q"].write_text("1 0 d 1\n")
    paths["r"].write_text("1 Q0 d 1 1 r\n")
    paths["s"].write_text("1 Q0 d 1 1 s\n")
    (folder / "AllPairs.tex").write_text("1 Q0 d 1 1 t\n")  # a run, here
    (folder / "means.svg").write_text("{}\n")  # a strata sidecar, here
    (folder / "differences.png").symlink_to(paths["r"])
    (other / "ExperimentManifest.json").symlink_to(paths["r"])
    # the fused mode's run, runs/f.run, is the run of another mode
    (folder / "runs").mkdir()
    (folder / "runs" / "f.run").write_text("1 Q0 d 1 1 a\n")
    (folder / "bench.toml").write_text(
        f'qrels = "{paths["q"]}"\noutput = "."\n'
        '[modes.a]\nrun = "runs/f.run"\n[modes.b]\nrun = "../s.run"\n'
        '[modes.f]\nfuse = ["a", "b"]\n'
    )
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    _no_work(monkeypatch)
    code = run([arg.format(o=folder, **paths) for arg in argv])
    out, err = capsys.readouterr()
    assert (code, out) in ((1, ""), (2, "")) and refusal in err, err
    assert {path: path.read_bytes() for path in before} == before


# -- locks, signals, the umask and killed processes (trecbench.publication)


def test_no_call_reads_or_changes_the_process_umask(tmp_path, monkeypatch):
    """The umask is process-wide: setting it, even for an instant, makes other threads'
    files world-writable. Files are created with mode 0666 for the kernel to apply it."""

    def umask(mask):
        raise AssertionError("os.umask called: other threads would see the change")

    monkeypatch.setattr(os, "umask", umask)
    with OutputSet() as out:
        out.write(tmp_path / "new" / "a", "x")
        out.write(tmp_path / "b", "y")
    mask = _current_umask()
    assert (tmp_path / "new" / "a").stat().st_mode & 0o777 == 0o666 & ~mask
    assert (tmp_path / "b").stat().st_mode & 0o777 == 0o666 & ~mask


def _current_umask() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("Umask:"):
            return int(line.split()[1], 8)
    pytest.skip("needs /proc/self/status")


def test_a_second_set_writing_into_a_folder_waits_for_the_first(tmp_path):
    import threading

    first = OutputSet()
    first.write(tmp_path / "a", "first")
    order = []

    def second():
        with OutputSet() as out:
            out.write(tmp_path / "b", "second")
            order.append("second staged")

    thread = threading.Thread(target=second)
    thread.start()
    thread.join(0.3)
    assert thread.is_alive() and order == []  # waiting for the folder's lock
    order.append("first committed")
    first.commit()
    thread.join(5)
    assert order == ["first committed", "second staged"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no staging folder left


def test_a_set_holding_one_folder_waits_for_another_only_so_long(tmp_path, monkeypatch):
    from trecbench import publication

    monkeypatch.setattr(publication, "WAIT_HOLDING", 0.1)
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    import threading

    held, done = threading.Event(), threading.Event()

    def other():
        with OutputSet() as out:
            out.write(tmp_path / "y" / "f", "other")
            held.set()
            done.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    held.wait(5)
    try:
        with pytest.raises(OutputError, match=r"y: another trecbench call has been writing here"):
            with OutputSet() as out:
                out.write(tmp_path / "x" / "f", "mine")
                out.write(tmp_path / "y" / "f", "mine")
    finally:
        done.set()
        thread.join(5)
    assert not (tmp_path / "x" / "f").exists() and (tmp_path / "y" / "f").read_text() == "other"
    assert os.listdir(tmp_path / "x") == []


def test_a_nested_set_in_one_thread_fails_instead_of_waiting_for_itself(tmp_path):
    with OutputSet() as outer:
        outer.write(tmp_path / "a", "x")
        with pytest.raises(OutputError, match="another output set of this thread"):
            write_file(tmp_path / "b", "y")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def test_a_signal_during_the_renames_waits_until_every_file_is_in_place(tmp_path, monkeypatch):
    from trecbench import publication

    for name in ("a", "b", "c"):
        (tmp_path / name).write_text("old")
    real_replace = os.replace

    def interrupted(src, dst):
        if Path(dst).name == "a":
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C after the first rename
        return real_replace(src, dst)

    monkeypatch.setattr(publication.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        with OutputSet() as out:
            for name in ("a", "b", "c"):
                out.write(tmp_path / name, "new")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == dict.fromkeys("abc", "new")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_next_set_in_a_folder_finishes_a_committed_set_whose_process_died(tmp_path):
    """A set killed between its renames (here: its stages left as a SIGKILL leaves them) is
    completed by the next output set locking the folder; one killed before its journal
    was written is removed, nothing replaced."""
    from trecbench import publication

    for name in ("a", "b"):
        (tmp_path / name).write_text("old")
    committed = OutputSet()
    committed.write(tmp_path / "a", "new")
    committed.write(tmp_path / "b", "new")
    (stage,) = committed._stages.values()
    stage.prepare()
    os.replace(stage.path / publication.NEW / "a", tmp_path / "a")  # killed here
    stage.lock.release()
    assert ((tmp_path / "a").read_text(), (tmp_path / "b").read_text()) == ("new", "old")

    dropped = OutputSet()
    dropped.write(tmp_path / "b", "never committed")
    dropped._stages.popitem()[1].lock.release()  # killed before its commit

    write_file(tmp_path / "c", "another call")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {
        "a": "new",
        "b": "new",
        "c": "another call",
    }
    for abandoned in (committed, dropped):  # a dead process's: its signal handlers go too
        abandoned._signals.remove()


_KILLED_CHILD = """
import os, sys, time
from trecbench import outputs
folder = sys.argv[1]
real_replace = os.replace
def slow(src, dst):  # widen the window between renames
    time.sleep(0.002)
    return real_replace(src, dst)
os.replace = slow
generation = int(open(os.path.join(folder, "a")).read())
print("ready", flush=True)
while True:
    generation += 1
    with outputs.OutputSet() as out:
        for name in "abcde":
            out.write(os.path.join(folder, name), str(generation))
"""


def test_a_process_killed_at_random_points_of_its_commits_leaves_a_whole_set(tmp_path):
    """Seeded: SIGTERM, SIGINT, SIGHUP and SIGKILL at random instants leave the old or the
    new set. A signal that lands while the files are still being staged (before the commit,
    where signals are held) may leave the staging folder; the next set written in the folder
    removes it, and a set SIGKILL left committed but not renamed is finished by it
    (trecbench.publication)."""
    import random

    rng = random.Random(25)
    for name in "abcde":
        (tmp_path / name).write_text("0")
    kills = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL] * 2
    for number in kills:
        child = subprocess.Popen(
            [sys.executable, "-c", _KILLED_CHILD, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # the KeyboardInterrupt's traceback
        )
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.15))
        child.send_signal(number)
        code = child.wait(timeout=30)
        child.stdout.close()
        if number == signal.SIGKILL:
            assert code == -signal.SIGKILL
        else:
            assert code in (128 + number, -number), code  # an uncaught KeyboardInterrupt: -2
        write_file(tmp_path / "other", "x")  # the next set in the folder
        names = sorted(os.listdir(tmp_path))
        assert names == [*"abcde", *(["other"] if "other" in names else [])], names
        contents = {(tmp_path / name).read_text() for name in "abcde"}
        assert len(contents) == 1, (number, contents)


def test_two_calls_writing_one_folder_at_once_leave_one_whole_set(tmp_path, monkeypatch):
    """As two `compare -o SAME_DIR` at once: each set is a report and a manifest of its
    sha256. The second call starts while the first is between two renames; it waits for
    the folder, and the folder ends holding one whole set (unlocked, it held the second
    call's report and the first one's manifest)."""
    import hashlib
    import threading

    def call(name):
        report = f"{name}\n".encode() * 100
        with OutputSet() as out:
            out.write(tmp_path / "report.md", report)
            out.write(tmp_path / "manifest.json", hashlib.sha256(report).hexdigest())

    second = threading.Thread(target=call, args=("second",))
    real_replace = os.replace

    def replace(src, dst):
        done = real_replace(src, dst)
        if threading.current_thread() is threading.main_thread() and not second.ident:
            second.start()  # after the first call's first rename
            second.join(0.3)
        return done

    monkeypatch.setattr(os, "replace", replace)
    call("first")
    second.join(10)
    digest = hashlib.sha256((tmp_path / "report.md").read_bytes()).hexdigest()
    assert (tmp_path / "manifest.json").read_text() == digest
    assert (tmp_path / "report.md").read_text().startswith("second")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json", "report.md"]


def test_a_reader_holding_a_shared_lock_on_the_folder_sees_one_whole_set(tmp_path):
    """Readers that take a shared flock on the folder (`flock -s DIR cat DIR/*`) are never
    between two renames: the commit waits for them, and they for it."""
    import fcntl
    import threading

    (tmp_path / "a").write_text("old")
    (tmp_path / "b").write_text("old")
    reader = os.open(tmp_path, os.O_RDONLY)
    fcntl.flock(reader, fcntl.LOCK_SH)
    writer = threading.Thread(target=lambda: write_file(tmp_path / "a", "new"))
    try:
        writer.start()
        writer.join(0.3)
        assert writer.is_alive() and (tmp_path / "a").read_text() == "old"
    finally:
        os.close(reader)
    writer.join(5)
    assert (tmp_path / "a").read_text() == "new"


def test_a_staging_folder_of_another_user_or_writable_by_others_is_left_alone(tmp_path):
    from trecbench import publication

    planted = tmp_path / f"{publication.STAGE_PREFIX}planted"
    (planted / publication.NEW).mkdir(parents=True)
    (planted / publication.NEW / "a").write_text("planted")
    (planted / publication.JOURNAL).write_text('["a"]')
    planted.chmod(0o777)  # as a folder another user could have filled
    (tmp_path / "a").write_text("mine")
    write_file(tmp_path / "b", "x")
    assert (tmp_path / "a").read_text() == "mine" and planted.exists()


def test_a_folder_that_only_has_a_staging_folders_name_is_left_alone(tmp_path):
    # a user's .trecbench-stage.mine with a file of theirs was removed by the next write
    from trecbench import publication

    mine = tmp_path / f"{publication.STAGE_PREFIX}mine"
    mine.mkdir(mode=0o700)
    (mine / "data.txt").write_text("precious")
    left = tmp_path / f"{publication.STAGE_PREFIX}left"  # a killed process's: finished
    (left / publication.NEW).mkdir(parents=True, mode=0o700)
    left.chmod(0o700)
    (left / publication.NEW / "a").write_text("committed")
    (left / publication.JOURNAL).write_text('["a"]')
    write_file(tmp_path / "b", "x")
    assert (mine / "data.txt").read_text() == "precious"
    assert (tmp_path / "a").read_text() == "committed" and not left.exists()


def test_a_call_and_its_output_set_put_the_signal_handlers_back(tmp_path):
    """The command line's guard (every call) and an OutputSet's within it: SIGTERM and
    SIGHUP exit (cleaning up) inside, and the handlers of before are back after; an
    ignored signal (nohup) stays ignored."""
    from trecbench.signals import signals_end_the_call

    previous = {
        signal.SIGTERM: signal.signal(signal.SIGTERM, signal.SIG_DFL),
        signal.SIGHUP: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    }
    try:
        with signals_end_the_call():
            exits = signal.getsignal(signal.SIGTERM)
            assert exits not in (signal.SIG_DFL, signal.SIG_IGN)
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            with OutputSet() as out:
                out.write(tmp_path / "a", "x")
                assert signal.getsignal(signal.SIGTERM) is exits
            assert signal.getsignal(signal.SIGTERM) is exits
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def test_a_file_written_in_pieces_is_all_or_nothing(tmp_path):
    from trecbench import outputs
    from trecbench.errors import OutputError

    target = tmp_path / "out.run"
    outputs.write_file(target, iter([b"a\n", b"b\n"]))
    assert target.read_bytes() == b"a\nb\n"

    def failing():
        yield b"c\n"
        raise OutputError("the second piece cannot be made")

    with pytest.raises(OutputError, match="second piece"):
        outputs.write_file(target, failing())
    assert target.read_bytes() == b"a\nb\n"  # the earlier file, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.run"]  # nothing staged is left


def test_another_users_file_in_a_sticky_folder_is_refused_before_the_work(tmp_path, monkeypatch):
    """`score --report /tmp/r.json`, r.json another user's in a sticky folder: the kernel
    refuses the rename (EPERM), and that was found at the commit, once the results were
    printed (exit 2 after them). Another user is played by an effective uid owning
    neither the file nor the folder."""
    from trecbench import publication

    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "r.json").write_text("old")
    monkeypatch.setattr(publication.os, "geteuid", lambda: os.getuid() + 4242, raising=False)
    check_target(folder / "r.json")  # without the sticky bit, anyone writing here may
    folder.chmod(0o1777)
    with pytest.raises(OutputError, match=r"r\.json: cannot write here \(.*sticky bit\)$"):
        check_target(folder / "r.json")
    check_target(folder / "new.json")  # a new file is this user's


def test_a_folder_that_cannot_be_read_is_refused_before_the_work(tmp_path, monkeypatch):
    """A folder one may write into but not read (mode 0733; its rights played here, root
    reading any folder): the lock opens it to read, and that failed once the work was
    done (`fuse ... -o dropbox/f.run`); refused by the check, a folder made in it not."""
    box = tmp_path / "box"
    box.mkdir()
    access = os.access

    def unreadable(path, mode, **kwargs):
        if Path(path) == box and mode & os.R_OK:
            return False
        return access(path, mode, **kwargs)

    monkeypatch.setattr(outputs.os, "access", unreadable)
    monkeypatch.setattr(outputs.os, "supports_effective_ids", {unreadable})
    with pytest.raises(OutputError, match=r"box: cannot write here \(Permission denied\)$"):
        check_target(box / "f.run")
    check_target(box / "made" / "f.run")  # the folder made is locked, not box


def test_a_file_name_ending_in_a_slash_a_dot_or_empty_and_a_folder_named_dash_are_refused(
    tmp_path, capsys, monkeypatch
):
    from conftest import ROOT

    from trecbench.cli import run

    monkeypatch.chdir(tmp_path)
    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    runs = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
    (tmp_path / "reg").write_text("old\n")
    refused = {
        ("fuse", *runs, "-o", "reg/"): "reg/: ends in a slash",
        # Path() dropped a last ".": reg/. replaced the file reg; pool/.. failed once fused
        ("fuse", *runs, "-o", "reg/."): "reg/.: ends in ., a folder's name",
        ("validate", runs[0], "--fix", "new.run/."): "new.run/.: ends in ., a folder's",
        ("pool", *runs, "-o", "pool/.."): "pool/..: ends in .., a folder's name",
        ("fuse", *runs, "-o", ""): "an empty file name",
        ("score", qrels, runs[0], "--report", "new.json/"): "new.json/: ends in a slash",
        ("pool", *runs, "-o", "pool/"): "pool/: ends in a slash",
        ("compare", qrels, *runs, "-o", "-"): "-: this output is a folder",
        ("compare", qrels, *runs, "-o", ""): "an empty folder name",
        # --optimize's qrels are an input too: refused before the search, not after it
        ("fuse", "--optimize", "P@5", "--qrels", qrels, *runs, "-o", qrels): "refusing to "
        "overwrite an input",
    }
    for command, message in refused.items():
        assert run(list(command)) == 2, command
        err = capsys.readouterr().err
        assert message in err and "chose" not in err, command  # chose: --optimize searched
    assert (tmp_path / "reg").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reg"]  # nothing made, no "-"


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_as_a_staging_folder_is_made_leaves_nothing(name, tmp_path, monkeypatch):
    """A signal that landed just after the staging folder was made, before the set had
    noted it, left `.trecbench-stage.XXXX` behind (`fuse ... -o det/f.run`, exit 143):
    the folder is now noted as it is made, and removed with the folder made for the
    target."""
    from trecbench import publication
    from trecbench.signals import signals_end_the_call

    make = publication.tempfile.mkdtemp

    def signalled(*args, **kwargs):
        path = make(*args, **kwargs)
        if kwargs.get("prefix") == publication.STAGE_PREFIX:
            signal.raise_signal(getattr(signal, name))
        return path

    monkeypatch.setattr(publication.tempfile, "mkdtemp", signalled)
    expected = KeyboardInterrupt if name == "SIGINT" else SystemExit
    with signals_end_the_call(), pytest.raises(expected):
        write_file(tmp_path / "out" / "f.run", "x")
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    monkeypatch.undo()
    write_file(tmp_path / "out" / "f.run", "x")  # the folder's lock was released
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_signal_between_the_last_checks_and_the_renames_leaves_nothing(tmp_path, monkeypatch):
    """A Ctrl-C that landed in commit() after its last checks, before the renames' signals
    were held, left the staging folder and the folder locked: the thread's next set into
    it failed ('another output set of this thread is writing here')."""
    from trecbench import publication

    real = publication.signals_held

    def late(*args, **kwargs):
        if sys._getframe(1).f_code.co_name == "commit":
            signal.raise_signal(signal.SIGINT)  # lands just before the block is entered
        return real(*args, **kwargs)

    (tmp_path / "f").write_text("old")
    monkeypatch.setattr(publication, "signals_held", late)
    with pytest.raises(KeyboardInterrupt):
        write_file(tmp_path / "f", "new")
    assert [p.name for p in tmp_path.iterdir()] == ["f"]
    assert (tmp_path / "f").read_text() == "old"
    monkeypatch.undo()
    write_file(tmp_path / "f", "new")  # the folder's lock was released
    assert (tmp_path / "f").read_text() == "new"


def test_a_signal_as_the_handlers_are_swapped_leaves_them_as_they_were(monkeypatch):
    """A SIGTERM that landed as signals_held() swapped the handlers, SIGINT's swapped
    already, ended the block before its clean-up: SIGINT's handler stayed the one
    noting signals into a list no one read, and every later Ctrl-C was dropped."""
    from trecbench import publication
    from trecbench.signals import signals_end_the_call

    real = signal.signal

    def installing(number, handler):
        previous = real(number, handler)
        if number == signal.SIGINT and handler is not signal.default_int_handler:
            signal.raise_signal(signal.SIGTERM)  # lands just after SIGINT's is swapped
        return previous

    with signals_end_the_call(), pytest.raises(SystemExit):
        monkeypatch.setattr(signal, "signal", installing)
        with publication.signals_held():
            pass
    monkeypatch.undo()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _run_into(stdout_path: Path, mode: str, argv: list[str], monkeypatch) -> int:
    """``trecbench ARGV`` with standard output opened on ``stdout_path`` in ``mode``
    (``a``: ``>>``, ``r+``: ``1<>``), as the shell opens it."""
    from trecbench.cli import run

    with open(stdout_path, mode, encoding="utf-8") as stdout:
        monkeypatch.setattr(sys, "stdout", stdout)
        return run(argv)


@pytest.mark.parametrize("mode", ["a", "r+"])
@pytest.mark.parametrize(
    "argv",
    [
        ["fuse", "{a}", "{b}", "-o", "-"],
        ["fuse", "{b}", "{link}", "-o", "-"],  # the input by another name
        ["score", "{qrels}", "{a}"],  # the small path
        ["score", "--format", "csv", "{qrels}", "{b}", "{a}"],
        ["validate", "{a}"],
        ["convert", "msmarco", "{tsv}", "-o", "-"],
    ],
)
def test_standard_output_into_an_input_is_refused(argv, mode, tmp_path, monkeypatch, capsys):
    """`fuse a.run b.run -o - >> a.run` appended the fused run to its input (`1<>a.run`
    overwrote it), exit 0, where every file output naming an input is refused: refused
    too now, in one line, before anything is written (GNU cat: "input file is output
    file"). A regular file that is no input still takes the output."""
    from conftest import ROOT

    a, tsv = tmp_path / "a.run", tmp_path / "m.tsv"
    a.write_bytes((ROOT / "runs" / "tfidf-char.run").read_bytes())
    tsv.write_text("q1\td1\t1\nq1\td2\t2\n")
    (tmp_path / "link.run").symlink_to(a)
    paths = {
        "a": a, "b": ROOT / "runs" / "tfidf-word.run", "link": tmp_path / "link.run",
        "qrels": ROOT / "qrels" / "hpo-demo.qrels", "tsv": tsv,
    }  # fmt: skip
    argv = [arg.format(**paths) for arg in argv]
    target = tsv if argv[0] == "convert" else a
    before = target.read_bytes()
    assert _run_into(target, mode, argv, monkeypatch) == 2
    assert target.read_bytes() == before
    name = next(arg for arg in argv if Path(arg).name in ("a.run", "link.run", "m.tsv"))
    err = capsys.readouterr().err
    assert err == f"trecbench: {name}: input file is standard output; refusing to write into it\n"
    other = tmp_path / "other.txt"
    other.write_text("")
    assert _run_into(other, mode, argv, monkeypatch) == 0
    assert other.stat().st_size > 0


def test_standard_input_and_inputs_read_later_are_refused_as_standard_output(tmp_path):
    """`score QRELS - < a.run >> a.run`; and a file read that the command line does not
    name (a run a leaderboard's suite lists), refused as it is noted."""
    from conftest import ROOT

    from trecbench import standard_output

    a = tmp_path / "a.run"
    a.write_bytes((ROOT / "runs" / "tfidf-char.run").read_bytes())
    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    with open(a, "rb") as stdin, open(a, "ab") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "trecbench", "score", qrels, "-"],
            stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == "trecbench: -: input file is standard output; refusing to write into it\n"
    assert a.read_bytes() == (ROOT / "runs" / "tfidf-char.run").read_bytes()
    with open(a, "a") as stdout, standard_output.noted(stdout), input_scope():
        note_input(ROOT / "runs" / "tfidf-word.run")
        with pytest.raises(OutputError, match="a.run: input file is standard output"):
            note_input(a)
    with input_scope():  # outside the command line nothing is refused
        note_input(a)


def test_commits_held_puts_the_sets_in_place_as_the_block_ends(tmp_path):
    """Inside a commits_held block a set is written whole but put in place only as the
    block ends (score and compare print standard output in between: reviewer 410)."""
    target = tmp_path / "a.txt"
    target.write_text("old\n")
    with outputs.commits_held():
        write_file(target, "new\n")
        assert target.read_text() == "old\n"  # staged, not yet in place
        assert len(list(tmp_path.iterdir())) == 2  # the staging folder beside it
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_an_error_in_a_commits_held_block_removes_its_staged_sets(tmp_path):
    """Standard output failing after the files were staged (full, closed): nothing is
    replaced, nothing staged is left."""
    target = tmp_path / "a.txt"
    target.write_text("old\n")
    with pytest.raises(OSError, match="standard output"), outputs.commits_held():
        write_file(target, "new\n")
        write_file(tmp_path / "sub" / "b.txt", "new\n")
        raise OSError("standard output")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def _deep_folder(root: Path, length: int) -> Path:
    """A folder below ``root`` whose path is ``length`` bytes long (components of at most
    200 bytes)."""
    folder = root
    while len(os.fsencode(folder)) < length:
        folder = folder / ("d" * min(200, length - len(os.fsencode(folder)) - 1))
    folder.mkdir(parents=True)
    return folder


@pytest.mark.parametrize("name", ["report.json", "r"])  # r: the journal's path is longer
def test_a_target_whose_staged_copy_passes_the_path_limit_is_refused_before_the_work(
    tmp_path, name
):
    """The target's path fits PATH_MAX, its staged copy's (two folders deeper) or the
    journal's does not: refused by check_target, which commands call before their work;
    it failed once the work was done. One whose staging fits to the byte is written."""
    limit = os.pathconf(tmp_path, "PC_PATH_MAX") - 1  # the bytes a path can have
    overhead = len(os.fsencode(outputs.publication.Stage.longest_path(Path("f"), name))) - 1
    too_deep = _deep_folder(tmp_path / "a", limit - overhead + 1)
    assert len(os.fsencode(too_deep / name)) <= limit
    with pytest.raises(OutputError, match="File name too long: staged beside it"):
        check_target(too_deep / name)
    deep = _deep_folder(tmp_path / "b", limit - overhead)
    write_file(deep / name, "x")
    assert [p.name for p in deep.iterdir()] == [name]


def test_the_library_refuses_a_dash_as_the_file_to_write(tmp_path, monkeypatch):
    # write_run(run, "-") wrote a file named "-" into the working folder, which every
    # reader (read_run("-"), evaluate) takes for standard input: refused as the command
    # line refuses it; ./- names that file
    import trecbench

    monkeypatch.chdir(tmp_path)
    run = {"q1": {"d1": 2.5}}
    for write, value in ((trecbench.write_run, run), (trecbench.write_qrels, {"q1": {"d1": 1}})):
        with pytest.raises(OutputError, match=r"^-: give a file name \(this output cannot go"):
            write(value, "-")
    assert list(tmp_path.iterdir()) == []
    trecbench.write_run(run, "./-")
    assert (tmp_path / "-").read_text() == "q1\tQ0\td1\t1\t2.5\trun\n"


def test_a_file_named_dash_is_said_as_written_to_dot_slash_dash(tmp_path, capsys, monkeypatch):
    # fuse -o ./- wrote the file ./- and said "wrote -: ...", which reads as standard output
    from conftest import ROOT

    from trecbench.cli import run

    monkeypatch.chdir(tmp_path)
    runs = [str(ROOT / "runs" / "tfidf-char.run"), str(ROOT / "runs" / "tfidf-word.run")]
    assert run(["fuse", *runs, "-o", "./-"]) == 0
    assert capsys.readouterr().err.startswith("wrote ./-: ")
    assert (tmp_path / "-").is_file()
    # any name starting with '-': "wrote -q" read as the option
    assert run(["fuse", *runs, "-o", "./-q"]) == 0
    assert capsys.readouterr().err.startswith("wrote ./-q: ")


def test_a_nul_byte_in_a_file_name_is_refused_naming_the_file(tmp_path):
    # write_run(x, "a\x00b") and evaluate(q, ["r", "a\x00b"]) raised Python's bare
    # ValueError "embedded null byte", naming no file
    from conftest import ROOT

    import trecbench
    from trecbench.errors import InputError

    qrels, run = str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")
    with pytest.raises(OutputError, match=r"^x\\x00y: a file name cannot hold a NUL byte$"):
        trecbench.write_run({"1": {"a": 1.0}}, "x\x00y")
    bad = "r\x00"
    for call in (
        lambda: trecbench.load_run(bad),
        lambda: trecbench.evaluate(qrels, [run, bad]),  # two runs: the worker count's stat
        lambda: trecbench.compare(qrels, [run, bad]),
    ):
        with pytest.raises(InputError, match="cannot read: a file name cannot hold a NUL byte"):
            call()


def test_two_outputs_naming_one_file_by_a_hard_link_are_refused(tmp_path):
    # --report r.json --manifest m.json, m.json a hard link of r.json: accepted, and the
    # commit split the link into two files (by a symbolic link or ./, refused)
    (tmp_path / "r.json").write_text("x")
    os.link(tmp_path / "r.json", tmp_path / "m.json")
    with pytest.raises(UsageError) as refused:
        output_identity.refuse_one_file_twice(
            [("--report", tmp_path / "r.json"), ("--manifest", tmp_path / "m.json")]
        )
    assert str(refused.value) == (
        f"{tmp_path / 'r.json'}: written twice by one command, as --report and as --manifest "
        f"({tmp_path / 'm.json'}: the same file)"
    )
    with pytest.raises(OutputError, match="written twice"):
        with OutputSet() as out:
            out.write(tmp_path / "r.json", "a")
            out.write(tmp_path / "m.json", "b")
    assert (tmp_path / "r.json").read_text() == "x"
    assert os.path.samefile(tmp_path / "r.json", tmp_path / "m.json")


def test_a_journal_that_cannot_be_written_names_the_folder(tmp_path, monkeypatch):
    # a full disk at the journal (written at the commit) said "output: cannot write (No
    # space left on device)": no file named
    from trecbench import publication

    real_write = Path.write_text

    def full(self, *args, **kwargs):
        if self.name.startswith(publication.JOURNAL):
            raise OSError(28, "No space left on device")
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    (tmp_path / "a").write_text("old")
    with pytest.raises(OutputError) as refused:
        with OutputSet() as out:
            out.write(tmp_path / "a", "new")
    assert str(refused.value) == f"{tmp_path}: cannot write (No space left on device)"
    assert (tmp_path / "a").read_text() == "old"


def _signal_in_a_finalizer(handler, number):
    """What ``check_target`` becomes: first a signal's handler run inside a finalizer,
    where Python prints the exception it raises and ignores it (``Exception ignored
    in: <finalize object ...>``: a signal landing as Arrow's buffers are handed back)."""
    import weakref

    def check(*args, **kwargs):
        class Held:
            pass

        held = Held()
        weakref.finalize(held, handler, number, None)
        del held
        return original(*args, **kwargs)

    original = outputs.check_target
    return check


@pytest.mark.parametrize(
    ("name", "code", "said"),
    [("SIGHUP", 129, ""), ("SIGTERM", 143, ""), ("SIGINT", 130, "trecbench: interrupted\n")],
)
def test_a_signal_whose_exception_a_finalizer_ignored_still_ends_the_call(
    tmp_path, monkeypatch, capfd, name, code, said
):
    """SIGHUP landing in a finalizer (its SystemExit ignored by Python) let `fuse` go on:
    it replaced its output and exited 0. The call now ends as the signal ends one: the
    output as it was, the exit 128 + the signal."""
    from trecbench import signals
    from trecbench.cli import run

    number = getattr(signal, name)
    handler = signals._interrupt if name == "SIGINT" else signals._exit
    run_a, run_b, out = tmp_path / "a.run", tmp_path / "b.run", tmp_path / "f.run"
    run_a.write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\n")
    run_b.write_text("q1 Q0 d2 1 2 b\nq1 Q0 d3 2 1 b\n")
    out.write_text("OLD\n")
    monkeypatch.setattr(outputs, "check_target", _signal_in_a_finalizer(handler, number))
    assert run(["fuse", str(run_a), str(run_b), "-o", str(out)]) == code
    assert out.read_text() == "OLD\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.run", "b.run", "f.run"]
    assert capfd.readouterr().err == said  # no "Exception ignored in ..." traceback
    monkeypatch.undo()  # the next calls, in another thread too: what this one saw is no news
    import threading

    codes = []
    thread = threading.Thread(
        target=lambda: codes.append(run(["fuse", str(run_a), str(run_b), "-o", str(out)]))
    )
    thread.start()
    thread.join()
    assert codes == [0] and out.read_text().startswith("q1\tQ0\t")
    assert run(["fuse", str(run_a), str(run_b), "-o", str(out)]) == 0
