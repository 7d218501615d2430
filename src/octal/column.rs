//! The values of a run, G(0..len), in one width: a vector, or a file mapped in memory of which
//! only the pages the method reads stay resident.
//!
//! The sparse method reads the first values (the small parts of the splits, walked from the
//! ends in) and the latest ones (the other parts, the one-heap moves, the partners of the rare
//! heaps); a long run keeps its table in a file and, between stretches of heaps, tells the
//! kernel to let go of the pages in between ([`Column::release_cold`]). Nothing is lost: a
//! value read there again is a page fault away, served from the page cache or the disk. So
//! the memory of a run is what the method reads, and a walk that reaches further back than
//! before is still exact, only slower. Long scans (choosing the common values again, looking
//! for a period, writing the table) let go of what they passed as they go.

use std::fs::File;
use std::io;
use std::mem::size_of;
use std::path::{Path, PathBuf};

use memmap2::{MmapMut, UncheckedAdvice};

use crate::io::error::IoError;
use crate::io::store::Plain;

/// The page size releases round to (a multiple of the real one works as well).
const PAGE: usize = 4096;

/// Values between two looks at what a long scan may let go of.
pub const SCAN_STEP: usize = 1 << 18;

/// G(0..len) in one width.
pub struct Column<V: Plain> {
    len: usize,
    data: Data<V>,
    /// How many of the first values, and of the latest, stay resident when the rest is let go.
    hot: (usize, usize),
}

enum Data<V> {
    Memory(Vec<V>),
    File(Mapped),
}

/// A file of values in the machine's byte order, mapped shared and writable; `capacity`
/// values fit in the mapping.
struct Mapped {
    file: File,
    map: MmapMut,
    capacity: usize,
    /// Where the file is, when it has a name (a checkpoint's values); an unnamed temporary
    /// file otherwise.
    path: Option<PathBuf>,
}

/// Where a column's values are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// In a vector.
    Memory,
    /// In an unnamed temporary file, mapped.
    Temporary,
    /// In the file `{stem}{width}` (`ck.values2` for 2-byte values of the stem `ck.values`),
    /// mapped: a checkpoint's values, which outlive the process.
    Named(PathBuf),
}

impl Place {
    /// The file holding values of `width` bytes in this place, if named.
    pub fn file(&self, width: usize) -> Option<PathBuf> {
        match self {
            Place::Named(stem) => {
                let mut name = stem.clone().into_os_string();
                name.push(width.to_string());
                Some(PathBuf::from(name))
            }
            _ => None,
        }
    }
}

impl<V: Plain> From<Vec<V>> for Column<V> {
    fn from(values: Vec<V>) -> Column<V> {
        Column { len: values.len(), data: Data::Memory(values), hot: (0, 0) }
    }
}

impl<V: Plain> FromIterator<V> for Column<V> {
    fn from_iter<I: IntoIterator<Item = V>>(values: I) -> Column<V> {
        Column::from(values.into_iter().collect::<Vec<V>>())
    }
}

impl<V: Plain> std::ops::Deref for Column<V> {
    type Target = [V];

    #[inline]
    fn deref(&self) -> &[V] {
        match &self.data {
            Data::Memory(values) => values,
            Data::File(mapped) => &mapped.values::<V>()[..self.len],
        }
    }
}

impl<V: Plain> PartialEq for Column<V> {
    fn eq(&self, other: &Column<V>) -> bool {
        **self == **other
    }
}

impl<V: Plain> Eq for Column<V> {}

impl<V: Plain> Clone for Column<V> {
    /// A copy in memory, wherever the original is.
    fn clone(&self) -> Column<V> {
        Column::from(self.to_vec())
    }
}

