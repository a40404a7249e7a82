"""A tracks file as it comes: its dialect, its columns and its rows, read in batches.

CSV (also `.tsv`, `.txt`, gzip'd as `.gz`) or Parquet. A CSV's dialect is found from its
first lines (`sniff`): the separator (`,`, `;`, tab or `|`, unless given), decimal commas
beside a `;` or tab separator, comment lines (`#`) before the header and between rows (the
last one before the rows is the header when it names their fields, as tracktable writes it),
and UTF-16 text (read as such and said). The rows are read in batches of a few MiB
(`read_batches`: pyarrow's streaming CSV reader, Parquet's `iter_batches`), so a file is never
held whole in memory. A data row is named to the user by its line in the file (`Lines`),
counted only when an error or a warning needs it.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

#: File name endings read as CSV text, and as Parquet.
TEXT_SUFFIXES = (".csv", ".tsv", ".txt", ".dat")
PARQUET_SUFFIXES = (".parquet", ".pq")
#: Compressed text, by ending.
_COMPRESSED = (".gz", ".bz2")
#: Separators tried, in order of preference when two fit equally.
SEPARATORS = (",", ";", "\t", "|")
#: Bytes of the file's start read to find its dialect.
_HEAD_BYTES = 1 << 16
#: Bytes per block of the streaming CSV reader (pyarrow's default is 1 MiB; larger blocks
#: parse faster, up to a point) and rows per Parquet batch.
BLOCK_BYTES = 1 << 24
#: Bytes per block when only the first rows are wanted.
HEAD_BLOCK_BYTES = 1 << 16
PARQUET_BATCH_ROWS = 1 << 20
#: A field that is a number or a date-time, not a name.
_VALUE = re.compile(r"\s*[-+]?[\d.:/ T-]*\d[\d.:/ TZ+-]*\s*")
#: A number with a decimal comma, and one with a decimal point.
_COMMA_NUMBER = re.compile(r"^\s*[+-]?\d+,\d+([eE][+-]?\d+)?\s*$")
_POINT_NUMBER = re.compile(r"^\s*[+-]?\d*\.\d+([eE][+-]?\d+)?\s*$")


class SourceError(ValueError):
    """The file cannot be read as tracks; one line. `option` names the `TrackOptions` field
    that would help ("separator"), or is None."""

    def __init__(self, message: str, option: str | None = None) -> None:
        self.option = option
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str, str | None]]:
        return (type(self), (str(self), self.option))


@dataclass(frozen=True)
class Dialect:
    """How a file is written.

    parquet:   a Parquet file (the rest is then unused);
    separator: the CSV field separator; decimal: "." or ",";
    encoding:  "utf8" or "utf-16"; compressed: the compression's file ending or "";
    skip:      comment or blank lines before the header;
    notes:     what was found that the user should know (a ';' separator, UTF-16), in words;
    names:     the column names of a file without a header line (its first line is a row);
    skip_bad:  skip rows with the wrong number of fields rather than refuse them.
    """

    parquet: bool
    separator: str = ","
    decimal: str = "."
    encoding: str = "utf8"
    compressed: str = ""
    skip: int = 0
    notes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    skip_bad: bool = False


def kind_of(path: Path) -> tuple[bool, str]:
    """(is Parquet, compression ending or "") from the file's name; SourceError for a name
    that is neither."""
    suffixes = [s.lower() for s in path.suffixes[-2:]]
    compressed = suffixes[-1] if suffixes and suffixes[-1] in _COMPRESSED else ""
    last = suffixes[-2] if compressed and len(suffixes) > 1 else (suffixes[-1] if suffixes else "")
    if last in PARQUET_SUFFIXES and not compressed:
        return True, ""
    if last in TEXT_SUFFIXES:
        return False, compressed
    raise SourceError(f"{path}: tracks must be a .csv (.tsv, .txt, .csv.gz) or .parquet file")


def _open_binary(path: Path, compressed: str) -> BinaryIO:
    if compressed == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if compressed == ".bz2":
        return bz2.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def _encoding(head: bytes) -> str:
    """ "utf-16" for UTF-16 text (a byte-order mark, or NULs between ASCII bytes), else
    "utf8"."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    sample = head[:200]
    if len(sample) >= 4 and sample.count(0) >= len(sample) // 3:
        return "utf-16"
    return "utf8"


