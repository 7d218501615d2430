//! Opening an input: a memory map for files, a plain read for stdin and pipes.
//!
//! The map lives behind this one type so the rest of grundy sees only `&[u8]`.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use memmap2::{Advice, Mmap};

use crate::error::Error;

/// The name used for standard input in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// The bytes of one input and the name to report it by.
#[derive(Debug)]
pub struct Input {
    name: String,
    data: Data,
}

#[derive(Debug)]
enum Data {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Input {
    /// Opens `path`, or stdin when it is `None` or `-`.
    pub fn open(path: Option<&Path>) -> Result<Input, Error> {
        match path {
            None => Input::stdin(),
            Some(p) if p.as_os_str() == "-" => Input::stdin(),
            Some(p) => Input::file(p),
        }
    }

    /// Reads all of stdin: a pipe cannot be mapped.
    pub fn stdin() -> Result<Input, Error> {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(STDIN_NAME, "cannot read", e))?;
        Ok(Input { name: STDIN_NAME.to_string(), data: Data::Owned(bytes) })
    }

    /// Maps the file at `path` read-only.
    pub fn file(path: &Path) -> Result<Input, Error> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(&name, "cannot open", e))?;
        let meta = file.metadata().map_err(|e| Error::io(&name, "cannot read", e))?;
        if meta.is_dir() {
            let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a directory");
            return Err(Error::io(&name, "cannot read", e));
        }
        if !meta.is_file() || meta.len() == 0 {
            // FIFOs and character devices cannot be mapped; an empty map is an error on some
            // systems. Both are read instead.
            let mut bytes = Vec::new();
            (&file).read_to_end(&mut bytes).map_err(|e| Error::io(&name, "cannot read", e))?;
            return Ok(Input { name, data: Data::Owned(bytes) });
        }
        // SAFETY: the map is read-only and private to this process. Another process truncating
        // or rewriting the file while grundy runs could change or remove the bytes under us
        // (SIGBUS on truncation); that is the accepted contract of every mmap-based tool
        // (ripgrep, xsv) and the user's to avoid. No reference into the map outlives `Input`.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(&name, "cannot map", e))?;
        // Advice only: a failure changes speed, never results.
        let _ = map.advise(Advice::Sequential);
        Ok(Input { name, data: Data::Mapped(map) })
    }

    /// The name to use in messages: the path as given, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// All the input's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(map) => map,
            Data::Owned(bytes) => bytes,
        }
    }
}
