//! The browser side: the Yew application, the worker glue and DOM helpers, compiled for
//! `wasm32` only; and the page's state with its reducer, which is pure and is also
//! compiled and tested natively.

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod dom;
#[cfg(target_arch = "wasm32")]
pub mod hooks;
#[cfg(target_arch = "wasm32")]
pub mod pool;

#[cfg(target_arch = "wasm32")]
/// Entry point of the page's binary: panic reporting, then the app into `#app`.
pub fn start() {
    dom::install_panic_hook();
    let Some(root) = dom::document().and_then(|d| d.get_element_by_id("app")) else {
        dom::show_fatal("the page has no #app element to render into");
        return;
    };
    // The static "loading" text goes; the app takes its place.
    root.set_text_content(None);
    yew::Renderer::<app::App>::with_root(root).render();
}
