//! schedsim-web: the browser playground of the schedsim wakeup path simulator.
//!
//! The crate is split so that everything that can be pure is pure and builds natively:
//! [`permalink`] (the URL fragment format), [`model::topology`] (direct manipulation of a
//! topology, with refusals located at the spot), [`charts`] (one module per chart, each
//! generic over Plotters' `DrawingBackend`), [`model::live`] (live mode's stepping and
//! time series), [`proto`] (the worker's messages), [`model::sweep`] (a sweep spread over the
//! worker pool) and [`gallery`] (the classroom).
//! The page's state and its reducer ([`web::state`]) are pure too. The rest of the `web`
//! side — the Yew components and hooks, the worker glue, downloads and the clipboard —
//! needs a browser, and is compiled for `wasm32` alone.
//!
//! Architecture invariant: this crate never reaches into the simulator's internals; it
//! uses the `schedsim` library's public types only, and the report the page exports is
//! the library's own `Report::to_json()` string, unmodified.

pub mod charts;
pub mod model;
pub mod state;
pub mod wire;
#[cfg(target_arch = "wasm32")]
pub mod worker;

pub mod web;
