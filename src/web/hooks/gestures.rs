//! The timeline's zoom and pan as a hook: the window the user chose, whether it follows
//! the present (live mode), and the handlers of the gestures that move it (buttons,
//! keys, Ctrl+wheel and Shift+wheel, a drag, a pinch). The arithmetic is
//! [`crate::model::timeline`]'s, pure and tested natively; this file only reads the events.

use crate::model::timeline::{key_gesture, wheel_gesture, Gesture, ViewState, ViewWindow, DRAG_SLOP_PX, PINCH_MIN_PX};
use crate::web::hooks::{use_event_listener, use_keydown, ListenOn};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The view's state and how gestures change it. `drawn` is what the last render
/// showed: every gesture starts from it.
#[derive(Clone)]
pub struct ViewOps {
    drawn: Rc<RefCell<Option<ViewState>>>,
    chosen: UseStateHandle<Option<ViewWindow>>,
    follow: UseStateHandle<bool>,
    live: bool,
}

impl ViewOps {
    /// The window the user chose, if any.
    pub fn chosen(&self) -> Option<ViewWindow> {
        *self.chosen
    }

    /// Whether the view follows the present: live mode, until panned back.
    pub fn following(&self) -> bool {
        self.live && *self.follow
    }

    /// Records what this render shows, for the next gesture.
    pub fn drawn(&self, st: ViewState) {
        *self.drawn.borrow_mut() = Some(st);
    }

    fn state(&self) -> Option<ViewState> {
        *self.drawn.borrow()
    }

    fn set(&self, v: ViewWindow) {
        let Some(st) = self.state() else { return };
        if self.live {
            self.follow.set(v.end_ns >= st.hi);
        }
        if let Some(d) = self.drawn.borrow_mut().as_mut() {
            d.v = v;
        }
        self.chosen.set(Some(v));
    }

    /// Moves the view as `g` asks.
    pub fn apply(&self, g: Gesture) {
        if let Some(st) = self.state() {
            self.set(st.apply(g));
        }
    }

    /// A click handler doing `g`.
    pub fn on(&self, g: Gesture) -> Callback<MouseEvent> {
        let ops = self.clone();
        Callback::from(move |_| ops.apply(g))
    }
}

/// A pointer held down on the plot: where, and the view then.
#[derive(Clone, Copy)]
struct Drag {
    id: i32,
    x0: f64,
    v0: ViewWindow,
    moved: bool,
}

#[derive(Default)]
struct Pointers {
    drag: Option<Drag>,
    /// Touch points for a pinch: (id, x).
    touches: Vec<(i32, f64)>,
    /// A pinch's start: the distance between the touches, the view, their midpoint.
    pinch0: Option<(f64, ViewWindow, f64)>,
}

/// The handlers the plot element takes.
pub struct Gestures {
    pub ops: ViewOps,
    pub on_key: Callback<KeyboardEvent>,
    pub on_down: Callback<PointerEvent>,
    pub on_move: Callback<PointerEvent>,
    pub on_up: Callback<PointerEvent>,
}

