//! "Export Perfetto trace": one run's window recorded by `Experiment::perfetto` in the
//! web worker (it is a full run) and downloaded as JSON for ui.perfetto.dev.

use crate::model::perfetto::{parse_window, PerfettoAsk};
use crate::state::PerfettoStatus;
use schedsim::Experiment;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PerfettoProps {
    pub exp: Experiment,
    pub kernel: u32,
    pub clients: u32,
    /// Default window (ns), used while the fields are empty.
    pub window: (u64, u64),
    /// Live mode: kernel and client count are live mode's own.
    #[prop_or_default]
    pub fixed_run: bool,
    pub on_export: Callback<PerfettoAsk>,
    pub status: Option<PerfettoStatus>,
    pub id: AttrValue,
}

#[function_component(PerfettoExport)]
pub fn perfetto_export(p: &PerfettoProps) -> Html {
    let from = use_state(String::new);
    let to = use_state(String::new);
    let kernel = use_state(|| p.kernel);
    let clients = use_state(|| p.clients);
    let iteration = use_state(|| "0".to_string());
    let error = use_state(|| None::<String>);
    let (k, c) = if p.fixed_run { (p.kernel, p.clients) } else { (*kernel, *clients) };
    let fmt_ms = |ns: u64| format!("{}", ns as f64 / 1e6);
    let on_click = {
        let (from, to, it, error) = (from.clone(), to.clone(), iteration.clone(), error.clone());
        let (dflt, dur, cb) = (p.window, p.exp.duration_ms, p.on_export.clone());
        // Live mode runs iteration 0; a sweep's export asks the iteration typed.
        let (fixed, iterations) = (p.fixed_run, p.exp.iterations);
        Callback::from(move |_| {
            let f = if from.trim().is_empty() { fmt_ms(dflt.0) } else { (*from).clone() };
            let t = if to.trim().is_empty() { fmt_ms(dflt.1) } else { (*to).clone() };
            let iter = if fixed { Some(0) } else { it.trim().parse::<u32>().ok().filter(|i| *i < iterations) };
            match (parse_window(&f, &t, dur), iter) {
                (Err(e), _) => error.set(Some(e)),
                (_, None) => {
                    error.set(Some(format!("iteration: a whole number from 0 to {}", iterations.saturating_sub(1))))
                }
                (Ok((from_ns, to_ns)), Some(iteration)) => {
                    error.set(None);
                    cb.emit(PerfettoAsk { kernel: k, clients: c, iteration, from_ns, to_ns });
                }
            }
        })
    };
    let text_in = |s: &UseStateHandle<String>| {
        let s = s.clone();
        Callback::from(move |e: InputEvent| s.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_kernel = {
        let kernel = kernel.clone();
        Callback::from(move |e: Event| {
            if let Ok(i) = e.target_unchecked_into::<HtmlSelectElement>().value().parse() {
                kernel.set(i)
            }
        })
    };
    let on_clients = {
        let clients = clients.clone();
        Callback::from(move |e: Event| {
            if let Ok(i) = e.target_unchecked_into::<HtmlSelectElement>().value().parse() {
                clients.set(i)
            }
        })
    };
    let running = p.status.as_ref().map(PerfettoStatus::running).unwrap_or(false);
    html! {
        <div class="perfetto" id={p.id.clone()}>
            if !p.fixed_run {
                <label class="inline">{ "kernel " }
                    <select class="pf-kernel" onchange={on_kernel} aria-label="kernel of the Perfetto trace">
                        { for p.exp.kernels.iter().enumerate().map(|(i, kk)| html! {
                            <option value={i.to_string()} selected={i as u32 == k}>{ kk.name.clone() }</option> }) }
                    </select>
                </label>
                <label class="inline">{ format!("{} ", p.exp.workload.clients_meaning()) }
                    <select class="pf-clients" onchange={on_clients} aria-label="client count of the Perfetto trace">
                        { for p.exp.clients.iter().map(|n| html! { <option value={n.to_string()} selected={*n == c}>{ *n }</option> }) }
                    </select>
                </label>
                <label class="inline">{ "iteration " }
                    <input class="pf-iteration" type="text" inputmode="numeric" size="3" value={(*iteration).clone()} oninput={text_in(&iteration)} aria-label="iteration of the Perfetto trace" />
                </label>
            }
            <label class="inline">{ "from ms " }
                <input class="pf-from" type="text" inputmode="decimal" value={(*from).clone()} placeholder={fmt_ms(p.window.0)} oninput={text_in(&from)} aria-label="window start, ms" />
            </label>
            <label class="inline">{ "to ms " }
                <input class="pf-to" type="text" inputmode="decimal" value={(*to).clone()} placeholder={fmt_ms(p.window.1)} oninput={text_in(&to)} aria-label="window end, ms" />
            </label>
            <button type="button" class="pf-export" onclick={on_click} disabled={running}>{ "Export Perfetto trace" }</button>
            if let Some(e) = &*error {
                <span class="refusal pf-error" role="alert">{ e.clone() }</span>
            } else if let Some(s) = &p.status {
                <span class={classes!("pf-status", if s.failed() { "refusal" } else { "status" })} role="status">{ s.message().to_string() }</span>
            }
            <span class="muted hint">{ "Open the file in ui.perfetto.dev (Open trace file); it stays on your machine. A trace holds at most 500,000 events (up to about 140 MB): a wider window stops where it reaches them." }</span>
        </div>
    }
}
