"""tirx.layout answers as `tirx layout` does."""

from __future__ import annotations

import pytest

import tirx

MMA = ("T.TileLayout(T.S[(8, 2, 4, 2):(4 @ Axis.laneid, 1 @ Axis.warpid, 1 @ Axis.laneid, 1)]"
       " + T.R[2:4 @ Axis.warpid] + 5 @ Axis.warpid)")


def test_one_index() -> None:
    assert tirx.layout(MMA, (8, 16), at=(7, 15)) == \
        "(7, 15) -> {m=1, laneid=31, warpid=6}; {m=1, laneid=31, warpid=10}\n"


def test_every_index() -> None:
    text = tirx.layout("T.TileLayout(T.S[(2, 3):(3, 1)])", [2, 3])
    assert text.splitlines() == [f"({i}, {j}) -> {{m={i * 3 + j}}}" for i in range(2)
                                 for j in range(3)]


def test_banks_of_a_swizzle() -> None:
    text = tirx.layout("T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 64):(64, 1)]))", (8, 64),
                       at=(1, 0), dtype="float16")
    assert text.startswith("(1, 0) -> {m=") and " bank=" in text


def test_layout_errors() -> None:
    with pytest.raises(tirx.CompileError) as e:
        tirx.layout("T.TileLayout(T.S[(8, 16):(16, 1 @ Axis.lane)])", (8, 16))
    (d,) = e.value.diagnostics
    assert (d.code, d.file) == ("E0109", "<layout>")
    assert "did you mean 'laneid'" in d.message
    with pytest.raises(ValueError, match="outside the shape"):
        tirx.layout("T.TileLayout(T.S[8:1])", (8,), at=(8,))
    with pytest.raises(ValueError, match="entries"):
        tirx.layout("T.TileLayout(T.S[8:1])", (8,), at=(1, 2))