impl<V: Plain> std::fmt::Debug for Column<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<V: Plain> Column<V> {
    /// An empty column in `place`, with room for `capacity` values before its file grows;
    /// a named file is made anew (whatever it held is gone).
    pub fn new(place: &Place, capacity: usize) -> Result<Column<V>, IoError> {
        let file = match place {
            Place::Memory => return Ok(Column::from(Vec::with_capacity(capacity.min(1 << 20)))),
            Place::Temporary => tempfile::tempfile()
                .map_err(|e| IoError::file("a temporary file", "cannot create", e))?,
            Place::Named(_) => {
                let path = place.file(size_of::<V>()).unwrap_or_default();
                File::options()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&path)
                    .map_err(|e| IoError::file(&path.display().to_string(), "cannot create", e))?
            }
        };
        let path = place.file(size_of::<V>());
        let mapped = Mapped::new(file, path, capacity.max(1), size_of::<V>())?;
        Ok(Column { len: 0, data: Data::File(mapped), hot: (0, 0) })
    }

    /// The column of the named file at `path` holding `len` values (and perhaps more, cut
    /// off), with room for `capacity`; `None` when the file holds fewer than `len` values.
    pub fn reopen(path: &Path, len: usize, capacity: usize) -> Result<Option<Column<V>>, IoError> {
        let name = path.display().to_string();
        let file = File::options()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| IoError::file(&name, "cannot open", e))?;
        let size = file.metadata().map_err(|e| IoError::file(&name, "cannot read", e))?.len();
        if size < (len * size_of::<V>()) as u64 {
            return Ok(None);
        }
        // The values past `len` were computed after the checkpoint: a run going on from it
        // computes them again. Cut first, so that the file grows back with zeros.
        file.set_len((len * size_of::<V>()) as u64)
            .map_err(|e| IoError::file(&name, "cannot write", e))?;
        let mapped =
            Mapped::new(file, Some(path.to_path_buf()), capacity.max(len).max(1), size_of::<V>())?;
        Ok(Some(Column { len, data: Data::File(mapped), hot: (0, 0) }))
    }

    /// Appends `value`.
    #[inline]
    pub fn push(&mut self, value: V) {
        match &mut self.data {
            Data::Memory(values) => values.push(value),
            Data::File(mapped) => {
                if self.len == mapped.capacity {
                    // Doubling keeps appends amortised O(1); a failure to grow the file (a full
                    // disk) has no place to go in an infallible append but a panic with why.
                    if let Err(e) = mapped.grow(2 * mapped.capacity, size_of::<V>()) {
                        panic!("cannot grow the octal table's file: {e}");
                    }
                }
                mapped.values_mut::<V>()[self.len] = value;
            }
        }
        self.len += 1;
    }

    /// Keeps the first `len` values.
    pub fn truncate(&mut self, len: usize) {
        if let Data::Memory(values) = &mut self.data {
            values.truncate(len);
        }
        self.len = self.len.min(len);
    }

    /// The values in a vector of their own.
    pub fn into_vec(self) -> Vec<V> {
        match self.data {
            Data::Memory(values) => values,
            Data::File(_) => self.to_vec(),
        }
    }

    /// Says how many of the first values and of the latest ones stay resident.
    pub fn keep_hot(&mut self, first: usize, latest: usize) {
        self.hot = (first, latest);
    }

    /// Lets go of the resident pages between the first values and the latest ones that stay
    /// ([`Column::keep_hot`]); a no-op in memory.
    pub fn release_cold(&self) {
        let Data::File(mapped) = &self.data else { return };
        let size = size_of::<V>();
        let start = self.hot.0.min(self.len).saturating_mul(size).div_ceil(PAGE) * PAGE;
        let end = (self.len.saturating_sub(self.hot.1) * size) / PAGE * PAGE;
        if start < end {
            mapped.dont_need(start, end);
        }
    }

    /// The bytes of values `range` in the machine's byte order (what a checkpoint hashes).
    pub fn bytes(&self, range: std::ops::Range<usize>) -> &[u8] {
        let values = &self[range];
        // SAFETY: `V: Plain` has no padding, so its values' memory is initialised bytes; the
        // byte slice covers exactly the values' memory and borrows `self` as they do.
        unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)) }
    }

    /// Writes the values up to `len` to the disk (a named file), so a checkpoint that says
    /// they are there is true even after a crash of the machine.
    pub fn sync(&self) -> Result<(), IoError> {
        let Data::File(mapped) = &self.data else { return Ok(()) };
        let name = || {
            mapped.path.as_deref().map_or("a temporary file".into(), |p| p.display().to_string())
        };
        mapped
            .map
            .flush_range(0, self.len * size_of::<V>())
            .map_err(|e| IoError::file(&name(), "cannot write", e))
    }

    /// Where the values are.
    pub fn place(&self) -> Place {
        match &self.data {
            Data::Memory(_) => Place::Memory,
            Data::File(Mapped { path: None, .. }) => Place::Temporary,
            Data::File(Mapped { path: Some(path), .. }) => {
                // `{stem}{width}`: the stem is the name without its last character.
                let mut name = path.clone().into_os_string().into_string().unwrap_or_default();
                name.pop();
                Place::Named(PathBuf::from(name))
            }
        }
    }

    /// The named file holding the values, if any.
    pub fn path(&self) -> Option<&Path> {
        match &self.data {
            Data::File(mapped) => mapped.path.as_deref(),
            Data::Memory(_) => None,
        }
    }

    /// The same values in another width `W` (every value fits it), in the same kind of place,
    /// copied a stretch at a time and let go behind.
    pub fn convert<W: Plain>(&self, into: impl Fn(V) -> W) -> Result<Column<W>, IoError> {
        let mut wide = Column::<W>::new(&self.place(), self.capacity())?;
        wide.hot = self.hot;
        for (k, chunk) in self.chunks(SCAN_STEP).enumerate() {
            chunk.iter().for_each(|&v| wide.push(into(v)));
            if k % 4 == 3 {
                self.release_cold();
                wide.release_cold();
            }
        }
        Ok(wide)
    }

    /// How many values fit before the file grows (the length, in memory).
    fn capacity(&self) -> usize {
        match &self.data {
            Data::Memory(values) => values.capacity(),
            Data::File(mapped) => mapped.capacity,
        }
    }
}

