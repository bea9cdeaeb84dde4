//! The playground page (Trunk's main target).

#[cfg(target_arch = "wasm32")]
fn main() {
    schedsim_web::web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("schedsim-web is the browser playground: build it with `trunk build --release` (see scripts/serve.sh)");
    std::process::exit(2);
}
