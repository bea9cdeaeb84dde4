//! Small DOM helpers: downloads, the clipboard, the fragment, errors in the page.
//! Every lookup that can fail returns an error for the page; nothing here panics.

use wasm_bindgen::{JsCast, JsValue};

pub fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

pub fn document() -> Option<web_sys::Document> {
    window().and_then(|w| w.document())
}

/// Whether the page is not shown (`document.hidden`: a background tab, a minimised
/// window), where browsers slow its timers down.
pub fn page_hidden() -> bool {
    document().is_some_and(|d| d.hidden())
}

/// The browser's `navigator.hardwareConcurrency` (logical CPUs), 0 if unknown.
pub fn hardware_concurrency() -> f64 {
    window().map(|w| w.navigator().hardware_concurrency()).unwrap_or(0.0)
}

/// Milliseconds from the page's time origin (monotonic).
pub fn now_ms() -> f64 {
    window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

pub fn js_err(v: JsValue) -> String {
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    v.as_string().unwrap_or_else(|| format!("{v:?}"))
}

/// Shows a fatal error in the page's `#fatal` box (as text, never HTML).
pub fn show_fatal(msg: &str) {
    if let Some(el) = document().and_then(|d| d.get_element_by_id("fatal")) {
        let prev = el.text_content().unwrap_or_default();
        let text = if prev.is_empty() { format!("Internal error: {msg}") } else { format!("{prev}\n{msg}") };
        el.set_text_content(Some(&text));
        let _ = el.remove_attribute("hidden");
    }
}

/// console_error_panic_hook for the console, plus the message in the page.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_fatal(&format!(
            "{info} — please reload the page; the link in the address bar keeps your experiment if you copied it."
        ));
    }));
}

/// Starts a download of `text` as `filename`.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(js_err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js_err)?;
    let r = download_url(filename, &url);
    // Revoke later: the download reads the blob asynchronously.
    if let Some(w) = window() {
        let u = url.clone();
        let cb = wasm_bindgen::closure::Closure::once_into_js(move || {
            let _ = web_sys::Url::revoke_object_url(&u);
        });
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 30_000);
    }
    r
}

/// Starts a download of `url` (blob: or data:) as `filename`.
pub fn download_url(filename: &str, url: &str) -> Result<(), String> {
    let doc = document().ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement =
        doc.create_element("a").map_err(js_err)?.dyn_into().map_err(|_| "not an anchor")?;
    a.set_href(url);
    a.set_download(filename);
    a.set_hidden(true);
    let body = doc.body().ok_or("no body")?;
    body.append_child(&a).map_err(js_err)?;
    a.click();
    let _ = body.remove_child(&a);
    Ok(())
}

/// Copies `text` to the clipboard; resolves to whether it worked. Falls back to a
/// hidden textarea and `execCommand("copy")` where the async API is missing or refused
/// (plain-HTTP hosts other than localhost).
pub async fn copy_text(text: String) -> bool {
    if let Some(w) = window() {
        let clip = w.navigator().clipboard();
        let p = clip.write_text(&text);
        if wasm_bindgen_futures::JsFuture::from(p).await.is_ok() {
            return true;
        }
    }
    legacy_copy(&text)
}

fn legacy_copy(text: &str) -> bool {
    let Some(doc) = document() else { return false };
    let Ok(el) = doc.create_element("textarea") else { return false };
    let Ok(ta) = el.dyn_into::<web_sys::HtmlTextAreaElement>() else { return false };
    ta.set_value(text);
    let Some(body) = doc.body() else { return false };
    if body.append_child(&ta).is_err() {
        return false;
    }
    ta.select();
    let ok = doc.dyn_ref::<web_sys::HtmlDocument>().and_then(|h| h.exec_command("copy").ok()).unwrap_or(false);
    let _ = body.remove_child(&ta);
    ok
}

/// The fragment without `#`.
pub fn location_hash() -> String {
    window()
        .and_then(|w| w.location().hash().ok())
        .map(|h| h.strip_prefix('#').map(str::to_string).unwrap_or(h))
        .unwrap_or_default()
}

/// The page's URL without its fragment.
pub fn url_without_hash() -> String {
    let href = window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    match href.split_once('#') {
        Some((base, _)) => base.to_string(),
        None => href,
    }
}

