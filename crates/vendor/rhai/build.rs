//! (Vendored patch 6, schedsim) Rhai's repository's build script sets `atomic_ops_count`
//! where the target has 64-bit atomics: `GlobalRuntimeState::num_operations` is then an
//! `AtomicU64`, and a script function called back from a native one (a `sort` comparer,
//! a `map` or `filter` callback) stores the operations it counted on its copy of the
//! state into the caller's, read-only as that is (`NativeCallContext::call_fn_raw`, and
//! the patch's store in `call_script_fn`). The published crate leaves the script out, so
//! those operations were dropped: a callback's loop escaped the call's budget.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let atomics = std::env::var("CARGO_CFG_TARGET_HAS_ATOMIC").unwrap_or_default();
    if atomics.split(',').any(|a| a == "64") {
        println!("cargo:rustc-cfg=atomic_ops_count");
    }
}
