//! The sweep's runner: the pool of simulation workers, sized as the page says, that
//! runs the experiment when Run is pressed or the gallery asks for a one-click run
//! (then the page scrolls to the run bar, and to the results when they are done).

use crate::sweep_job::{Kept, SweepJob};
use crate::web::dom;
use crate::web::state::{Action, State, SweepResult};
use crate::web::worker::{PoolEvent, SweepPool};
use std::rc::Rc;
use yew::prelude::*;

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
    let start = {
        let state = state.clone();
        let runner = runner.clone();
        let d = dispatch.clone();
        move || {
            if let Err(e) = state.exp.validate() {
                d.emit(Action::Error(format!("cannot run: {e}")));
                return;
            }
            let id = state.next_id;
            if state.running() {
                runner.cancel();
            }
            d.emit(Action::SweepStarted { id, at_ms: dom::now_ms() });
            if let Err(e) = runner.start(id, state.exp.to_json()) {
                d.emit(Action::SweepFailed { id, message: e });
            }
        }
    };
    {
        // A reload during or after a sweep of this experiment: the runs that had landed
        // come back (`sweep_job::Kept`), or the page says they could not be kept.
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
    let scroll_on_done = use_mut_ref(|| false);
    // Opened without a link: the demo's run (request 1) starts where the page opens, at
    // its top, with its results there; later requests scroll as below.
    let opened_bare = *use_memo((), |_| dom::location_hash().trim_start_matches('#').is_empty());
    {
        // The gallery's one-click run: the experiment is loaded by the time this runs.
        let start = start.clone();
        let scroll = scroll_on_done.clone();
        use_effect_with(state.run_request, move |n| {
            if *n == 1 && opened_bare {
                start();
            } else if *n > 0 {
                *scroll.borrow_mut() = true;
                start();
                if let Some(el) = dom::document().and_then(|d| d.query_selector(".runbar").ok().flatten()) {
                    el.scroll_into_view();
                }
            }
        });
    }
    {
        // ...and when it is done, show its results.
        let scroll = scroll_on_done.clone();
        let done = state.result.as_ref().map(|r| r.done.id);
        use_effect_with(done, move |_| {
            if std::mem::take(&mut *scroll.borrow_mut()) {
                if let Some(el) = dom::document().and_then(|d| d.query_selector("section.results").ok().flatten()) {
                    el.scroll_into_view();
                }
            }
        });
    }
    let on_run = {
        let start = start.clone();
        Callback::from(move |_| {
            // The button is disabled then; a click that still arrives does nothing.
            if !blocked {
                start()
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
            crate::web::state::Sweep::RunsFailed { id, .. } => Some(*id),
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
