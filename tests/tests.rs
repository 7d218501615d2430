//! Integration tests: they drive the real `grundy` binary on files and stdin. All modules
//! link into one test binary.

mod check_columns;
#[cfg(feature = "cluster")]
mod cluster;
#[cfg(feature = "cluster")]
mod cluster_trust;
mod columnar;
mod errors;
mod formats;
mod games;
mod generate;
mod index;
mod large;
mod limits;
mod loopy;
mod octal;
mod oracle;
mod outputs;
mod plays;
mod regression;
mod reports;
mod seeds;
#[cfg(feature = "serve")]
mod serve;
mod sums;
mod threads;
mod util;
