//! Parquet and Arrow IPC outputs (`--output-format`, or a `.parquet` / `.arrow` path): read
//! back with the parquet and arrow-ipc crates, every row is the CSV's, with the documented
//! types; the flag wins over the extension; a failed run leaves no file; a build without the
//! `columnar` feature refuses them by name. (`tests/py/test_columnar.py` reads the same files
//! with pyarrow.)

#[cfg(not(feature = "columnar"))]
#[test]
fn columnar_formats_need_the_feature() {
    use crate::util::*;
    use std::path::Path;

    let dir = tempdir();
    let input = write_file(dir.path(), "in.txt", b"2\n1 1\n0\n1 0\n0\n");
    let input = input.to_str().unwrap();
    let out = dir.path().join("out.parquet");
    let out = out.to_str().unwrap();
    for args in [
        vec!["values", input, "-o", out],
        vec!["values", input, "--output-format", "arrow"],
        vec!["solve", input, "--report", out],
    ] {
        let run = run(&args, None);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
        assert!(run.stderr.contains("--features columnar"), "{}", run.stderr);
        assert!(run.stdout.is_empty());
        assert!(!Path::new(out).exists());
    }
    // CSV is still written, whatever the name.
    let args = ["values", input, "-o", out, "--output-format", "csv"];
    assert_eq!(run(&args, None).ok(), "");
    assert!(std::fs::read_to_string(out).unwrap().starts_with("case,node,grundy"));
}

