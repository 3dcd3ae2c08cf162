"""Command-line interface: a thin layer that parses arguments and prints.

Each command lives in its own module of this package; all logic lives in the library.
:func:`run` is the one guard around every command: whatever happens ends as a documented
exit code (:class:`trecbench.errors.ExitCode`, docs/cli-conventions.md) and at most one
line on stderr, never a traceback (``trecbench --debug`` adds it for unexpected errors).
"""

from __future__ import annotations

import atexit
import errno
import os
import signal
import sys
import warnings
from collections.abc import Sequence
from contextvars import ContextVar
from functools import partial
from typing import NoReturn

import click

from .. import collector
from ..errors import ExitCode, InputError, TrecbenchError, bytes_escaped, one_line, shortened
from ..lazy import submodules as _submodules
from ..signals import landed, native_calls_end_at_once, signals_end_the_call, take_ctrl_c
from ..standard_output import noted
from .group import WORKFLOW, _debug, _StdoutClosed, cli, worded_here
from .stdout import UnwritableStdout, closed_streams_held, echo_bytes, whole_writes

MESSAGE_LIMIT = 4000  # characters of one message line: the last cap on a hostile value


def echo_line(message: str) -> None:
    """One line on stderr, control characters escaped so that none can start another
    line, at most :data:`MESSAGE_LIMIT` characters (:func:`~trecbench.errors.shortened`);
    an unwritable stderr is ignored (there is nowhere left to report)."""
    try:
        click.echo(f"trecbench: {shortened(one_line(message), MESSAGE_LIMIT)}", err=True)
    except OSError:
        pass


def _register() -> None:
    """Register every command now (commands are otherwise imported when looked up)."""
    cli.list_commands(None)


def main() -> NoReturn:
    """Console-script entry point: runs ``sys.argv`` and ends the process with its exit
    code (see :func:`_exit`; from Python, call :func:`run`, which returns the code)."""
    _no_huge_pages()
    # no BLAS threads: nothing here multiplies large matrices, and OpenBLAS starts one per
    # core when numpy is imported (a third of a small run's CPU time)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    _keep_freed_memory()
    collector.collect_rarely()  # its imports and inputs, alive to the end: nothing to free
    collector.leave_to_exit()  # the process ends with _exit, freeing nothing
    native_calls_end_at_once()  # its command alone: a signal may end it at once
    _exit(run())


def _exit(code: int) -> NoReturn:
    """End the process with ``code`` without tearing the interpreter down: freeing
    numpy's and Arrow's modules object by object takes 25-30 ms, a tenth of a small run.
    Nothing is lost by it: when :func:`run` returns, every output is committed and every
    file a command opened is closed (each lives in a ``with`` block), the standard streams
    are flushed here, and the exit functions registered with :mod:`atexit` (logging's,
    multiprocessing's) run as they would."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        # a Ctrl-C in the exit functions printed their traceback: what the call did is
        # done and said, the process ends at once
        signal.signal(signal.SIGINT, lambda number, frame: os._exit(ExitCode.INTERRUPTED))
    if code > 128:  # ended by a signal: multiprocessing's exit function joins each worker
        _end_workers()  # process, and one blocked for good kept the process alive
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass  # a closed stdout was reported by run(); nothing is left to report on
    os._exit(code)


def _end_workers() -> None:
    """End the worker processes a call ended by a signal leaves (their work is dropped;
    what they hold is made to survive ``kill -9``, :mod:`trecbench.processes`): SIGTERM,
    then SIGKILL to one still there after a second."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return  # no worker was started
    children = multiprocessing.active_children()
    for child in children:
        child.terminate()
    for child in children:
        child.join(1.0)
        if child.is_alive():
            child.kill()