/// The address for `fragment`, unless it is longer than a link may be (one the page
/// would refuse when opened: the address bar keeps what it held, and Copy link says
/// why).
fn url_with(fragment: &str) -> Result<String, String> {
    if fragment.len() > crate::wire::permalink::FRAGMENT_LEN_MAX {
        return Err(format!(
            "this experiment's link would be {} characters, more than the {} a link can carry: share its \
             experiment JSON (Report JSON) instead",
            fragment.len(),
            crate::wire::permalink::FRAGMENT_LEN_MAX
        ));
    }
    Ok(format!("{}#{fragment}", url_without_hash()))
}

/// Puts `fragment` into the address bar without reloading or adding history entries.
pub fn replace_hash(fragment: &str) -> Result<String, String> {
    let url = url_with(fragment)?;
    let w = window().ok_or("no window")?;
    w.history().map_err(js_err)?.replace_state_with_url(&JsValue::NULL, "", Some(&url)).map_err(js_err)?;
    Ok(url)
}

/// Puts `fragment` into the address bar as a new history entry, without reloading.
pub fn push_hash(fragment: &str) -> Result<String, String> {
    let url = url_with(fragment)?;
    let w = window().ok_or("no window")?;
    w.history().map_err(js_err)?.push_state_with_url(&JsValue::NULL, "", Some(&url)).map_err(js_err)?;
    Ok(url)
}

/// How this document was reached: "navigate" (a link or the address bar), "reload",
/// "back_forward" or "prerender" (the Navigation Timing entry's type).
pub fn navigation_type() -> String {
    window()
        .and_then(|w| w.performance())
        .map(|p| p.get_entries_by_type("navigation"))
        .and_then(|a| (a.length() > 0).then(|| a.get(0)))
        .and_then(|e| js_sys::Reflect::get(&e, &JsValue::from_str("type")).ok())
        .and_then(|t| t.as_string())
        .unwrap_or_else(|| "navigate".into())
}

/// A value this page stored in the browser (localStorage), if storage is allowed.
pub fn stored(key: &str) -> Option<String> {
    window().and_then(|w| w.local_storage().ok().flatten()).and_then(|s| s.get_item(key).ok().flatten())
}

/// Stores a value for the next visit; silently nothing when storage is not allowed.
pub fn store(key: &str, value: &str) {
    if let Some(s) = window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = s.set_item(key, value);
    }
}

/// A value this tab stored (sessionStorage: it lasts across reloads, not across tabs).
pub fn session_stored(key: &str) -> Option<String> {
    window().and_then(|w| w.session_storage().ok().flatten()).and_then(|s| s.get_item(key).ok().flatten())
}

/// Stores a value for this tab's reloads; false when storage is refused or full.
pub fn session_store(key: &str, value: &str) -> bool {
    window().and_then(|w| w.session_storage().ok().flatten()).map(|s| s.set_item(key, value).is_ok()).unwrap_or(false)
}

/// Removes a value stored for this tab's reloads.
pub fn session_remove(key: &str) {
    if let Some(s) = window().and_then(|w| w.session_storage().ok().flatten()) {
        let _ = s.remove_item(key);
    }
}

/// Whether the system prefers a dark theme.
pub fn prefers_dark() -> bool {
    window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|m| m.matches())
        .unwrap_or(false)
}

pub fn device_pixel_ratio() -> f64 {
    window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).clamp(1.0, 3.0)
}

/// Sets an attribute on `<html>` (theme, presenter mode).
pub fn set_root_attr(name: &str, value: Option<&str>) {
    if let Some(el) = document().and_then(|d| d.document_element()) {
        let _ = match value {
            Some(v) => el.set_attribute(name, v),
            None => el.remove_attribute(name),
        };
    }
}

/// A fresh random seed from the browser's CSPRNG (getrandom → crypto.getRandomValues).
pub fn random_seed() -> u64 {
    let mut b = [0u8; 8];
    match getrandom::fill(&mut b) {
        // Keep seeds below 2^53 so they also read exactly in JavaScript tools.
        Ok(()) => u64::from_le_bytes(b) & ((1 << 53) - 1),
        Err(_) => (now_ms() * 1000.0) as u64,
    }
}

