//! The script worker (Trunk's third target, built with feature `policy`): the
//! simulation worker with the policy-script engine. The page spawns it only for an
//! experiment that has a kernel with a policy script (`proto::Engine::of`), so the
//! engine is downloaded the first time a script is used, never before.

#[cfg(target_arch = "wasm32")]
fn main() {
    schedsim_web::worker::register();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
