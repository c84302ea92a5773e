"""Every ```python block of the user guide (docs/site/guide/*.md) runs as a reader would run it: a page's blocks in
order, in one fresh interpreter (one namespace a page, as a reader pastes them into one session), and a line of the
form ``print(...)  # prints: <text>`` must have printed exactly <text> on a line of its own. Text that is not Python
(a Snakefile, a shell session) is labelled as what it is, so that it is neither run nor highlighted as Python."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "site" / "guide"
# A page's blocks together; a busy machine (2 cores shared by several jobs) takes several times an idle one's time.
TIMEOUT = 300
PRINTS = re.compile(r"#\s*prints:\s*(.+?)\s*$")


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of a Markdown page, in order."""
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), re.M | re.S)


def pages_with_python() -> list[Path]:
    return [page for page in sorted(GUIDE.glob("*.md")) if python_blocks(page)]


def expected_prints(blocks: list[str]) -> list[str]:
    """The text after ``# prints:`` on each line that has one, in order."""
    return [match.group(1) for block in blocks for line in block.splitlines() if (match := PRINTS.search(line))]


def run_blocks(blocks: list[str], timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    """The blocks in one fresh interpreter, one namespace, each compiled under its own name (so that a traceback says
    which block failed)."""
    program = "ns = {'__name__': '__main__'}\n" + "".join(
        f"exec(compile({block!r}, 'block {i + 1}', 'exec'), ns)\n" for i, block in enumerate(blocks))
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_the_guide_has_python_blocks_to_run():
    pages = pages_with_python()
    assert len(pages) >= 2 and sum(len(python_blocks(page)) for page in pages) >= 4, pages


@pytest.mark.parametrize("page", pages_with_python(), ids=lambda page: page.name)
def test_every_python_block_of_the_page_runs_and_prints_what_it_says(page: Path):
    blocks = python_blocks(page)
    result = run_blocks(blocks)
    assert result.returncode == 0, f"{page.name}: a python block fails:\n{result.stderr[-3000:]}"
    printed = result.stdout.splitlines()
    for expected in expected_prints(blocks):
        assert expected in printed, f"{page.name}: a comment says it prints {expected!r}; it printed:\n{result.stdout}"


def test_a_failing_block_or_a_stale_printed_value_is_caught():
    """The checks above can fail: a name the block never defined, and a comment whose printed text is not printed."""
    failed = run_blocks(["x = 1\n", "print(y)\n"], timeout=60)
    assert failed.returncode != 0 and "block 2" in failed.stderr and "NameError" in failed.stderr
    stale = ["print(f'{0.9816:.3f}')  # prints: 0.97\n"]
    assert run_blocks(stale, timeout=60).stdout.splitlines() == ["0.982"]
    assert expected_prints(stale) == ["0.97"]