/// Runs `f` once after `ms` milliseconds.
pub fn after_ms(ms: i32, f: impl FnOnce() + 'static) {
    if let Some(w) = window() {
        let cb = wasm_bindgen::closure::Closure::once_into_js(f);
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), ms);
    }
}

/// How long [`after_paint`] waits for a frame before it runs its work anyway (a hidden
/// tab renders no frames).
pub const AFTER_PAINT_FALLBACK_MS: i32 = 250;

/// Runs `f` in a task of its own after the page's next rendering (style, layout and
/// paint), or after [`AFTER_PAINT_FALLBACK_MS`] if no frame comes first. Work that reads
/// layout then finds it clean: Plotters measures every text of a chart with a DOM span,
/// and the first measure in a task right after a render forced the layout of all that
/// render had changed (up to 140 ms of a chart's task while a sweep ran on 8 workers).
pub fn after_paint(f: impl FnOnce() + 'static) {
    type Slot = std::rc::Rc<std::cell::RefCell<Option<Box<dyn FnOnce()>>>>;
    let slot: Slot = std::rc::Rc::new(std::cell::RefCell::new(Some(Box::new(f))));
    let run = |slot: Slot| {
        move || {
            let f = slot.borrow_mut().take();
            if let Some(f) = f {
                f();
            }
        }
    };
    if let Some(w) = window() {
        // A frame's callbacks run before its rendering; the task queued from one runs after.
        let on_frame = run(slot.clone());
        let cb = wasm_bindgen::closure::Closure::once_into_js(move || after_ms(0, on_frame));
        let _ = w.request_animation_frame(cb.unchecked_ref());
    }
    after_ms(AFTER_PAINT_FALLBACK_MS, run(slot));
}

/// Moves the keyboard focus to the element with id `id` and brings it into view.
pub fn focus(id: &str) {
    if let Some(el) = document().and_then(|d| d.get_element_by_id(id)) {
        el.scroll_into_view_with_bool(false);
        if let Some(h) = el.dyn_ref::<web_sys::HtmlElement>() {
            let _ = h.focus();
        }
    }
}

/// Clicks the element with id `id`, as the user would (a disabled button ignores it).
pub fn click(id: &str) {
    if let Some(h) =
        document().and_then(|d| d.get_element_by_id(id)).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        h.click();
    }
}

/// Opens the `<details>` element `id`, if there is one.
pub fn open_details(id: &str) {
    if let Some(d) = document().and_then(|d| d.get_element_by_id(id)).filter(|e| e.tag_name() == "DETAILS") {
        let _ = d.set_attribute("open", "");
    }
}

/// Scrolls the first element matching `selector` to the top of the view.
pub fn scroll_to(selector: &str) {
    if let Some(el) = document().and_then(|d| d.query_selector(selector).ok().flatten()) {
        el.scroll_into_view();
    }
}

/// Scrolls the page to its top.
pub fn scroll_to_top() {
    if let Some(w) = window() {
        w.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// The window's inner height, CSS pixels (0 if unknown).
pub fn inner_height() -> f64 {
    window().and_then(|w| w.inner_height().ok()).and_then(|h| h.as_f64()).unwrap_or(0.0)
}

/// The view's height less the sticky header's and the Run bar's (where they stick):
/// the room a chart has to show whole in.
pub fn room_between_bars() -> f64 {
    let Some(d) = document() else { return inner_height() };
    let stuck = |sel: &str| {
        let el = d.query_selector(sel).ok().flatten()?;
        let sticky = window()?.get_computed_style(&el).ok().flatten()?.get_property_value("position").ok()? == "sticky";
        sticky.then(|| el.get_bounding_client_rect().height())
    };
    inner_height() - stuck("header.top").unwrap_or(0.0) - stuck(".runbar").unwrap_or(0.0)
}

/// Calls `on_room` with [`room_between_bars`] once the layout is done and whenever the
/// sticky header or the Run bar changes size or the window is resized, until the returned
/// watch is dropped. A chart reads the room from here, not in its render: read there, in
/// the middle of the render's DOM changes, each chart's read forced a layout of the whole
/// page (seed004's first results held the main thread for 87 ms of CPU, most of it these).
pub fn watch_room(on_room: yew::Callback<f64>) -> Option<SizeWatch> {
    let emit = on_room.clone();
    let cb = wasm_bindgen::closure::Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| {
        emit.emit(room_between_bars());
    });
    let observer = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()).ok()?;
    let d = document()?;
    for sel in ["header.top", ".runbar"] {
        if let Some(el) = d.query_selector(sel).ok().flatten() {
            observer.observe(&el);
        }
    }
    // The window's height changes the room without resizing either bar.
    observer.observe(&d.document_element()?);
    Some(SizeWatch { observer, _cb: cb })
}