def _no_huge_pages() -> None:
    """No transparent huge pages, unless the user asked for them (numpy's
    ``NUMPY_MADVISE_HUGEPAGE``, glibc's ``glibc.malloc.hugetlb`` tunable) or set
    ``MIMALLOC_ALLOW_THP`` themselves.

    numpy asks for them on large arrays, and where the kernel compacts memory for them
    synchronously (THP defrag "madvise") page faults stall: a quarter of ``score``'s wall
    time on a 10^7-line run here (read when numpy is imported). Arrow's mimalloc, told
    ``MIMALLOC_ALLOW_THP=0`` when pyarrow loads, turns them off for the whole process and
    the processes it starts (``prctl(PR_SET_THP_DISABLE)``), its own memory included, where
    each 2 MiB page first touched was cleared whole, over and over as its arenas are purged
    and taken again: without them ``similarity`` of two 7M-line runs is 7-13% faster and
    every command's peak memory 5-12% smaller (``score`` of the 7M-line run 270 against
    306 MiB), the other commands' times unchanged."""
    numpy_asks = os.environ.get("NUMPY_MADVISE_HUGEPAGE", "0").strip().lstrip("0") != ""
    glibc_asks = any(
        item.startswith("glibc.malloc.hugetlb=") and item != "glibc.malloc.hugetlb=0"
        for item in os.environ.get("GLIBC_TUNABLES", "").split(":")
    )
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    if not (numpy_asks or glibc_asks):
        os.environ.setdefault("MIMALLOC_ALLOW_THP", "0")


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
# blocks from this size up are mapped on their own, not taken from the main heap
MMAP_THRESHOLD = 256 << 20
# the most glibc's releases up to 2.34 take (64-bit): asked for more, they refuse
OLD_GLIBC_MMAP_THRESHOLD = 32 << 20
# the heap's free top returned to the system beyond this
TRIM_THRESHOLD = 256 << 20


def _keep_freed_memory() -> None:
    """Let glibc reuse freed memory instead of returning it to the system at once: a
    large call allocates arrays of the same sizes over and over, and each fresh page is a
    fault and a zeroing in the kernel. Arrays below :data:`MMAP_THRESHOLD` come from the
    heap, which is trimmed beyond :data:`TRIM_THRESHOLD` free. ``similarity`` and ``pool``
    hold a 7M-line run's columns whole, and its 8-byte ones (56 MB) were above the 32 MiB
    threshold set before, each mapped afresh: from the heap ``similarity`` of two such
    runs is 13% faster and ``pool`` of 20 runs 4%, for 5% more peak memory.
    Nothing happens where the C library is not glibc, or where the user tuned glibc's
    allocator (``MALLOC_*``, ``GLIBC_TUNABLES``)."""
    if os.name != "posix" or "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", ""):
        return
    if any(name.startswith("MALLOC_") for name in os.environ):
        return
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return
    if not mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD):
        mallopt(_M_MMAP_THRESHOLD, OLD_GLIBC_MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)


def run(args: Sequence[str] | None = None) -> int:
    """Run one command line (default: ``sys.argv[1:]``) and return its exit code.

    Every failure prints one line: ``trecbench: COMMAND: message (see 'trecbench COMMAND
    --help')`` for a usage error, ``trecbench: FILE:LINE: message`` for bad input,
    ``trecbench: internal error: ...`` for an unexpected exception (with its traceback
    after ``--debug``). A stdout whose reader went away (``| head``) ends quietly; a full
    one, or one that takes no write (closed, ``>&-``), is an output error. A closed stderr
    is ``/dev/null`` (:func:`~trecbench.cli.stdout.closed_streams_held`).
    """
    token, said = _debug.set(False), _said_interrupted.set(False)
    warned = _warned.set(set())
    try:
        take_ctrl_c()  # from the console script's start-up (trecbench.__main__)
        with (
            closed_streams_held(),
            whole_writes(),
            noted(sys.stdout),
            signals_end_the_call(),
            warnings.catch_warnings(),
        ):
            warnings.showwarning = partial(_show_warning, warnings.showwarning)
            code = _after_signal(_run(args))
            try:
                _flush_stdout()
            except OSError as error:  # what was left in stdout's buffer at the end
                return _stdout_error(error)
        return code
    except KeyboardInterrupt:
        # past the command's guard: a Ctrl-C as standard output is flushed and the guards
        # close, often a second one as the first is said; it printed Python's traceback
        _say_interrupted()
        return ExitCode.INTERRUPTED
    finally:
        _warned.reset(warned)
        _said_interrupted.reset(said)
        _debug.reset(token)


