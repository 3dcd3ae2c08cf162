"""``python -m trecbench``, and the ``trecbench`` console script (:func:`main`)."""

import os
import signal


def main() -> None:
    """Run the command line (:func:`trecbench.cli.main`), a Ctrl-C while it is imported
    (a few hundredths of a second, tenths on a busy machine) ending it as one later does:
    ``trecbench: interrupted``, exit 130, where Python printed the traceback of the
    import. Only what Python does before this module runs (its own start-up) is left to
    Python. A Ctrl-C ignored (a background job, ``nohup``) stays ignored."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        # until the command line's guard takes Ctrl-C (trecbench.cli.run, once inside it:
        # signals.take_ctrl_c), through trecbench.cli.main's set-up too
        signal.signal(signal.SIGINT, interrupted_while_starting)
    from .cli import main as run_command_line

    run_command_line()


def interrupted_while_starting(number, frame) -> None:
    """Nothing is open nor written yet: end at once, in one line, as any Ctrl-C ends (on
    a terminal, after ending the line it echoed ``^C`` on, as :func:`trecbench.cli.run`)."""
    try:
        os.write(2, b"\ntrecbench: interrupted\n" if os.isatty(2) else b"trecbench: interrupted\n")
    except OSError:
        pass  # no stderr: the exit code says it
    os._exit(128 + signal.SIGINT)


interrupted_while_starting.handed_over = True  # (signals.take_ctrl_c)


if __name__ == "__main__":
    main()