impl Mapped {
    /// `file` made `capacity` values of `size` bytes long (its bytes past its length read
    /// as zeros) and mapped.
    fn new(
        file: File,
        path: Option<PathBuf>,
        capacity: usize,
        size: usize,
    ) -> Result<Mapped, IoError> {
        let name = path.as_deref().map_or("a temporary file".into(), |p| p.display().to_string());
        let too_many = || io::Error::new(io::ErrorKind::InvalidInput, "more bytes than a file has");
        let bytes = capacity.checked_mul(size).ok_or_else(too_many);
        let bytes = bytes.map_err(|e| IoError::file(&name, "cannot make it", e))?;
        let length = format!("cannot make it {bytes} bytes long");
        file.set_len(bytes as u64).map_err(|e| IoError::file(&name, &length, e))?;
        let reserving = format!("cannot reserve {bytes} bytes of disk space");
        reserve(&file, bytes).map_err(|e| IoError::file(&name, &reserving, e))?;
        // SAFETY: a shared, writable mapping of a file this process made (or, for a
        // checkpoint's values, reopened) for itself. What is assumed, as for every file grundy
        // maps (README, "Limits"), is that no other process writes or truncates it while the
        // run lasts. The mapping lives as long as `Mapped`, and no reference into it outlives
        // the borrow of the column it came from.
        let map = unsafe { MmapMut::map_mut(&file) }
            .map_err(|e| IoError::file(&name, "cannot map", e))?;
        Ok(Mapped { file, map, capacity, path })
    }

    /// Makes room for `capacity` values of `size` bytes: a longer file, mapped again.
    fn grow(&mut self, capacity: usize, size: usize) -> Result<(), IoError> {
        let name =
            self.path.as_deref().map_or("a temporary file".into(), |p| p.display().to_string());
        self.map.flush().map_err(|e| IoError::file(&name, "cannot write", e))?;
        let file = self.file.try_clone().map_err(|e| IoError::file(&name, "cannot open", e))?;
        *self = Mapped::new(file, self.path.take(), capacity, size)?;
        Ok(())
    }