def _count_fields(line: str, separator: str) -> int:
    """Fields of a CSV line, quotes respected (a separator inside quotes is not one)."""
    import csv

    try:
        return len(next(csv.reader([line], delimiter=separator)))
    except (csv.Error, StopIteration):
        return 0


def sniff(path: Path, separator: str | None = None, names: tuple[str, ...] = ()) -> Dialect:
    """The dialect of `path` (see the module's description); `separator` forces one; `names`
    name the columns of a file without a header line. SourceError for a first line that
    looks like a row rather than column names (then `names` helps)."""
    parquet, compressed = kind_of(path)
    if parquet:
        return Dialect(parquet=True)
    try:
        with _open_binary(path, compressed) as f:
            head = f.read(_HEAD_BYTES)
    except (OSError, EOFError) as e:
        raise SourceError(f"{path}: {_first_line(e)}") from None
    encoding = _encoding(head)
    notes: list[str] = []
    if encoding == "utf-16":
        text = head.decode("utf-16", errors="ignore")
        notes.append("read as UTF-16 text")
    else:
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError as e:
            if e.start < len(head) - 4:  # not just a character cut at the end of the head
                raise SourceError(
                    f"{path}: byte {e.start + 1} is not UTF-8 text (save the file as UTF-8 "
                    "or UTF-16)"
                ) from None
            text = head[: e.start].decode("utf-8")
        text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    if len(head) == _HEAD_BYTES and lines:
        lines = lines[:-1]  # the last may be cut
    skip = 0
    while skip < len(lines) and (not lines[skip].strip() or lines[skip].lstrip().startswith("#")):
        skip += 1
    body = [line for line in lines[skip:] if line.strip() and not line.lstrip().startswith("#")]
    if not body:
        raise SourceError(f"{path}: no header line (the file is empty or all comments)")
    if separator is None:
        separator = _separator(body[:20])
    elif separator not in body[0]:
        fields = body[0][:60]
        raise SourceError(
            f"{path}: line {skip + 1} (the header, {fields!r}) has no {separator!r}",
            "separator",
        )
    decimal = "."
    if separator != ",":
        cells = [c for line in body[1:20] for c in line.split(separator)]
        if any(_COMMA_NUMBER.match(c) for c in cells) and not any(
            _POINT_NUMBER.match(c) for c in cells
        ):
            decimal = ","
    if separator != ",":
        shown = {"\t": "tab", ";": "';'", "|": "'|'"}.get(separator, repr(separator))
        notes.append(f"{shown}-separated" + (", decimal commas" if decimal == "," else ""))
    if compressed:
        notes.append(f"{compressed[1:]}-compressed")
    commented = _comment_header(lines[:skip], body[0], separator) if not names else None
    if commented is not None:
        number, found = commented
        names = found
        notes.append(f"column names taken from the comment line {number}")
    elif not names and _looks_like_a_row(body[0], separator):
        above = [line.lstrip("# ").strip() for line in lines[:skip] if line.strip()]
        said = f" (the comment above it says {above[-1][:60]!r})" if above else ""
        raise SourceError(
            f"{path}: line {skip + 1}, {body[0][:50]!r}..., looks like a row, not column "
            f"names{said}: the file has no header line; name its columns",
            "names",
        )
    if names and commented is None:
        notes.append("columns named " + ", ".join(names))
    return Dialect(False, separator, decimal, encoding, compressed, skip, tuple(notes), names)


def _comment_header(
    above: list[str], first: str, separator: str
) -> tuple[int, tuple[str, ...]] | None:
    """(line number, names) of a header written as a comment (tracktable writes
    `#object_id,update_time,longitude,...`): the last comment line `above` the first data
    line `first`, when it splits by `separator` into as many fields as `first`, each a name
    (not empty, not a number, none twice), and `first` is not names itself (one of its fields
    is empty or a number or date-time). Else None."""
    import csv

    comments = [(k, line) for k, line in enumerate(above, start=1) if line.strip()]
    if not comments:
        return None
    number, comment = comments[-1]
    try:
        fields = [
            f.strip() for f in next(csv.reader([comment.lstrip().lstrip("#")], delimiter=separator))
        ]
        row = next(csv.reader([first], delimiter=separator))
    except (csv.Error, StopIteration):
        return None
    if len(fields) < 2 or len(fields) != len(row) or len(set(fields)) != len(fields):
        return None
    if any(not f or _VALUE.fullmatch(f) for f in fields):
        return None
    if not any(not f.strip() or _VALUE.fullmatch(f) for f in row):
        return None
    return number, tuple(fields)


