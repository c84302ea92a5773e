"""tests/compare_results.py on tiny result trees: each class of difference is found and reported."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare_results as cr


def write_npz(path: Path, **arrays) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **arrays)


@pytest.fixture
def trees(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for root in (old, new):
        (root / "t").mkdir(parents=True)
        (root / "t" / "same.txt").write_text("x\n")
    (old / "t" / "wider.csv").write_text("a,b\n1,0.5\n2,0.25\n")
    (new / "t" / "wider.csv").write_text("a,b,c\n1,0.5,x\n2,0.25,y\n")
    (old / "t" / "changed.csv").write_text("a,b\n1,0.5\n")
    (new / "t" / "changed.csv").write_text("a,b\n1,0.5001\n")
    write_npz(old / "e" / "renamed.npz", n=np.array([10, 20]), theta=np.ones((2, 3)))
    write_npz(new / "e" / "renamed.npz", points=np.array([10.0, 20.0]), theta=np.ones((2, 1, 3)), notes=np.array([""]))
    write_npz(old / "e" / "moved.npz", theta=np.zeros(3))
    write_npz(new / "e" / "moved.npz", theta=np.array([0.0, 1e-12, 0.0]))
    (old / "r.md").write_text("# a\nold line\n")
    (new / "r.md").write_text("# a\nnew line\n")
    (old / "gone.json").write_text("{}")
    (new / "born.json").write_text("{}")
    (old / "k.json").write_text('{"a": 1, "b": 2}')
    (new / "k.json").write_text('{"b": 2, "a": 1}\n')
    header = b"%PDF-1.4\n/CreationDate (D:20260101000000Z)\n/ID [<0a0b> <0c0d>]\nstream\n"
    (old / "f.pdf").write_bytes(header + b"12 34 l\n")
    (new / "f.pdf").write_bytes(header.replace(b"2026", b"2027").replace(b"0a0b", b"ffff") + b"12 34 l\n")
    return old, new


def test_every_class_of_difference_is_found(trees):
    old, new = trees
    found = {o.path: o for o in cr.compare_trees(old, new)}
    assert found["t/same.txt"].kind == cr.IDENTICAL
    assert found["t/wider.csv"].kind == cr.SAME_NUMBERS and "columns added ['c']" in found["t/wider.csv"].detail
    assert found["t/changed.csv"].kind == cr.NUMBERS_CHANGED
    assert found["t/changed.csv"].max_abs == pytest.approx(1e-4)
    assert found["e/renamed.npz"].kind == cr.SAME_NUMBERS and "n -> points" in found["e/renamed.npz"].detail
    assert found["e/moved.npz"].kind == cr.NUMBERS_CHANGED and found["e/moved.npz"].max_abs == pytest.approx(1e-12)
    assert found["r.md"].kind == cr.TEXT_CHANGED and "+new line" in found["r.md"].detail
    assert found["k.json"].kind == cr.SAME_NUMBERS
    assert found["f.pdf"].kind == cr.SAME_NUMBERS
    assert found["gone.json"].kind == cr.ONLY_OLD and found["born.json"].kind == cr.ONLY_NEW


def test_a_renamed_file_is_compared_with_its_new_name(trees):
    old, new = trees
    found = {o.path: o for o in cr.compare_trees(old, new, {"gone.json": "born.json"})}
    assert found["gone.json"].kind == cr.IDENTICAL and "born.json" not in found


def test_the_command_prints_the_counts_and_writes_the_report(trees, capsys, tmp_path):
    old, new = trees
    assert cr.main([str(old), str(new), "--report", str(tmp_path / "report.md")]) == 0
    printed = capsys.readouterr().out
    assert "identical: 1" in printed and "numbers changed: 2" in printed
    assert "## numbers changed (2)" in (tmp_path / "report.md").read_text()
