//! The Perfetto export: recordings run in a worker of their own, so a sweep and an
//! export do not wait for each other, and the answer is downloaded as a file.

use crate::model::perfetto::{self, PerfettoAsk};
use crate::state::PerfettoStatus;
use crate::web::dom;
use crate::web::pool::SweepRunner;
use crate::wire::proto::{Request, Response};
use schedsim::Experiment;
use std::collections::HashMap;
use yew::prelude::*;

/// Returns the callback that records `exp` as `PerfettoAsk` says in the export worker
/// and downloads the trace; `on_status` hears each export's progress, success or failure.
/// The worker and its callbacks live as long as the component: the first render's
/// `on_status` is the one kept.
#[hook]
pub fn use_perfetto_export(exp: &Experiment, on_status: Callback<PerfettoStatus>) -> Callback<PerfettoAsk> {
    // The file names wait here for their answers.
    let names = use_mut_ref(HashMap::<u32, String>::new);
    let runner = {
        let status = on_status.clone();
        let names = names.clone();
        use_memo((), move |_| {
            SweepRunner::new(move |r| {
                let st = |id, failed, message: String| {
                    if failed {
                        PerfettoStatus::Failed { id, message }
                    } else {
                        PerfettoStatus::Done { id, message }
                    }
                };
                match r {
                    Response::Perfetto { id, json, events } => {
                        let name = names.borrow_mut().remove(&id).unwrap_or_else(|| "schedsim.perfetto.json".into());
                        match dom::download_text(&name, "application/json", &json) {
                            Ok(()) => status.emit(st(
                                id,
                                false,
                                format!("Downloaded {name} ({events} events, {:.0} kB).", json.len() as f64 / 1e3),
                            )),
                            Err(e) => status.emit(st(id, true, format!("The download failed: {e}"))),
                        }
                    }
                    Response::Failed { id, message } => {
                        status.emit(st(id, true, format!("The export failed: {message}")))
                    }
                    _ => {}
                }
            })
        })
    };
    let seq = use_mut_ref(|| 0u32);
    let exp = exp.clone();
    Callback::from(move |ask: PerfettoAsk| {
        let id = {
            let mut s = seq.borrow_mut();
            *s += 1;
            *s
        };
        let stem = crate::model::fmt::export_stem(&exp);
        let kname = exp.kernels.get(ask.kernel as usize).map(|k| k.name.clone()).unwrap_or_default();
        let name = perfetto::file_name(&stem, &kname, &ask);
        names.borrow_mut().insert(id, name.clone());
        on_status.emit(PerfettoStatus::Running { id, message: format!("Recording {name} in the worker…") });
        if let Err(e) = runner.request(id, Request::Perfetto { id, experiment_json: exp.to_json(), ask }) {
            on_status.emit(PerfettoStatus::Failed { id, message: format!("The export failed: {e}") });
        }
    })
}