    /// The mapping as `capacity` values of `V`.
    fn values<V: Plain>(&self) -> &[V] {
        // SAFETY: the mapping starts on a page boundary (aligned for any `Plain` type) and
        // holds `capacity` values of `V` (`Mapped::new` sized the file so); `V: Plain` makes
        // any bytes a value. The slice borrows `self`, so the mapping outlives it.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<V>(), self.capacity) }
    }

    /// The mapping as `capacity` values of `V`, to write.
    fn values_mut<V: Plain>(&mut self) -> &mut [V] {
        // SAFETY: as in `values`; the mutable borrow of `self` makes this the only view.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr().cast::<V>(), self.capacity) }
    }

    /// Drops the pages of bytes `[start, end)` (page-aligned, inside the map) from this process.
    fn dont_need(&self, start: usize, end: usize) {
        // SAFETY: the map is a shared mapping of a file. MADV_DONTNEED drops the pages of
        // [start, end) from this process's page tables; writes made through a shared mapping
        // are in the page cache (and the file), so the next access faults the same bytes in
        // again. No value observed through the column changes, so no reference is
        // invalidated. The range is inside the map (`release_cold` keeps it below `len`
        // values). A failure only leaves the pages resident.
        let _ = unsafe {
            self.map.unchecked_advise_range(UncheckedAdvice::DontNeed, start, end - start)
        };
    }
}

/// Takes the disk space for the first `bytes` of `file` now: a full disk is then an error here,
/// not a fault (SIGBUS) at the first value written through the map to a hole it cannot fill.
#[cfg(target_os = "linux")]
fn reserve(file: &File, bytes: usize) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let Ok(len) = libc::off_t::try_from(bytes) else {
        return Err(std::io::Error::from(std::io::ErrorKind::FileTooLarge));
    };
    // SAFETY: a plain system call on a file descriptor this process holds open; it reads and
    // writes no memory of the process.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
        0 => Ok(()),
        // A file system without it (some network ones): the space is taken as values come.
        libc::EOPNOTSUPP | libc::EINVAL => Ok(()),
        code => Err(std::io::Error::from_raw_os_error(code)),
    }
}

/// Elsewhere the space is taken as values come.
#[cfg(not(target_os = "linux"))]
fn reserve(_: &File, _: usize) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_in_a_file_holds_what_was_pushed_through_growth_release_and_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("ck.values");
        for place in [Place::Memory, Place::Temporary, Place::Named(stem.clone())] {
            let mut column = Column::<u16>::new(&place, 1000).unwrap();
            let all: Vec<u16> = (0..300_000u32).map(|n| (n * 7919 % 65_521) as u16).collect();
            for &v in &all {
                column.push(v);
            }
            column.keep_hot(100, 100);
            column.release_cold();
            assert_eq!(&column[..], &all[..], "{place:?}");
            let wide = column.convert(u32::from).unwrap();
            assert!(wide.iter().zip(&all).all(|(&w, &v)| w == u32::from(v)));
            assert_eq!(wide.place(), place);
            column.sync().unwrap();
            assert_eq!(column.bytes(1..2), all[1].to_ne_bytes());
        }
        // The named file reopened at a shorter length: the rest cut off, pushes go on there.
        let path = Place::Named(stem).file(2).unwrap();
        // The file has room for 2^19 values (doubled from 1000): more than that is not there.
        assert!(Column::<u16>::reopen(&path, 600_000, 10).unwrap().is_none(), "too short");
        let mut again = Column::<u16>::reopen(&path, 1000, 10).unwrap().unwrap();
        assert_eq!(again.len(), 1000);
        again.push(5);
        assert_eq!((again[1000], again[999]), (5, (999u32 * 7919 % 65_521) as u16));
    }
}