/// Calls `on_width` with `el`'s width (CSS pixels) now and whenever the layout changes
/// it, until the returned watch is dropped.
pub fn watch_width(el: &web_sys::Element, on_width: yew::Callback<f64>) -> Option<SizeWatch> {
    let target = el.clone();
    let cb = wasm_bindgen::closure::Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| {
        on_width.emit(target.get_bounding_client_rect().width());
    });
    let observer = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()).ok()?;
    observer.observe(el);
    Some(SizeWatch { observer, _cb: cb })
}

/// A [`watch_width`] or [`watch_room`] in force; dropping it stops it.
pub struct SizeWatch {
    observer: web_sys::ResizeObserver,
    _cb: wasm_bindgen::closure::Closure<dyn FnMut(JsValue)>,
}

impl Drop for SizeWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// The elements the viewer may be looking at, for [`ViewAnchor`]: charts, tables and
/// the panels of each view.
const ANCHORS: &str = "figure.chart, pre.table, section.panel, .live-topo, aside.trace, .timeline, \
    article.guide, .diff-sentence, .diff-traces, section.replay, section.wasted";

/// The part of the window a sticky header and the Sweep view's sticky Run bar leave
/// free: (top, bottom), viewport CSS pixels.
fn free_view() -> (f64, f64) {
    let h = inner_height();
    let rect =
        |sel: &str| document().and_then(|d| d.query_selector(sel).ok().flatten()).map(|e| e.get_bounding_client_rect());
    let top = rect("header.top").map(|r| r.bottom()).filter(|b| *b > 0.0 && *b < h / 2.0).unwrap_or(0.0);
    let bottom = rect(".runbar").filter(|r| r.bottom() >= h - 2.0 && r.top() < h).map(|r| r.top()).unwrap_or(h);
    (top, bottom.max(top + 1.0))
}

/// The element in view and where it was, kept there across a change of layout.
pub struct ViewAnchor {
    el: web_sys::Element,
    was_top: f64,
}

impl ViewAnchor {
    /// The element the viewer is looking at now ([`crate::model::anchor::pick`]); `pointer` is
    /// the mouse's last position in the viewport, if it is over the page.
    pub fn take(pointer: Option<(f64, f64)>) -> Option<ViewAnchor> {
        let d = document()?;
        let list = d.query_selector_all(ANCHORS).ok()?;
        let focused = d.active_element();
        let els: Vec<web_sys::Element> =
            (0..list.length()).filter_map(|i| list.item(i)).filter_map(|n| n.dyn_into().ok()).collect();
        let cands: Vec<crate::model::anchor::Candidate> = els
            .iter()
            .map(|e| {
                let r = e.get_bounding_client_rect();
                crate::model::anchor::Candidate {
                    top: r.top(),
                    bottom: r.bottom(),
                    left: r.left(),
                    right: r.right(),
                    focused: focused.as_ref().is_some_and(|f| e.contains(Some(f))),
                }
            })
            .collect();
        let i = crate::model::anchor::pick(&cands, free_view(), pointer)?;
        Some(ViewAnchor { el: els[i].clone(), was_top: cands[i].top })
    }

    /// Scrolls the element back to where it was, whole in view, now and a few times in
    /// the next second (charts redraw at their new widths and move what is below them).
    pub fn keep(self) {
        let a = std::rc::Rc::new(self);
        for ms in [0, 50, 150, 300, 600, 1000] {
            let a = a.clone();
            after_ms(ms, move || a.restore());
        }
    }

    fn restore(&self) {
        let r = self.el.get_bounding_client_rect();
        let dy = crate::model::anchor::scroll_by(self.was_top, r.top(), r.height(), free_view());
        if dy.abs() >= 1.0 {
            if let Some(w) = window() {
                w.scroll_by_with_x_and_y(0.0, dy);
            }
        }
    }
}