def _after_signal(code: int) -> int:
    """``code``, or the exit of a signal that landed in the call whose exception Python
    ignored (its handler ran in a finalizer): the call went on, its outputs were not
    committed (:func:`~trecbench.signals.raise_landed`), and it ends as the signal ends
    a call, exit 128 + the signal."""
    number = landed()
    if number is None or code == 128 + number:
        return code
    if number == signal.SIGINT:
        _say_interrupted()
    return 128 + number


# the warnings this call printed: one said again (a -Z file read as a run is scored, then
# again for --unjudged-bounds' high end) is printed once
_warned: ContextVar[set[str]] = ContextVar("trecbench_warned")

# whether this call said `interrupted` already (a second Ctrl-C says nothing more)
_said_interrupted: ContextVar[bool] = ContextVar("trecbench_said_interrupted", default=False)


def _say_interrupted() -> None:
    """``trecbench: interrupted``, once a call, on a line of its own."""
    if _said_interrupted.get():
        return
    _said_interrupted.set(True)
    _end_the_ctrl_c_line()
    echo_line("interrupted")


def _show(error: click.ClickException) -> int:
    """Print ``error`` as click does and return its exit code."""
    try:
        error.show()
    except OSError:
        pass
    return error.exit_code


def _usage_line(error: click.UsageError, args: Sequence[str]) -> str:
    """A usage error in one line, as every other failure: the command, click's message and
    where the command's options are told (click's own form takes four lines). Click gives
    some errors no context (an option without its value): the command is then the first
    of ``args`` that names one."""
    if error.ctx is not None:
        path = error.ctx.command_path
    else:
        path = " ".join(("trecbench", _command_named(args))).strip()
    command = path.removeprefix("trecbench").strip()
    prefix = f"{command}: " if command else ""
    # click quotes a value by repr: a byte that is not UTF-8 as '\udcff', shown as a file
    # name's is, '\xff'
    message = bytes_escaped(error.format_message())
    if command and isinstance(error, click.NoSuchOption) and error.option_name == "--debug":
        # click suggested score's --Debug_level (-D, trec_eval's traces), not the group's
        # --debug that the internal error's line names
        message = (
            "No such option '--debug': it is trecbench's own, given before the command "
            f"('trecbench --debug {command} ...')"
        )
    elif command == "compare" and getattr(error, "option_name", None) == "--alpha":
        # power's and agree's option: compare's --confidence is its complement
        message = (
            "No such option '--alpha': compare takes --confidence, 1 - alpha "
            "(--confidence 0.99 for alpha 0.01)"
        )
    return f"{prefix}{message} (see '{path} --help')"


def _command_named(args: Sequence[str]) -> str:
    """The command a command line runs: the first of ``args`` that names one, else ''."""
    return next((arg for arg in args if arg in WORKFLOW), "")


