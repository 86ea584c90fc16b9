"""The files `summarize` reads: each file named, and every *.json file under each folder named, read with the cap."""

import json
import os
from typing import Iterable, Iterator, List, Tuple

from mps_doctor.errors import UsageError
from mps_doctor.fleet.summarize import ReportFile
from mps_doctor.inputs import MAX_INPUT, embedded_report, read_input


def report_paths(arguments: Iterable[str]) -> List[Tuple[str, str]]:
    """(name, path) of every file to read: a file as given, and each *.json file under a folder (links to folders not
    followed), named by its path under that folder, in the order of their path components. A missing argument, or no file at all, is a
    UsageError."""
    found: List[Tuple[str, str]] = []
    for argument in arguments:
        if os.path.isdir(argument):
            found += sorted(folder_reports(argument), key=lambda item: item[0].split(os.sep))
        elif os.path.exists(argument):
            found.append((argument, argument))
        else:
            raise UsageError("%s: no such file or folder" % argument)
    if not found:
        raise UsageError("%s: no .json file to summarize" % ", ".join(arguments))
    return found


def folder_reports(folder: str) -> Iterator[Tuple[str, str]]:
    """(path under FOLDER, path) of each *.json file under FOLDER."""
    for parent, folders, files in os.walk(folder):
        folders.sort()
        for name in files:
            if name.lower().endswith(".json"):
                path = os.path.join(parent, name)
                yield os.path.relpath(path, folder), path


def read_report(name: str, path: str) -> ReportFile:
    """The file at PATH parsed as JSON (or as a Markdown report holding one, what `check --format markdown` writes),
    else with the problem that kept it from being read; never raises for what the file holds."""
    try:
        data = read_input(path, None, name)
    except UsageError as exc:
        problem = str(exc)[len(name) + 2:]
        if problem.startswith("the input is larger than"):
            problem = "larger than %d MiB, far more than a report" % (MAX_INPUT >> 20)
        return ReportFile(name, path, problem=problem)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ReportFile(name, path, problem="not a UTF-8 text file")
    try:
        return ReportFile(name, path, json.loads(text))
    except ValueError as exc:
        embedded = embedded_report(text)
        if embedded is None:
            return ReportFile(name, path, problem="not JSON (%s)" % exc)
        return ReportFile(name, path, json.loads(embedded))
    except RecursionError:
        return ReportFile(name, path, problem="nested too deeply to be a report")


def read_reports(arguments: Iterable[str]) -> Iterator[ReportFile]:
    """Every file of ARGUMENTS (report_paths), read one at a time; the UsageError of report_paths comes first."""
    return (read_report(name, path) for name, path in report_paths(arguments))
