//! The sweep's runner: the pool of simulation workers, sized as the page says, that
//! runs the experiment when Run is pressed or the gallery asks for a one-click run
//! (then the view follows the results until they are drawn, or until the user scrolls).

use crate::model::sweep::{Kept, SweepJob};
use crate::state::{Action, State, SweepResult};
use crate::web::dom;
use crate::web::hooks::{use_event_listener, ListenOn};
use crate::web::pool::{PoolEvent, SweepPool};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The root attribute that marks the view as the results': while it is set the form is
/// never the scroll anchor (assets/style.css).
const FOLLOW_ATTR: &str = "data-follow";

/// What the user does to take the view back from a followed sweep: scroll, touch, press
/// a key or click (the click on Run itself comes before its sweep starts).
const FOLLOW_STOPS: [&str; 4] = ["wheel", "touchstart", "keydown", "mousedown"];

fn pool_event_to_action(e: PoolEvent) -> Action {
    match e {
        PoolEvent::Progress { id, progress } => Action::SweepProgress { id, progress },
        PoolEvent::Partial { id, report, points, progress } => {
            Action::SweepPartial(Rc::new(SweepResult::partial(id, report, points)), progress)
        }
        PoolEvent::Done { done, report, .. } => Action::SweepDone(Rc::new(SweepResult::finished(done, report))),
        PoolEvent::Failed { id, message } => Action::SweepFailed { id, message },
        PoolEvent::RunsFailed { id, report, points, failed } => {
            Action::SweepRunsFailed { result: Rc::new(SweepResult::partial(id, report, points)), failed }
        }
    }
}

