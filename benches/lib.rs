//! Nothing: this crate holds benches only (`engine.rs`).
