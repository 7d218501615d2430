//! Arrow IPC files of rows (the file format, also known as Feather v2): [`Arrow`], the
//! encoder a [`Columnar`] sink writes batches through
//! (arrow-ipc's `FileWriter`).
//!
//! Uncompressed, so that a reader can map the file and use its buffers in place: the format
//! for loading fast, where Parquet is the one for storing small. Pieces (32 Ki rows of
//! `values`) are gathered into record batches of about [`BATCH_ROWS`] rows, fewer and larger
//! messages for readers that go batch by batch.

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_ipc::writer::FileWriter;
use arrow_schema::SchemaRef;

use super::columnar::{Bytes, Columnar, Encoder};
use super::FileFormat;

/// Rows gathered into one record batch: 256 Ki rows of `values` are 5 MB, held twice while
/// they are joined.
pub const BATCH_ROWS: usize = 1 << 18;

/// A row sink writing an Arrow IPC file to a [`Put`](crate::io::sink::Put).
pub type ArrowSink<'a, P> = Columnar<'a, P, Arrow<Bytes<'a, P>>>;

/// The Arrow IPC encoder of a columnar sink.
pub struct Arrow<W: Write + Send> {
    writer: FileWriter<W>,
    schema: SchemaRef,
    /// Batches not written yet, and their rows.
    pending: (Vec<RecordBatch>, usize),
}

impl<W: Write + Send> Arrow<W> {
    /// Writes the pending batches as one.
    fn flush(&mut self) -> Result<(), String> {
        let (batches, _) = std::mem::take(&mut self.pending);
        if batches.is_empty() {
            return Ok(());
        }
        let joined = arrow_select::concat::concat_batches(&self.schema, &batches)
            .map_err(|e| e.to_string())?;
        drop(batches);
        self.writer.write(&joined).map_err(|e| e.to_string())
    }
}

impl<W: Write + Send> Encoder<W> for Arrow<W> {
    const FORMAT: FileFormat = FileFormat::Arrow;

    fn open(out: W, schema: SchemaRef) -> Result<Self, String> {
        let writer = FileWriter::try_new(out, &schema).map_err(|e| e.to_string())?;
        Ok(Arrow { writer, schema, pending: (Vec::new(), 0) })
    }

    fn write(&mut self, batch: RecordBatch) -> Result<(), String> {
        self.pending.1 += batch.num_rows();
        self.pending.0.push(batch);
        if self.pending.1 >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        self.flush()?;
        self.writer.finish().map_err(|e| e.to_string())
    }

    fn output(&self) -> &W {
        self.writer.get_ref()
    }

    fn output_mut(&mut self) -> &mut W {
        // Only to take the error the output kept; nothing is written through it.
        self.writer.get_mut()
    }
}
