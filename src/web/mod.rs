//! The page's shell, the top floor: the Yew application, its components and hooks, DOM
//! helpers and the page's side of the workers ([`pool`]), compiled for `wasm32` only.

pub mod app;
pub mod components;
pub mod dom;
pub mod hooks;
pub mod pool;

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
