//! Integration tests: they drive the real `grundy` binary on files and stdin. All modules
//! link into one test binary.

mod errors;
mod generate;
mod large;
mod oracle;
mod reports;
mod seeds;
mod threads;
mod util;
