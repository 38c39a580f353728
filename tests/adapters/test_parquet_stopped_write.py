"""A Parquet write stopped in the middle of a row (a signal lands between two of its columns): the writer is
abandoned without an error of its own, so the reason the write stopped is what the caller sees."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from annotator.data_export.parquet_files import LANGUAGE_SCHEMA, _BatchedWriter


class Interrupted(Exception):
    """Stands for the KeyboardInterrupt a signal raises inside ``add``."""


class RowCutAfterItsFirstColumn(dict):
    def __getitem__(self, name: str) -> object:
        if name != LANGUAGE_SCHEMA.names[0]:
            raise Interrupted(name)
        return "item-1"


def stopped_writer(path: Path) -> _BatchedWriter:
    """A writer holding one whole pending row, stopped in the middle of the next one."""
    writer = _BatchedWriter(path, LANGUAGE_SCHEMA)
    writer.add({field.name: [] if pa.types.is_list(field.type) else None for field in LANGUAGE_SCHEMA})
    with pytest.raises(Interrupted):
        writer.add(RowCutAfterItsFirstColumn())
    return writer


def test_an_abandoned_writer_raises_nothing_over_the_reason_it_stopped(tmp_path: Path) -> None:
    stopped_writer(tmp_path / "abandoned.parquet").abandon()
    assert (tmp_path / "abandoned.parquet").exists()


def test_closing_a_writer_with_half_a_row_is_what_would_raise(tmp_path: Path) -> None:
    with pytest.raises(pa.ArrowInvalid, match="expected length"):
        stopped_writer(tmp_path / "closed.parquet").close()
