"""Every command example in README.md and docs/*.md runs as shown.

The convention (docs/development.md, "Examples that run"): a fenced block whose info string is
exactly ``console`` is executed; each line starting with ``$ `` is a command run from the
repository root, and the lines after it, up to the next ``$ `` line, are its expected output,
compared line by line after stripping trailing spaces. A line ``...`` alone matches any number
of lines. A last expected line ``[exit N]`` means the command must exit with code N (otherwise
it must exit with 0). A block fenced ``console no-run`` is shown but not run.

``pazaak ...`` commands (optionally fed by ``printf 'TEXT' | ``) run in-process through Click's
test runner, which is fast; any other command runs in a shell. The environment is fixed here
(no colour, 100 columns, a UTF-8 C locale), never the caller's; each block gets a fresh data
directory (for save files), shown in the output as the default ``~/.local/share/pazaak``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from pazaak_cli.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
FENCE = re.compile(r"^(`{3,})(.*)$")
EXIT_LINE = re.compile(r"^\[exit (\d+)\]$")


@dataclass(frozen=True)
class Example:
    """One ``$ `` command of a console block and the output it must print."""

    command: str
    expected: tuple[str, ...]
    exit_code: int
    line: int
    """The line of the ``$ `` command in its file (from 1), to name a failure."""


@dataclass(frozen=True)
class ConsoleBlock:
    path: Path
    line: int
    examples: tuple[Example, ...]
    problem: str = ""
    """Why the block cannot be run as written (reported by the test, not at collection)."""

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def console_blocks(path: Path) -> list[ConsoleBlock]:
    """The runnable console blocks of one Markdown file, in order."""
    blocks: list[ConsoleBlock] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, info = opening.group(1), opening.group(2).strip()
        body_start = index + 1
        end = body_start
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        if info == "console":
            try:
                examples = _examples(path, lines, body_start, end)
            except ValueError as error:
                blocks.append(ConsoleBlock(path, index + 1, (), str(error)))
            else:
                blocks.append(ConsoleBlock(path, index + 1, examples))
        index = end + 1
    return blocks


def _examples(path: Path, lines: list[str], start: int, end: int) -> tuple[Example, ...]:
    examples: list[Example] = []
    command: str | None = None
    command_line = 0
    expected: list[str] = []

    def close() -> None:
        if command is None:
            return
        exit_code = 0
        if expected and (found := EXIT_LINE.match(expected[-1].strip())):
            exit_code = int(found.group(1))
            expected.pop()
        examples.append(Example(command, tuple(expected), exit_code, command_line))

    for number in range(start, end):
        text = lines[number]
        if text.startswith("$ "):
            close()
            command, command_line, expected = text[2:].strip(), number + 1, []
        elif command is None:
            if text.strip():
                raise ValueError(
                    f"{path.relative_to(ROOT)}:{number + 1}: a console block must start "
                    f"with a '$ ' command line (mark it 'console no-run' or 'text' if not)"
                )
        else:
            expected.append(text)
    close()
    return tuple(examples)


def matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """Whether ``actual`` fits ``expected`` line by line, a ``...`` line matching any number
    of lines (trailing spaces are ignored on both sides)."""
    want = [line.rstrip() for line in expected]
    have = [line.rstrip() for line in actual]
    # fits[i][j]: want[i:] matches have[j:]
    fits = [[False] * (len(have) + 1) for _ in range(len(want) + 1)]
    fits[len(want)][len(have)] = True
    for i in range(len(want) - 1, -1, -1):
        for j in range(len(have), -1, -1):
            if want[i] == "...":
                fits[i][j] = fits[i + 1][j] or (j < len(have) and fits[i][j + 1])
            else:
                fits[i][j] = j < len(have) and want[i] == have[j] and fits[i + 1][j + 1]
    return fits[0][0]


ENVIRONMENT = {
    "NO_COLOR": "1",
    "COLUMNS": "100",
    "LINES": "40",
    "LC_ALL": "C.UTF-8",
    "LANG": "C.UTF-8",
    "TERM": "dumb",
    "PYTHONIOENCODING": "utf-8",
}


SHOWN_DATA_DIR = "~/.local/share/pazaak"
"""How the docs show the data directory (the default one); the test runs each block with a
fresh temporary data directory and writes it this way in the output."""


def run(command: str, data_dir: Path) -> tuple[list[str], int]:
    """Run one documented command from the repository root: (output lines, exit code)."""
    output, exit_code = _run(command, data_dir)
    return [line.replace(str(data_dir), SHOWN_DATA_DIR) for line in output], exit_code


def _run(command: str, data_dir: Path) -> tuple[list[str], int]:
    environment = {**ENVIRONMENT, "PAZAAK_DATA_DIR": str(data_dir)}
    words = shlex.split(command)
    stdin: str | None = None
    if len(words) > 3 and words[0] == "printf" and words[2] == "|":
        stdin = words[1].replace("\\n", "\n")
        words = words[3:]
    if words and words[0] == "pazaak" and "|" not in words and ">" not in words:
        result = CliRunner().invoke(
            main, words[1:], input=stdin, env=environment, prog_name="pazaak"
        )
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            error = result.exception
            raise AssertionError(f"{command!r} raised {error!r}") from error
        return result.output.splitlines(), result.exit_code
    completed = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env={
            **os.environ,
            **environment,
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    return (completed.stdout + completed.stderr).splitlines(), completed.returncode


ALL_BLOCKS = [block for path in DOC_FILES for block in console_blocks(path)]


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[block.name for block in ALL_BLOCKS])
def test_console_block_runs_as_shown(
    block: ConsoleBlock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not block.problem, block.problem
    monkeypatch.chdir(ROOT)
    for name in ("NO_COLOR", "COLUMNS", "TERM", "LC_ALL", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for example in block.examples:
        output, exit_code = run(example.command, tmp_path)
        where = f"{block.path.relative_to(ROOT)}:{example.line}: $ {example.command}"
        shown = "\n".join(output)
        assert exit_code == example.exit_code, (
            f"{where}\nexited {exit_code}, not {example.exit_code}; it printed:\n{shown}"
        )
        assert matches(example.expected, output), f"{where}\nprinted instead:\n{shown}"


LINK = re.compile(r"\]\(([^)\s]+)\)")


def heading_anchors(path: Path) -> set[str]:
    """The anchors a Markdown renderer gives the headings of ``path`` (GitHub's rule: lower
    case, punctuation dropped, spaces to hyphens)."""
    anchors = set()
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("path", DOC_FILES, ids=[str(p.relative_to(ROOT)) for p in DOC_FILES])
def test_every_link_between_pages_resolves(path: Path) -> None:
    """A link to a page, a file or a section of these docs leads somewhere."""
    broken = []
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in heading_anchors(linked):
            broken.append(f"{target}: no such section")
    assert not broken, f"{path.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_docs_have_examples_to_run() -> None:
    """A renamed fence or a moved page must not silently turn the check off."""
    readme = [block for block in ALL_BLOCKS if block.path.name == "README.md"]
    assert readme, "README.md has no console block"
    assert len(ALL_BLOCKS) >= 10


@pytest.mark.parametrize(
    ("expected", "actual", "fits"),
    [
        (("a", "b"), ["a", "b  "], True),
        (("a", "b"), ["a", "c"], False),
        (("a", "..."), ["a", "x", "y"], True),
        (("a", "...", "z"), ["a", "z"], True),
        (("a", "...", "z"), ["a", "x", "y"], False),
        (("a",), ["a", "b"], False),
        ((), [], True),
    ],
)
def test_the_wildcard_line_matches_any_number_of_lines(
    expected: tuple[str, ...], actual: list[str], fits: bool
) -> None:
    assert matches(expected, actual) is fits


def test_console_blocks_are_read_with_exit_codes_and_no_run_skipped(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```console\n$ pazaak nothing\nError: x\n[exit 2]\n$ pazaak rules\nRuleset\n...\n```\n"
        "```console no-run\n$ pazaak slow\n```\n```text\n$ not run\n```\n",
        encoding="utf-8",
    )
    (block,) = console_blocks(page)
    assert [(e.command, e.expected, e.exit_code) for e in block.examples] == [
        ("pazaak nothing", ("Error: x",), 2),
        ("pazaak rules", ("Ruleset", "..."), 0),
    ]


def regenerate(path: Path) -> int:
    """Rewrite the expected output of every console block of ``path`` from a real run, except
    blocks that use the ``...`` wildcard (those are edited by hand). Returns the blocks
    rewritten. For a writer who changed a command or its output: review the diff afterwards."""
    lines = path.read_text(encoding="utf-8").splitlines()
    rewritten = 0
    for block in reversed(console_blocks(path)):
        if block.problem or any("..." in e.expected for e in block.examples):
            continue
        end = block.line
        while not lines[end].startswith("```"):
            end += 1
        body: list[str] = []
        with tempfile.TemporaryDirectory() as data_dir:
            for example in block.examples:
                output, exit_code = run(example.command, Path(data_dir))
                body += [f"$ {example.command}", *(line.rstrip() for line in output)]
                if exit_code:
                    body.append(f"[exit {exit_code}]")
        lines[block.line : end] = body
        rewritten += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rewritten


if __name__ == "__main__":
    # python tests/test_docs_examples.py FILE.md...: refresh the outputs shown in those pages.
    os.chdir(ROOT)
    for name in sys.argv[1:]:
        print(f"{name}: {regenerate(Path(name).resolve())} console blocks rewritten")