def _looks_like_a_row(line: str, separator: str) -> bool:
    """Whether a header line is data: most of its fields numbers or date-times."""
    import csv

    try:
        fields = next(csv.reader([line], delimiter=separator))
    except (csv.Error, StopIteration):
        return False
    data = [f for f in fields if _VALUE.fullmatch(f)]
    return len(fields) > 1 and len(data) * 2 > len(fields)


def _separator(lines: Sequence[str]) -> str:
    """The separator that splits every line into the same number (> 1) of fields, the most
    fields winning; "," if none does (a one-column file is refused later, naming --sep)."""
    best, fields = ",", 1
    for candidate in SEPARATORS:
        counts = {_count_fields(line, candidate) for line in lines}
        if len(counts) == 1 and (n := counts.pop()) > fields:
            best, fields = candidate, n
    return best


def column_names(path: Path, dialect: Dialect) -> list[str]:
    """The file's column names, read without reading its rows; SourceError if a name
    appears twice or the file cannot be read."""
    import pyarrow as pa

    try:
        if dialect.parquet:
            import pyarrow.parquet as pq

            names = list(pq.read_schema(path).names)
        else:
            with _csv_reader(path, dialect, None, {}, HEAD_BLOCK_BYTES) as reader:
                names = list(reader.schema.names)
    except UnicodeDecodeError:
        raise SourceError(f"{path}: the column names are not UTF-8 text") from None
    except (pa.ArrowException, OSError, EOFError) as e:
        raise parse_error(_first_line(e), path, dialect) from None
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise SourceError(f"{path}: column {twice[0]!r} appears twice")
    return names


class BadRows:
    """pyarrow's handler of a row with the wrong number of fields: a comment line is skipped;
    anything else is an error, or with `skip` skipped and kept in `rows` (their text)."""

    def __init__(self, skip: bool = False) -> None:
        self.skip = skip
        self.rows: list[str] = []

    def __call__(self, row: Any) -> str:
        text = str(row.text)
        if text.lstrip().startswith("#"):
            return "skip"
        if self.skip:
            self.rows.append(text)
            return "skip"
        return "error"


def _csv_reader(
    path: Path,
    dialect: Dialect,
    include: Sequence[str] | None,
    types: dict,
    block: int = BLOCK_BYTES,
    bad: BadRows | None = None,
) -> Any:
    import pyarrow.csv as pacsv

    read = pacsv.ReadOptions(
        encoding=dialect.encoding,
        skip_rows=dialect.skip,
        block_size=block,
        column_names=list(dialect.names) or None,
    )
    parse = pacsv.ParseOptions(
        delimiter=dialect.separator,
        invalid_row_handler=bad if bad is not None else BadRows(dialect.skip_bad),
    )
    convert = pacsv.ConvertOptions(
        include_columns=list(include) if include is not None else None,
        column_types=types,
        decimal_point=dialect.decimal,
        strings_can_be_null=True,
    )
    return pacsv.open_csv(path, read_options=read, parse_options=parse, convert_options=convert)


def read_batches(
    path: Path,
    dialect: Dialect,
    columns: Sequence[str],
    types: dict[str, Any],
    block: int = BLOCK_BYTES,
    bad: BadRows | None = None,
) -> Iterator[Any]:
    """The rows of `columns` as pyarrow RecordBatches, in file order; CSV columns in `types`
    are converted to those types while parsing (others are inferred). pyarrow's errors come
    through as they are: the caller finds the row at fault (`Lines`)."""
    if dialect.parquet:
        import pyarrow.parquet as pq

        with pq.ParquetFile(path) as f:
            yield from f.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=list(columns))
        return
    with _csv_reader(path, dialect, columns, types, block, bad) as reader:
        yield from reader


