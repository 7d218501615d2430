//! Parquet files of rows: [`Parquet`], the encoder a [`Columnar`](super::columnar::Columnar)
//! sink writes batches through (parquet's `ArrowWriter`).
//!
//! zstd (level 1: the codec's fastest, which still makes `values` rows a small fraction of
//! their CSV), row groups of [`ROW_GROUP_ROWS`] rows, and the columns whose values run up one
//! by one (`node`, `query`) delta-encoded rather than through a dictionary that could never
//! hold them. The Arrow schema is stored in the file's metadata, so readers get the declared
//! types back (u32 rather than Parquet's int32 annotated unsigned, dictionaries).

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use super::columnar::{Bytes, Columnar, Encoder};
use super::FileFormat;

/// Rows per row group: parquet's default, and about 1.5 MB of `values` rows once encoded,
/// which the writer holds until the group is complete.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// A row sink writing a Parquet file to a [`Put`](crate::io::sink::Put).
pub type ParquetSink<'a, P> = Columnar<'a, P, Parquet<Bytes<'a, P>>>;

/// The Parquet encoder of a columnar sink.
pub struct Parquet<W: Write + Send> {
    writer: ArrowWriter<W>,
}

/// The writer's settings for a file of `schema`.
fn properties(schema: &SchemaRef) -> WriterProperties {
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS));
    for field in schema.fields() {
        if matches!(field.name().as_str(), "node" | "query") {
            let column = ColumnPath::from(field.name().as_str());
            builder = builder
                .set_column_dictionary_enabled(column.clone(), false)
                .set_column_encoding(column, Encoding::DELTA_BINARY_PACKED);
        }
    }
    builder.build()
}

impl<W: Write + Send> Encoder<W> for Parquet<W> {
    const FORMAT: FileFormat = FileFormat::Parquet;

    fn open(out: W, schema: SchemaRef) -> Result<Self, String> {
        let props = properties(&schema);
        let writer = ArrowWriter::try_new(out, schema, Some(props)).map_err(|e| e.to_string())?;
        Ok(Parquet { writer })
    }

    fn write(&mut self, batch: RecordBatch) -> Result<(), String> {
        self.writer.write(&batch).map_err(|e| e.to_string())
    }

    fn finish(&mut self) -> Result<(), String> {
        self.writer.finish().map(|_| ()).map_err(|e| e.to_string())
    }

    fn out(&mut self) -> &mut W {
        // Only to take the error the output kept; nothing is written through it.
        self.writer.inner_mut()
    }
}
