//! Component tests in headless Chromium (wasm-bindgen-test): render a component into a
//! node, click or type, let Yew's scheduler run, read the DOM.
//!
//! Run with `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown --test browser`
//! (scripts/test-web.sh does).

#![cfg(target_arch = "wasm32")]

use schedsim::topology::Topology;
use schedsim_web::charts::{self, ChartTheme};
use schedsim_web::model::topology::TopoEdit;
use schedsim_web::web::components::fields::{Field, FieldProps};
use schedsim_web::web::components::kernels::{KernelPanel, KernelProps};
use schedsim_web::web::components::topology::{TopologyProps, TopologyView};
use schedsim_web::wire::permalink::{self, Shared, View};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlInputElement};
use yew::prelude::*;

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let div = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    div
}

async fn settle() {
    yew::platform::time::sleep(Duration::from_millis(20)).await;
}

fn all(root: &Element, sel: &str) -> u32 {
    root.query_selector_all(sel).unwrap().length()
}

fn click(root: &Element, sel: &str) {
    root.query_selector(sel).unwrap().unwrap_or_else(|| panic!("no {sel}")).dyn_into::<HtmlElement>().unwrap().click();
}

fn type_into(root: &Element, sel: &str, text: &str) {
    let input: HtmlInputElement = root.query_selector(sel).unwrap().unwrap().dyn_into().unwrap();
    input.set_value(text);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
}

#[wasm_bindgen_test]
async fn topology_draws_nested_boxes_and_emits_edits() {
    let root = mount();
    let edits = Rc::new(RefCell::new(Vec::new()));
    let e2 = edits.clone();
    let props = TopologyProps {
        topo: Rc::new(Topology::uniform(2, 2, 3, 2)),
        editable: true,
        refusal: None,
        on_edit: Callback::from(move |e| e2.borrow_mut().push(e)),
        live: None,
    };
    yew::Renderer::<TopologyView>::with_root_and_props(root.clone(), props).render();
    settle().await;
    assert_eq!(all(&root, ".node"), 2);
    assert_eq!(all(&root, ".llc"), 4);
    assert_eq!(all(&root, ".core"), 12);
    assert_eq!(all(&root, ".cpu"), 24);
    // Siblings are numbered one core count apart, as Linux numbers x86 CPUs.
    let first_core = root.query_selector(".core .threads").unwrap().unwrap().text_content().unwrap();
    assert_eq!(first_core, "012");
    assert_eq!(all(&root, "table.distance"), 1);
    click(&root, "[aria-label='Duplicate LLC 1 of node 1']");
    click(&root, "[aria-label='Remove core 2 of node 0 LLC 0']");
    settle().await;
    assert_eq!(*edits.borrow(), vec![TopoEdit::DuplicateLlc(1, 1), TopoEdit::RemoveCore(0, 0, 2)]);
}

#[wasm_bindgen_test]
async fn a_field_refuses_bad_input_at_the_field() {
    let root = mount();
    let got = Rc::new(RefCell::new(Vec::<String>::new()));
    let g = got.clone();
    let props = FieldProps {
        label: "iterations".into(),
        value: "3".into(),
        on_commit: Callback::from(move |s: String| match s.parse::<u32>() {
            Ok(_) => {
                g.borrow_mut().push(s);
                None
            }
            Err(_) => Some("a whole number".into()),
        }),
        hint: "".into(),
        id: "it".into(),
        kind: "text".into(),
        wide: false,
        what: "".into(),
        refused: "".into(),
    };
    yew::Renderer::<Field>::with_root_and_props(root.clone(), props).render();
    settle().await;
    type_into(&root, "#it", "x7");
    settle().await;
    assert_eq!(root.query_selector(".field-error").unwrap().unwrap().text_content().unwrap(), "a whole number");
    assert_eq!(all(&root, ".field.invalid"), 1);
    type_into(&root, "#it", "7");
    settle().await;
    assert_eq!(all(&root, ".field-error"), 0);
    assert_eq!(*got.borrow(), vec!["7".to_string()]);
}