def as_numpy(array: Any, dtype: Any, fill: Any = None) -> Any:
    """A pyarrow Array (or ChunkedArray) of fixed-width `dtype` values as numpy, nulls as
    `fill` (None: it has none): a view of its buffer where it can be. pyarrow's own to_numpy
    imports pandas, which cost reading a large file a tenth of its parse."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.null_count:
        array = pc.fill_null(array, fill)
    size = np.dtype(dtype).itemsize
    return np.frombuffer(array.buffers()[1], dtype, len(array), array.offset * size)


def parquet_rows(path: Path) -> int:
    """The rows a Parquet file holds, from its footer."""
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(path).metadata.num_rows)


def text_bytes(path: Path, dialect: Dialect) -> int:
    """The size of the text (after decompression; gzip's trailer says it, modulo 4 GiB)."""
    size = path.stat().st_size
    if dialect.compressed == ".gz" and size >= 4:
        with open(path, "rb") as f:
            f.seek(-4, io.SEEK_END)
            stored = int.from_bytes(f.read(4), "little")
        return stored + (size * 4 // 2**32) * 2**32 if stored else size * 4
    if dialect.compressed:
        return size * 4  # bzip2 keeps no size: a typical ratio
    return size


def head_bytes_per_row(path: Path, dialect: Dialect) -> float:
    """The mean bytes of the first data lines (their rows' size, for a count of the rows)."""
    with _open_binary(path, dialect.compressed) as f:
        head = f.read(_HEAD_BYTES)
    lines = head.splitlines()[dialect.skip + 1 : -1] or head.splitlines()[-1:]
    return max(1.0, sum(len(line) + 1 for line in lines) / max(len(lines), 1))


def stem(path: Path) -> str:
    """The file's name without its endings ("hike" for hike.csv.gz): its tracks' group."""
    if path.suffix.lower() in _COMPRESSED:
        path = path.with_suffix("")
    return path.stem


class Lines:
    """Data rows (0-based, in the order read) as lines of the file, for messages.

    A CSV's lines are counted on demand by reading the file again (only an error or a
    warning needs them): the header and comment or blank lines are not rows. A Parquet
    file's rows are named as rows (1-based).
    """

    def __init__(self, path: Path, dialect: Dialect) -> None:
        self.path = path
        self.dialect = dialect

    def where(self, *rows: int) -> list[str]:
        """ "PATH: line N" (CSV) or "PATH: row N" (Parquet) for each row."""
        if self.dialect.parquet:
            return [f"{self.path}: row {row + 1}" for row in rows]
        found = self._line_numbers(sorted(set(rows)))
        return [f"{self.path}: line {found[row]}" for row in rows]

    def at(self, row: int) -> str:
        """`where` of one row."""
        return self.where(row)[0]

    def find(self, text: str) -> int | None:
        """The number of the first line that is `text` (pyarrow quotes a bad row's text in
        its errors, not its line), or None."""
        if self.dialect.parquet:
            return None
        encoding = "utf-8-sig" if self.dialect.encoding == "utf8" else self.dialect.encoding
        with _open_binary(self.path, self.dialect.compressed) as raw:
            lines = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")
            for number, line in enumerate(lines, start=1):
                if line.rstrip("\r\n") == text:
                    return number
        return None

    def _line_numbers(self, rows: list[int]) -> dict[int, int]:
        found: dict[int, int] = {}
        wanted = iter(rows)
        target = next(wanted, None)
        row = -2 if not self.dialect.names else -1  # the header is row -1
        encoding = "utf-8-sig" if self.dialect.encoding == "utf8" else self.dialect.encoding
        with _open_binary(self.path, self.dialect.compressed) as raw:
            text = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")
            for number, line in enumerate(text, start=1):
                if target is None:
                    break
                if number <= self.dialect.skip or not line.strip():
                    continue
                if line.lstrip().startswith("#"):
                    continue
                row += 1
                while target is not None and row == target:
                    found[target] = number
                    target = next(wanted, None)
        first = self.dialect.skip + (1 if self.dialect.names else 2)
        for missing in (r for r in rows if r not in found):
            found[missing] = missing + first
        return found


def parse_error(text: str, path: Path, dialect: Dialect) -> SourceError:
    """pyarrow's error `text` as a SourceError; a row with too many or too few fields is
    named by its line (pyarrow quotes the row, not its line)."""
    fields = re.search(r"Expected (\d+) columns, got (\d+): (.*)", text)
    if fields is None:
        return SourceError(f"{path}: {text}")
    number = Lines(path, dialect).find(fields[3])
    where = f"{path}: line {number}" if number is not None else str(path)
    said = f"{where}: {fields[2]} fields where the header has {fields[1]} ({fields[3][:60]!r})"
    if dialect.separator == "," and fields[1] == "1":
        return SourceError(f"{said}; if the file has another separator, give it", "separator")
    return SourceError(said, "skip_bad_rows")


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


__all__ = [
    "BadRows",
    "Dialect",
    "Lines",
    "SourceError",
    "as_numpy",
    "column_names",
    "kind_of",
    "parquet_rows",
    "parse_error",
    "read_batches",
    "sniff",
    "stem",
    "text_bytes",
]