/// Keeps the worker pool and returns the Run, Cancel and "Rerun the failed runs"
/// buttons' callbacks. Pool events
/// and the sweep's start, failure and cancelling reach the page as `Action`s through
/// `dispatch`; `blocked` (fields whose text is refused) makes Run do nothing.
#[hook]
pub fn use_sweep_runner(
    state: &UseReducerHandle<State>,
    dispatch: Callback<Action>,
    blocked: bool,
) -> (Callback<MouseEvent>, Callback<MouseEvent>, Callback<MouseEvent>) {
    let runner = {
        let d = dispatch.clone();
        let workers = state.workers;
        use_memo((), move |_| SweepPool::new(workers, move |e| d.emit(pool_event_to_action(e))))
    };
    {
        let runner = runner.clone();
        use_effect_with(state.workers, move |n| runner.set_size(*n));
    }
    // The sweep whose results the view follows: one the user asked for (Run, a link, a
    // classroom card). Its results are brought to the top of the view as they come and
    // once more when they are drawn, until the user scrolls or clicks (`follow_stops`).
    let follow = use_mut_ref(|| None::<u32>);
    let start = {
        let state = state.clone();
        let runner = runner.clone();
        let d = dispatch.clone();
        let follow = follow.clone();
        // `follow_it`: the user asked for this sweep (not the demo's run on a bare open).
        move |follow_it: bool| {
            if let Err(e) = state.exp.validate() {
                d.emit(Action::Error(format!(
                    "cannot run: {}",
                    crate::model::form::in_card_words(&state.exp, &e.to_string())
                )));
                return;
            }
            let id = state.next_id;
            if state.running() {
                runner.cancel();
            }
            if follow_it {
                *follow.borrow_mut() = Some(id);
                dom::set_root_attr(FOLLOW_ATTR, Some("results"));
                // Where the results will be: above the form in one column, beside it
                // from 1600 px (the last results, if any, are there until the first run
                // lands).
                dom::scroll_to(".sweep-outputs");
            }
            d.emit(Action::SweepStarted { id, at_ms: dom::now_ms() });
            if let Err(e) = runner.start(id, state.exp.to_json()) {
                d.emit(Action::SweepFailed { id, message: e });
            }
        }
    };
    {
        // A reload during or after a sweep of this experiment: the runs that had landed
        // come back (`sweep::Kept`), or the page says they could not be kept.
        let json = state.exp.to_json();
        let d = dispatch.clone();
        use_effect_with((), move |_| {
            if let Some(kept) = Kept::load_for(&json, dom::session_stored) {
                match SweepJob::resume(0, json, &kept.results) {
                    Ok(job) if !kept.results.is_empty() => {
                        let total = job.progress_now(0.0).runs_total;
                        let n = kept.results.len() as u32;
                        let r = if job.is_complete() {
                            job.finish(0.0).ok().map(|(done, report)| SweepResult::finished(done, report))
                        } else {
                            Some(SweepResult::partial(0, job.partial_report(), job.points()))
                        };
                        d.emit(Action::Restored(r.map(Rc::new), n, total));
                    }
                    Ok(job) if kept.dropped > 0 => {
                        d.emit(Action::Restored(None, 0, job.progress_now(0.0).runs_total));
                    }
                    _ => {}
                }
            }
        });
    }
    // Opened without a link: the demo's run (request 1) starts where the page opens, at
    // its top, with its results there; later requests are followed.
    let opened_bare = *use_memo((), |_| dom::location_hash().trim_start_matches('#').is_empty());
    {
        // A link's run or the gallery's one-click run: the experiment is loaded by the
        // time this runs.
        let start = start.clone();
        use_effect_with(state.run_request, move |n| {
            if *n > 0 {
                start(!(*n == 1 && opened_bare));
            }
        });
    }
    {
        // Yew's hooks are called in a fixed order, not in a loop.
        let stop = |f: &Rc<std::cell::RefCell<Option<u32>>>| {
            let f = f.clone();
            Callback::from(move |e: web_sys::Event| {
                // Ctrl+Enter runs a sweep: it starts the following rather than stops it.
                let run_key = e.dyn_ref::<web_sys::KeyboardEvent>().is_some_and(|k| k.ctrl_key() || k.meta_key());
                if !run_key {
                    *f.borrow_mut() = None;
                    dom::set_root_attr(FOLLOW_ATTR, None);
                }
            })
        };
        let [a, b, c, d] = FOLLOW_STOPS;
        use_event_listener(ListenOn::Document, a, stop(&follow));
        use_event_listener(ListenOn::Document, b, stop(&follow));
        use_event_listener(ListenOn::Document, c, stop(&follow));
        use_event_listener(ListenOn::Document, d, stop(&follow));
    }
    {
        // Each result of the followed sweep, partial or whole, is shown from its top; the
        // whole one once more after its charts are drawn (each in a task after a paint).
        let follow = follow.clone();
        let shown = state.result.as_ref().map(|r| (r.done.id, r.points.0, r.complete));
        use_effect_with(shown, move |shown| {
            let Some((id, _, complete)) = *shown else { return };
            if *follow.borrow() != Some(id) {
                return;
            }
            dom::scroll_to("section.results");
            if complete {
                dom::after_paint(move || {
                    if *follow.borrow() == Some(id) {
                        dom::scroll_to("section.results");
                    }
                    *follow.borrow_mut() = None;
                });
            }
        });
    }
    let on_run = {
        let start = start.clone();
        Callback::from(move |_| {
            // The button is disabled then; a click that still arrives does nothing.
            if !blocked {
                start(true)
            }
        })
    };
    let on_cancel = {
        let runner = runner.clone();
        let d = dispatch.clone();
        Callback::from(move |_| {
            runner.cancel();
            d.emit(Action::SweepCancelled);
        })
    };
    let on_rerun = {
        let id = match &state.sweep {
            crate::state::Sweep::RunsFailed { id, .. } => Some(*id),
            _ => None,
        };
        Callback::from(move |_| {
            if let Some(id) = id {
                if runner.rerun_failed() {
                    dispatch.emit(Action::SweepRerun { id, at_ms: dom::now_ms() });
                }
            }
        })
    };
    (on_run, on_cancel, on_rerun)
}
