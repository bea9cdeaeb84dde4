//! The simulation worker (Trunk's `data-type="worker"` target): it only registers the
//! agent; the work is in `schedsim_web::worker`.

#[cfg(target_arch = "wasm32")]
fn main() {
    schedsim_web::worker::register();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
