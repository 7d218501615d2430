"""Parquet and Arrow IPC files of `grundy values`, `query` and `solve --report` (normal play
and the others), read with pyarrow and compared with the CSV the same command writes: every
column, every row, and each column's type as the README documents it.

The binary is $GRUNDY (scripts/pytest.sh points it at target/release/grundy); inputs are
made by `grundy generate` (and `grundy game cutting --export` for the sums format) in a
temporary folder.
"""

import csv
import os
import subprocess

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

GRUNDY = os.environ.get("GRUNDY", "target/release/grundy")

U32 = pa.uint32()
IDS = pa.list_(pa.field("item", pa.uint32(), nullable=False))
WORDS = pa.dictionary(pa.int8(), pa.string())

# The documented types: (type, nullable) per column.
TYPES = {
    "case": (U32, False),
    "node": (U32, False),
    "level": (U32, False),
    "out_degree": (U32, False),
    "query": (pa.uint64(), False),
    "positions": (IDS, False),
    "nim_sum": (U32, False),
    "result": (WORDS, False),
    "move_from": (U32, True),
    "move_to": (IDS, True),
    "infinite_set": (IDS, False),
    "outcome": (WORDS, False),
    # The plays' columns (`--play`).
    "remoteness": (U32, False),
    "suspense": (U32, False),
    "misere_outcome": (WORDS, False),
    "misere_grundy": (U32, False),
    "misere_heap": (U32, True),
    "misere_genus": (IDS, True),
    "reason": (pa.string(), True),
}


def grundy(*args):
    """Runs the binary; returns its stdout (bytes), failing on any error."""
    done = subprocess.run([GRUNDY, *map(str, args)], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b"", done.stderr.decode()
    return done.stdout


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    made = {}

    def generate(name, *args):
        made[name] = d / name
        grundy("generate", "-o", made[name], *args)

    # Several cases, and one case of more than a row group (2^20 rows) and a batch.
    generate("cases.txt", "-n", "1..5000", "--cases", "4", "-q", "3000", "--max-tokens", "6")
    generate("big.txt", "-n", "1100000", "--edges", "3300000", "-q", "0", "--seed", "7")
    generate("loopy.txt", "-n", "20000", "--back-edges", "0.1", "-q", "5000", "--seed", "5")
    generate("graph.txt", "-n", "20000", "-q", "0", "--seed", "2")
    generate("queries.txt", "-n", "20000", "--queries-only", "-q", "50000", "--seed", "2")
    cutting = d / "cutting.txt"
    cutting.write_text("2 2\n3 2\n4 3\n5 5\n7 4\n")
    made["sums.txt"] = d / "sums.txt"
    made["sums.txt"].write_bytes(grundy("game", "cutting", cutting, "--export"))
    made["dir"] = d
    return made


def read_columnar(path):
    """The table a Parquet or Arrow IPC file holds, told apart by its magic bytes."""
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic.startswith(b"PAR1"):
        return pq.read_table(path)
    assert magic == b"ARROW1", magic
    with ipc.open_file(path) as reader:
        return reader.read_all()


def as_csv_field(name, value):
    """A value read back, as the CSV writes it."""
    if value is None:
        return "inf" if name == "grundy" else ""
    if isinstance(value, list):
        return " ".join(map(str, value))
    return str(value)


def check_types(table):
    loopy = "infinite_set" in table.schema.names
    for field in table.schema:
        if field.name == "grundy":
            expected = (U32, loopy)
        elif field.name == "move_from" and "reason" in table.schema.names:
            # A play's move may move every token: a list.
            expected = (IDS, True)
        else:
            expected = TYPES[field.name]
        assert (field.type, field.nullable) == expected, field


def compare(columnar, csv_path):
    """Every column of the columnar file equals the CSV's, row by row."""
    table = read_columnar(columnar)
    check_types(table)
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    assert table.schema.names == header
    assert table.num_rows == len(rows)
    for i, name in enumerate(header):
        got = [as_csv_field(name, v) for v in table.column(name).to_pylist()]
        want = [row[i] for row in rows]
        assert got == want, f"column {name} of {columnar}"
    return table


RUNS = {
    "values": ["values", "{cases.txt}", "-o", "OUT"],
    "values-big": ["values", "{big.txt}", "-o", "OUT"],
    "values-loopy": ["values", "{loopy.txt}", "--loopy", "-o", "OUT"],
    "values-sums": ["values", "{sums.txt}", "--format", "sums", "-o", "OUT"],
    "query": ["query", "{graph.txt}", "{queries.txt}", "-o", "OUT"],
    "query-columns": [
        "query", "{graph.txt}", "{queries.txt}", "--columns", "result,move_to,positions", "-o", "OUT"
    ],
    "query-loopy": ["query", "{loopy.txt}", "{queries.txt}", "--loopy", "-o", "OUT"],
    "solve-report": ["solve", "{cases.txt}", "--report", "OUT"],
    "solve-report-loopy": ["solve", "{loopy.txt}", "--loopy", "--report", "OUT"],
    "solve-report-sums": ["solve", "{sums.txt}", "--format", "sums", "--report", "OUT"],
    "values-conjunctive": ["values", "{cases.txt}", "--play", "conjunctive", "-o", "OUT"],
    "values-continued": ["values", "{cases.txt}", "--play", "continued", "-o", "OUT"],
    "values-misere": ["values", "{cases.txt}", "--play", "misere", "-o", "OUT"],
    "values-misere-genus": ["values", "{cases.txt}", "--play", "misere", "--genus", "-o", "OUT"],
    "query-misere": ["query", "{graph.txt}", "{queries.txt}", "--play", "misere", "-o", "OUT"],
    "solve-report-conjunctive": ["solve", "{cases.txt}", "--play", "conjunctive", "--report", "OUT"],
}


def arguments(run, inputs, out):
    args = []
    for a in RUNS[run]:
        if a == "OUT":
            args.append(out)
        elif a.startswith("{"):
            args.append(inputs[a[1:-1]])
        else:
            args.append(a)
    return args


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("how", ["parquet", "arrow", "flag-parquet", "flag-arrow"])
def test_columnar_files_hold_the_csv(run, how, inputs, tmp_path):
    csv_out = tmp_path / "rows.csv"
    lines = grundy(*arguments(run, inputs, csv_out))
    if how.startswith("flag-"):
        # The flag wins over the name.
        out = tmp_path / "rows.data"
        args = arguments(run, inputs, out) + ["--output-format", how[5:]]
    else:
        out = tmp_path / f"rows.{how}"
        args = arguments(run, inputs, out)
    assert grundy(*args) == lines, "the judge lines do not change"
    table = compare(out, csv_out)
    assert table.num_rows > 0


def test_big_parquet_has_row_groups_of_a_million_rows(inputs, tmp_path):
    out = tmp_path / "big.parquet"
    grundy("values", inputs["big.txt"], "-o", out)
    meta = pq.ParquetFile(out).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [1 << 20, 51424]
    assert meta.row_group(0).column(0).compression == "ZSTD"


def test_csv_extension_with_parquet_flag_and_parquet_name_with_csv_flag(inputs, tmp_path):
    out = tmp_path / "v.csv"
    grundy("values", inputs["cases.txt"], "-o", out, "--output-format", "parquet")
    assert pq.read_table(out).num_rows > 0
    out = tmp_path / "v.parquet"
    grundy("values", inputs["cases.txt"], "-o", out, "--output-format", "csv")
    assert out.read_text().startswith("case,node,grundy,level,out_degree\n")