#[wasm_bindgen_test]
async fn a_kernel_panel_toggles_a_patch_as_an_override() {
    let root = mount();
    let got = Rc::new(RefCell::new(None));
    let g = got.clone();
    let props = KernelProps {
        index: 1,
        spec: schedsim::KernelSpec::new("v5.14", schedsim::KernelVersion::V5_14),
        others: vec!["a".into()],
        can_remove: true,
        warnings: vec![],
        duplicate: None,
        on_change: Callback::from(move |k| *g.borrow_mut() = Some(k)),
        on_remove: Callback::noop(),
    };
    yew::Renderer::<KernelPanel>::with_root_and_props(root.clone(), props).render();
    settle().await;
    // Every switch, and a link to the patch text for each one that has a seed file.
    let switches = schedsim::Switch::ALL.len() as u32;
    let linked = schedsim::Switch::ALL.iter().filter(|s| s.seed_file().is_some()).count() as u32;
    // 27: the 14 of before, the four preemption models and nine of today's sched features.
    assert_eq!((switches, linked), (27, 6));
    assert_eq!(all(&root, "li.switch"), switches);
    assert_eq!(all(&root, "a.patch-link"), linked);
    click(&root, "#k1-recent-used-prev");
    settle().await;
    let k = got.borrow().clone().expect("a change");
    assert_eq!(k.label(), "v5.14+recent-used-prev");
    // Its name was the label, never typed: it follows.
    assert_eq!(k.name, "v5.14+recent-used-prev");
}

#[wasm_bindgen_test]
async fn the_app_shows_a_message_for_a_future_link_and_loads_the_default() {
    let w = web_sys::window().unwrap();
    let url = format!("{}#v9.AAAA", w.location().href().unwrap().split('#').next().unwrap());
    w.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url)).unwrap();
    let root = mount();
    yew::Renderer::<schedsim_web::web::app::App>::with_root(root.clone()).render();
    settle().await;
    let notice = root.query_selector("#link-notice").unwrap().expect("a notice").text_content().unwrap();
    assert!(notice.contains("newer playground"), "{notice}");
    let desc = root.query_selector("#machine-desc").unwrap().unwrap().text_content().unwrap();
    assert!(desc.contains("teaching"), "{desc}");
    // Two kernel panels of the default experiment, and the Run button enabled.
    assert_eq!(all(&root, "section.kernel"), 2);
    let run: HtmlElement = root.query_selector("#run").unwrap().unwrap().dyn_into().unwrap();
    assert!(!run.has_attribute("disabled"));
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url.split('#').next().unwrap()))
        .unwrap();
}

#[wasm_bindgen_test]
fn permalinks_are_the_same_bytes_as_natively() {
    // The fragment format is pure Rust: the wasm build must write what the native one does.
    let s = Shared { experiment: schedsim::presets::experiment("seed004").unwrap(), view: View::default() };
    let f = permalink::encode(&s);
    assert_eq!(permalink::decode(&f).unwrap(), Some(s));
    assert!(permalink::decode(&f[..f.len() - 3]).is_err());
}

#[wasm_bindgen_test]
fn a_report_chart_draws_on_a_canvas() {
    let mut exp = schedsim::presets::experiment("demo").unwrap();
    exp.iterations = 1;
    exp.duration_ms = 10;
    exp.warmup_ms = 1;
    exp.clients = vec![1, 2];
    let r = exp.run(&mut |_| true).unwrap();
    let doc = web_sys::window().unwrap().document().unwrap();
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    canvas.set_width(720);
    canvas.set_height(380);
    use plotters::prelude::*;
    let root = plotters_canvas::CanvasBackend::with_canvas_object(canvas).unwrap().into_drawing_area();
    for name in charts::REPORT_CHARTS {
        charts::draw_report_chart(name, &root, &r, 0, &ChartTheme::dark()).unwrap();
    }
}