/// Zoom and pan of the plot `plot`, whose time axis starts `label_w` px from its left.
#[hook]
pub fn use_timeline_gestures(plot: NodeRef, live: bool, label_w: f64) -> Gestures {
    let ops = ViewOps { drawn: use_mut_ref(|| None), chosen: use_state(|| None), follow: use_state(|| true), live };
    let pointers = use_mut_ref(Pointers::default);
    use_wheel(plot.clone(), ops.clone(), label_w);
    let on_key = {
        let ops = ops.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            if let Some(g) = key_gesture(&e.key()) {
                ops.apply(g);
                e.prevent_default();
                e.stop_propagation();
            }
        })
    };
    // The same keys page-wide while the plot is on screen, so that they work before
    // the plot is clicked or tabbed to (the "?" help lists them). The plot's own
    // handler stops them when it has focus; a field being typed in keeps them.
    {
        let (ops, plot) = (ops.clone(), plot.clone());
        use_keydown(Callback::from(move |e: KeyboardEvent| {
            let on_screen = plot.cast::<web_sys::Element>().is_some_and(|el| {
                let r = el.get_bounding_client_rect();
                let h = web_sys::window().and_then(|w| w.inner_height().ok()).and_then(|v| v.as_f64()).unwrap_or(0.0);
                r.height() > 0.0 && r.bottom() > 0.0 && r.top() < h
            });
            if let (true, Some(g)) = (on_screen, key_gesture(&e.key())) {
                ops.apply(g);
                e.prevent_default();
            }
        }));
    }
    // Pointer: drag pans; two touches pinch.
    let on_down = {
        let pointers = pointers.clone();
        let ops = ops.clone();
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            let Some(st) = ops.state() else { return };
            let mut ps = pointers.borrow_mut();
            if e.pointer_type() == "touch" {
                ps.touches.retain(|t| t.0 != e.pointer_id());
                ps.touches.push((e.pointer_id(), e.client_x() as f64));
                if ps.touches.len() == 2 {
                    let (a, b) = (ps.touches[0].1, ps.touches[1].1);
                    ps.pinch0 = Some(((a - b).abs().max(PINCH_MIN_PX), st.v, (a + b) / 2.0));
                    ps.drag = None;
                    return;
                }
            }
            ps.drag = Some(Drag { id: e.pointer_id(), x0: e.client_x() as f64, v0: st.v, moved: false });
        })
    };
    let on_move = {
        let pointers = pointers.clone();
        let ops = ops.clone();
        Callback::from(move |e: PointerEvent| {
            let Some(st) = ops.state() else { return };
            let mut ps = pointers.borrow_mut();
            if let Some(t) = ps.touches.iter_mut().find(|t| t.0 == e.pointer_id()) {
                t.1 = e.client_x() as f64;
            }
            if let (Some((d0, v0, mid0)), 2) = (ps.pinch0, ps.touches.len()) {
                let d = (ps.touches[0].1 - ps.touches[1].1).abs();
                let left = plot.cast::<web_sys::Element>().map_or(0.0, |el| el.get_bounding_client_rect().left());
                let anchor = v0.time_at(mid0 - left - label_w, st.plot_w);
                drop(ps);
                ops.set(st.pinched(v0, d0, d, anchor));
                return;
            }
            let Some(mut d) = ps.drag.filter(|d| d.id == e.pointer_id()) else { return };
            let dx = e.client_x() as f64 - d.x0;
            if !d.moved && dx.abs() < DRAG_SLOP_PX {
                return;
            }
            if !d.moved {
                d.moved = true;
                if let Some(el) = plot.cast::<web_sys::Element>() {
                    let _ = el.set_pointer_capture(e.pointer_id());
                }
            }
            ps.drag = Some(d);
            drop(ps);
            ops.set(st.dragged(d.v0, dx));
        })
    };
    let on_up = Callback::from(move |e: PointerEvent| {
        let mut ps = pointers.borrow_mut();
        ps.touches.retain(|t| t.0 != e.pointer_id());
        if ps.touches.len() < 2 {
            ps.pinch0 = None;
        }
        if ps.drag.is_some_and(|d| d.id == e.pointer_id()) {
            ps.drag = None;
        }
    });
    Gestures { ops, on_key, on_down, on_move, on_up }
}

/// Ctrl+wheel and pinches (Chromium reports a trackpad pinch as Ctrl+wheel) zoom at the
/// pointer; Shift+wheel and sideways wheels pan. Not passive, to keep the page from
/// zooming or scrolling sideways.
#[hook]
fn use_wheel(plot: NodeRef, ops: ViewOps, label_w: f64) {
    use_effect_with((), move |_| {
        let el = plot.cast::<web_sys::Element>();
        let el2 = el.clone();
        let cb = Closure::<dyn FnMut(WheelEvent)>::new(move |e: WheelEvent| {
            let Some(st) = ops.state() else { return };
            let zoom_key = e.ctrl_key() || e.meta_key();
            let left = el2.as_ref().map_or(0.0, |el| el.get_bounding_client_rect().left());
            let x = e.client_x() as f64 - left - label_w;
            let g = wheel_gesture(&st, e.delta_x(), e.delta_y(), zoom_key, e.shift_key(), x);
            if zoom_key || g.is_some() {
                e.prevent_default();
            }
            if let Some(g) = g {
                ops.apply(g);
            }
        });
        let opts = web_sys::AddEventListenerOptions::new();
        opts.set_passive(false);
        if let Some(el) = &el {
            let _ = el.add_event_listener_with_callback_and_add_event_listener_options(
                "wheel",
                cb.as_ref().unchecked_ref(),
                &opts,
            );
        }
        move || {
            if let Some(el) = el {
                let _ = el.remove_event_listener_with_callback("wheel", cb.as_ref().unchecked_ref());
            }
        }
    });
}

/// The width of `el` in px, measured after each render and on resize (900 until then).
#[hook]
pub fn use_width(el: NodeRef) -> f64 {
    let width = use_state(|| 900.0f64);
    let measure = {
        let width = width.clone();
        Rc::new(move || {
            if let Some(el) = el.cast::<web_sys::Element>() {
                let w = el.client_width() as f64;
                if w > 0.0 && (w - *width).abs() >= 1.0 {
                    width.set(w);
                }
            }
        })
    };
    {
        let measure = measure.clone();
        use_effect(move || measure());
    }
    use_event_listener(ListenOn::Window, "resize", Callback::from(move |_: web_sys::Event| measure()));
    *width
}
