//! schedsim-web: the browser playground of the schedsim wakeup path simulator.
//!
//! The crate is six floors, and a floor uses only the floors below it (`tests/floors.rs`
//! keeps it so). From the bottom:
//!
//! 1. [`model`]: the pure code, one file a feature, named as the feature's component and
//!    hook (`model/sweep.rs`, `web/components/sweep.rs`, `web/hooks/sweep.rs`);
//! 2. [`wire`]: the link format ([`wire::permalink`]) and the worker messages
//!    ([`wire::proto`]), which encode the model's types;
//! 3. [`state`]: the page's one state and its reducer, which holds a link's view;
//! 4. [`charts`]: one module per chart, each generic over Plotters' `DrawingBackend`;
//! 5. `worker`: what runs inside a simulation worker (wasm only);
//! 6. `web`: the page's shell, Yew components and hooks, the DOM and the page's side of
//!    the workers (wasm only).
//!
//! The first four are pure and build and are tested natively; the last two need a
//! browser and are compiled for `wasm32` alone.
//!
//! Architecture invariant: this crate never reaches into the simulator's internals; it
//! uses the `schedsim` library's public types only, and the report the page exports is
//! the library's own `Report::to_json()` string, unmodified.

pub mod charts;
pub mod model;
pub mod state;
#[cfg(target_arch = "wasm32")]
pub mod web;
pub mod wire;
#[cfg(target_arch = "wasm32")]
pub mod worker;