#[cfg(feature = "columnar")]
mod with_the_feature {
    use std::fs::File;
    use std::path::Path;

    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int8Type, UInt32Type, UInt64Type};
    use arrow_array::{Array, RecordBatch};
    use arrow_schema::DataType;

    use crate::util::*;

    /// The batches of a Parquet or Arrow IPC file (told apart by their magic bytes).
    fn read_batches(path: &Path) -> Vec<RecordBatch> {
        let bytes = std::fs::read(path).unwrap();
        if bytes.starts_with(b"PAR1") {
            assert!(bytes.ends_with(b"PAR1"), "{}", path.display());
            let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                File::open(path).unwrap(),
            )
            .unwrap()
            .build()
            .unwrap();
            reader.map(|b| b.unwrap()).collect()
        } else {
            assert!(bytes.starts_with(b"ARROW1"), "{}", path.display());
            let reader =
                arrow_ipc::reader::FileReader::try_new(File::open(path).unwrap(), None).unwrap();
            reader.map(|b| b.unwrap()).collect()
        }
    }

    /// The file as CSV text, its header from the schema's names, each field as the CSV writes
    /// it: lists space-separated, nulls empty (a null `grundy` is `inf`), dictionaries'
    /// words. Checks every column's type against the documented one on the way.
    fn as_csv(path: &Path) -> String {
        let batches = read_batches(path);
        let schema = match batches.first() {
            Some(batch) => batch.schema(),
            None => return String::new(),
        };
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let mut text = names.join(",") + "\n";
        // A play's query rows (those with a reason) move a list of tokens.
        let played = names.contains(&"reason");
        for field in schema.fields() {
            let expected = match field.name().as_str() {
                "query" => "UInt64",
                "positions" | "infinite_set" | "move_to" | "misere_genus" => "List(UInt32)",
                "move_from" if played => "List(UInt32)",
                "outcome" | "result" | "misere_outcome" => "Dictionary(Int8, Utf8)",
                "reason" => "Utf8",
                _ => "UInt32",
            };
            let shown = match field.data_type() {
                DataType::List(item) => format!("List({})", item.data_type()),
                other => other.to_string(),
            };
            assert_eq!(shown, expected, "column {}", field.name());
            let nullable = matches!(
                field.name().as_str(),
                "move_from" | "move_to" | "misere_heap" | "misere_genus" | "reason"
            ) || (field.name() == "grundy" && names.contains(&"infinite_set"));
            assert_eq!(field.is_nullable(), nullable, "column {}", field.name());
        }
        for batch in &batches {
            for row in 0..batch.num_rows() {
                let fields: Vec<String> = (0..batch.num_columns())
                    .map(|c| field(batch.column(c).as_ref(), row, names[c] == "grundy"))
                    .collect();
                text += &(fields.join(",") + "\n");
            }
        }
        text
    }

    /// Row `row` of `column` as the CSV shows it.
    fn field(column: &dyn Array, row: usize, is_grundy: bool) -> String {
        if column.is_null(row) {
            return if is_grundy { "inf".into() } else { String::new() };
        }
        match column.data_type() {
            DataType::UInt32 => column.as_primitive::<UInt32Type>().value(row).to_string(),
            DataType::UInt64 => column.as_primitive::<UInt64Type>().value(row).to_string(),
            DataType::List(_) => {
                let list = column.as_list::<i32>().value(row);
                let ids = list.as_primitive::<UInt32Type>();
                ids.values().iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
            }
            // Text, quoted as the CSV quotes it.
            DataType::Utf8 => match column.as_string::<i32>().value(row) {
                text if text.contains(',') => format!("\"{text}\""),
                text => text.to_string(),
            },
            DataType::Dictionary(_, _) => {
                let words = column.as_dictionary::<Int8Type>();
                let key = words.keys().value(row) as usize;
                words.values().as_string::<i32>().value(key).to_string()
            }
            other => panic!("unexpected column type {other}"),
        }
    }

    /// Runs `args` with `OUT` replaced by `out`, expecting success and `stdout`.
    fn run_to(args: &[&str], out: &Path) -> String {
        let out = out.to_str().unwrap();
        let args: Vec<&str> = args.iter().map(|&a| if a == "OUT" { out } else { a }).collect();
        run(&args, None).ok()
    }

    /// A generated input; `extra` are more `generate` arguments.
    fn generated(dir: &Path, name: &str, extra: &[&str]) -> String {
        let path = dir.join(name);
        let path = path.to_str().unwrap().to_string();
        let mut args = vec!["generate", "-o", &path];
        args.extend_from_slice(extra);
        run(&args, None).ok();
        path
    }

    /// Every command's columnar files read back as its CSV, on both code paths.
    #[test]
    fn columnar_files_hold_the_csv_rows_with_their_types() {
        let dir = tempdir();
        let d = dir.path();
        // 3 cases, and a case of more than one piece (32 Ki rows) and batch.
        let many = generated(d, "many.txt", &["-n", "1..3000", "--cases", "3", "-q", "500"]);
        let big = generated(d, "big.txt", &["-n", "300000", "-q", "0", "--seed", "3"]);
        let loopy = generated(d, "loopy.txt", &["-n", "3000", "--back-edges", "0.1", "-q", "300"]);
        let queries = generated(d, "q.txt", &["-n", "3000", "--queries-only", "-q", "2000"]);
        let graph = generated(d, "g.txt", &["-n", "3000", "-q", "0"]);
        let sums = d.join("sums.txt");
        let cutting = write_file(d, "cutting.txt", b"2 2\n3 2\n4 3\n5 5\n");
        let export = run(&["game", "cutting", cutting.to_str().unwrap(), "--export"], None).ok();
        std::fs::write(&sums, export).unwrap();
        let sums = sums.to_str().unwrap();
        let cases: Vec<Vec<&str>> = vec![
            vec!["values", &many, "-o", "OUT"],
            vec!["values", &big, "-o", "OUT"],
            vec!["values", &loopy, "--loopy", "-o", "OUT"],
            vec!["values", sums, "--format", "sums", "-o", "OUT"],
            vec!["query", &graph, &queries, "-o", "OUT"],
            vec!["query", &graph, &queries, "--columns", "result,move_to,query", "-o", "OUT"],
            vec![
                "query",
                &loopy,
                &queries,
                "--loopy",
                "--columns",
                "move_from,nim_sum",
                "-o",
                "OUT",
            ],
            vec!["solve", &many, "--report", "OUT"],
            vec!["solve", &loopy, "--loopy", "--report", "OUT"],
            vec!["solve", sums, "--format", "sums", "--report", "OUT"],
            vec!["values", &many, "--play", "conjunctive", "-o", "OUT"],
            vec!["values", &many, "--play", "continued", "-o", "OUT"],
            vec!["values", &many, "--play", "misere", "-o", "OUT"],
            vec!["values", &many, "--play", "misere", "--genus", "-o", "OUT"],
            vec!["values", &graph, "--play", "selective", "-o", "OUT"],
            vec!["query", &graph, &queries, "--play", "conjunctive", "-o", "OUT"],
            vec!["query", &graph, &queries, "--play", "misere", "-o", "OUT"],
            vec!["solve", &many, "--play", "continued", "--report", "OUT"],
            vec!["solve", &many, "--play", "misere", "--report", "OUT"],
            vec!["solve", &many, "--play", "misere", "--genus", "--report", "OUT"],
        ];
        for args in cases {
            let csv = d.join("out.csv");
            let lines = run_to(&args, &csv);
            let csv = std::fs::read_to_string(&csv).unwrap();
            assert!(csv.lines().count() > 1, "{args:?}");
            for threads in ["1", "2"] {
                for name in ["out.parquet", "out.arrow"] {
                    let file = d.join(name);
                    let mut with_threads = vec!["-j", threads];
                    with_threads.extend_from_slice(&args);
                    assert_eq!(run_to(&with_threads, &file), lines, "{args:?}: judge lines");
                    assert!(as_csv(&file) == csv, "{name} of {args:?}, -j {threads}");
                    std::fs::remove_file(&file).unwrap();
                }
            }
        }
    }

    /// A header-only table (no case) is a file with the schema and no rows.
    #[test]
    fn an_empty_input_is_a_file_of_no_rows() {
        let dir = tempdir();
        let input = write_file(dir.path(), "empty.txt", b"\n");
        for name in ["e.parquet", "e.arrow"] {
            let out = dir.path().join(name);
            run_to(&["values", input.to_str().unwrap(), "-o", "OUT"], &out);
            let batches = read_batches(&out);
            assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 0, "{name}");
        }
    }

    #[test]
    fn the_flag_wins_over_the_extension_and_csv_is_the_default() {
        let dir = tempdir();
        let input = write_file(dir.path(), "in.txt", b"3\n1 1\n1 2\n0\n1 0\n0\n");
        let input = input.to_str().unwrap();
        let magic = |name: &str, flag: Option<&str>| {
            let out = dir.path().join(name);
            let mut args = vec!["values", input, "-o", out.to_str().unwrap()];
            if let Some(flag) = flag {
                args.extend_from_slice(&["--output-format", flag]);
            }
            run(&args, None).ok();
            let bytes = std::fs::read(&out).unwrap();
            std::fs::remove_file(&out).unwrap();
            bytes[..4].to_vec()
        };
        assert_eq!(magic("a.parquet", None), b"PAR1");
        assert_eq!(magic("a.PARQUET", None), b"PAR1");
        assert_eq!(magic("a.arrow", None), b"ARRO");
        assert_eq!(magic("a.csv", None), b"case");
        assert_eq!(magic("a.txt", None), b"case");
        assert_eq!(magic("a.parquet", Some("csv")), b"case");
        assert_eq!(magic("a.parquet", Some("arrow")), b"ARRO");
        assert_eq!(magic("a.csv", Some("parquet")), b"PAR1");
        // To stdout: only by the flag.
        let out = run(&["values", input, "--output-format", "parquet"], None);
        assert!(out.stdout.starts_with(b"PAR1") && out.stdout.ends_with(b"PAR1"));
        let out = run(&["solve", input, "--report", "-"], None);
        assert_eq!(out.code, 2, "--report - is still refused");
        let out = run(&["solve", input, "--output-format", "parquet"], None);
        assert_eq!(out.code, 2, "--output-format is the format of --report: {}", out.stderr);
        assert!(out.stderr.contains("--report"), "{}", out.stderr);
    }

    /// A run that fails (a cycle in case 2, after case 1's rows were written) leaves no file:
    /// an existing one keeps its bytes, and no temporary file stays behind.
    #[test]
    fn a_failed_run_leaves_no_columnar_file() {
        let dir = tempdir();
        let input = write_file(dir.path(), "in.txt", b"2\n1 1\n0\n1 0\n0\n2\n1 1\n1 0\n0\n");
        let input = input.to_str().unwrap();
        for name in ["r.parquet", "r.arrow"] {
            let out = dir.path().join(name);
            let o = out.to_str().unwrap();
            for args in [vec!["values", input, "-o", o], vec!["solve", input, "--report", o]] {
                let line = run(&args, None);
                assert_eq!(line.code, 1, "{args:?}");
                assert!(line.stderr.contains("case 2: cycle 0 -> 1 -> 0"), "{}", line.stderr);
                assert!(!out.exists(), "{args:?}");
                std::fs::write(&out, "old\n").unwrap();
                assert_eq!(run(&args, None).code, 1);
                assert_eq!(std::fs::read(&out).unwrap(), b"old\n", "{args:?}");
                std::fs::remove_file(&out).unwrap();
            }
        }
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["in.txt"]);
    }

    #[cfg(feature = "cluster")]
    #[test]
    fn columnar_outputs_run_on_one_process() {
        let dir = tempdir();
        let input = write_file(dir.path(), "in.txt", b"2\n1 1\n0\n1 0\n0\n");
        let input = input.to_str().unwrap();
        let out = dir.path().join("v.parquet");
        let args = ["values", input, "--processes", "2", "-o", out.to_str().unwrap()];
        let run = run(&args, None);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains("one process"), "{}", run.stderr);
        assert!(!out.exists());
    }
}
