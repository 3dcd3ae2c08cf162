"""Click parameter types for the files a command reads and writes.

Paths are checked while the command line is parsed, so that a bad one fails before any
work, with the exit code every command gives it: 2, as an unreadable input or a refused
output (click's own path checks would make it a usage error, 1).
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from .. import outputs
from ..errors import InputError, OutputError


class InputFile(click.ParamType):
    """A file to read: it must exist and not be a folder (pipes and process substitutions,
    ``<(...)``, are files here; nothing is read); ``-`` is standard input."""

    name = "file"

    def __init__(self, path_type=str):
        self.path_type = path_type  # what the command gets: str, or pathlib.Path

    def convert(self, value, param, ctx):
        path = os.fsdecode(value)
        if path == "-":
            return self.path_type(path)
        if os.path.isdir(path):
            raise InputError(path, None, "cannot read: Is a directory")
        if not os.path.exists(path):
            reason = "broken symbolic link" if os.path.islink(path) else "No such file"
            raise InputError(path, None, f"cannot read: {reason}")
        return self.path_type(path)


class OutputFile(click.ParamType):
    """A file to write: missing, or a regular file (see :func:`outputs.check_target`)."""

    name = "file"

    def convert(self, value, param, ctx) -> Path:
        return outputs.check_target(os.fsdecode(value))


class OutputFolder(click.ParamType):
    """A folder to write into: missing (it is created) or a folder, as are the existing
    folders on its path."""

    name = "directory"

    def convert(self, value, param, ctx) -> Path:
        folder = Path(os.fsdecode(value))
        probe = folder
        while not os.path.lexists(probe) and probe.parent != probe:
            probe = probe.parent
        if os.path.lexists(probe) and not probe.is_dir():
            raise OutputError(f"{probe}: is not a directory")
        return folder


INPUT_FILE = InputFile()
OUTPUT_FILE = OutputFile()
OUTPUT_FOLDER = OutputFolder()