def _run(args: Sequence[str] | None) -> int:
    try:
        result = cli.main(args, prog_name="trecbench", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as error:  # bare `trecbench`: the help
        return _show(error)
    except click.UsageError as error:
        echo_line(_usage_line(error, _given(args)))
        return error.exit_code
    except click.ClickException as error:
        return _show(error)
    except _StdoutClosed:
        _detach_stdout()
        return ExitCode.BROKEN_PIPE
    except (click.Abort, KeyboardInterrupt):
        _say_interrupted()
        return ExitCode.INTERRUPTED
    except TrecbenchError as error:
        whole = error.cli_line() if isinstance(error, InputError) else str(error)
        for line in getattr(error, "lines", None) or [whole]:  # several findings
            echo_line(line)
        return error.exit_code
    except SystemExit as error:  # a command's own exit code, or a signal (outputs.py)
        return _exit_code(error)
    except OSError as error:
        return _os_error(error)
    except MemoryError:
        echo_line("out of memory")
        return ExitCode.INTERNAL
    except Exception as error:
        signalled = _signal_within(error)
        if isinstance(signalled, KeyboardInterrupt):
            _say_interrupted()
            return ExitCode.INTERRUPTED
        if isinstance(signalled, SystemExit):
            return _exit_code(signalled)
        if _debug.get():
            import traceback  # kept off the start-up path: only --debug prints one

            traceback.print_exc()
        detail = f"{type(error).__name__}: {error}"
        # --debug is the group's option: after the command click refuses it
        command = _command_named(_given(args)) or "COMMAND"
        hint = (
            ""
            if _debug.get()
            else f"; rerun as 'trecbench --debug {command} ...' for the traceback"
        )
        echo_line(f"internal error ({detail}){hint}. Please report it.")
        return ExitCode.INTERNAL
    return result if isinstance(result, int) else ExitCode.OK


def _exit_code(error: SystemExit) -> int:
    """The exit code a ``SystemExit`` asks for (``sys.exit``'s: None is 0, text 1)."""
    return error.code if isinstance(error.code, int) else int(error.code is not None)


def _signal_within(error: BaseException) -> BaseException | None:
    """The Ctrl-C or signal's exit an exception was raised from, if any: Python wraps
    one raised where it runs a class's ``__set_name__`` (a dataclass imported late) into
    a RuntimeError, which was said as an internal error (exit 70)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            return error
        error = error.__cause__ or error.__context__
    return None


def _end_the_ctrl_c_line() -> None:
    """On a terminal, end the line it echoed ``^C`` on, so that ``interrupted`` is a line
    of its own; anywhere else (a file, a pipe) nothing: the message is the one line."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            click.echo(err=True)
    except (OSError, ValueError):
        pass


def _given(args: Sequence[str] | None) -> Sequence[str]:
    """The command line's arguments: ``args``, or the process's when run() was given none."""
    return sys.argv[1:] if args is None else args


def _os_error(error: OSError) -> int:
    """An operating-system error no reader or writer turned into a typed error: on stdout,
    see :func:`_stdout_error`; anything else is one line (exit 2)."""
    on_stdout = isinstance(error, UnwritableStdout) or error.errno == errno.EPIPE
    if on_stdout or (error.filename is None and _raised_by_echo(error)):
        return _stdout_error(error)
    where = f"{os.fsdecode(error.filename)}: " if error.filename is not None else ""
    echo_line(f"{where}{error.strerror or error}")
    return ExitCode.INPUT


def _stdout_error(error: OSError) -> int:
    """Writing to stdout failed (or stopped short, or cannot start: closed, read-only): one
    line, exit 2 (its reader gone: exit 141, quietly)."""
    _detach_stdout()
    if error.errno == errno.EPIPE:
        return ExitCode.BROKEN_PIPE
    echo_line(f"standard output: cannot write ({error.strerror})")
    return ExitCode.INPUT


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()


def _raised_by_echo(error: OSError) -> bool:
    """Whether writing to stdout failed: commands print through ``click.echo`` and
    :func:`~trecbench.cli.stdout.echo_bytes` only (and a failing stderr leaves nothing to
    report on)."""
    import traceback

    writers = (click.echo.__code__, echo_bytes.__code__)
    return any(frame.f_code in writers for frame, _ in traceback.walk_tb(error.__traceback__))


def _detach_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of what is left in
    its buffer cannot fail again (and print a traceback of its own)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, AttributeError, ValueError):
        pass  # not a real file (a test's capture): nothing will flush it at exit


# warnings addressed to the authors of code calling a library (pandas, dask, ...), not to
# the user of the command: shown only with --debug
_FOR_DEVELOPERS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


def _show_warning(python_way, message, category, filename, lineno, file=None, line=None):
    """Python warnings as one line, without the source path and line (with --debug, the
    way Python prints them); a dependency's notice of a coming change only with --debug."""
    if _debug.get():
        python_way(message, category, filename, lineno, file, line)
    elif not issubclass(category, _FOR_DEVELOPERS):
        from .progress import bars_cleared

        # a warning worded apart for the command line (its options, not keywords)
        said = getattr(message, "cli_line", None)
        if said is None:  # its settings (SettingsText) said as the command's flags
            args = getattr(message, "args", ())
            said = worded_here(args[0]) if len(args) == 1 else message
        line = f"warning: {category.__name__}: {said}"
        warned = _warned.get(set())
        if line in warned:
            return
        warned.add(line)
        with bars_cleared():  # not run on after a bar's frame
            echo_line(line)


__getattr__ = _submodules(__name__)  # trecbench.cli.<module> after import trecbench
