//! One wakeup's decision, as live mode and the Diff view both show it: the facts every
//! wakeup has (index and time, wakee, waker, previous CPU), the CPUs probed, and the
//! steps of the path with what each read and why.

use schedsim::trace::{Step, WakeupTrace};
use yew::prelude::*;

/// The `<dt>`/`<dd>` rows of the facts every wakeup has, for a `<dl>`.
pub fn wakeup_facts(t: &WakeupTrace) -> Html {
    html! {
        <>
            <dt>{ "wakeup" }</dt><dd>{ format!("#{} at {:.3} ms, {}", t.index, t.time_ns as f64 / 1e6, if t.sync { "sync" } else { "not sync" }) }</dd>
            <dt>{ "wakee" }</dt><dd>{ t.wakee.clone() }</dd>
            <dt>{ "waker" }</dt><dd>{ format!("{} on CPU {}", t.waker, t.waker_cpu) }</dd>
            <dt>{ "prev" }</dt><dd>{ format!("CPU {}", t.prev_cpu) }</dd>
        </>
    }
}

/// The CPUs the path probed, "none" if it probed none.
pub fn probed(t: &WakeupTrace) -> String {
    if t.probed.is_empty() {
        "none".to_string()
    } else {
        t.probed.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
    }
}

/// A step's result as the page shows it: v3.8's `wake_affine()` returns an int used as
/// a yes/no, which "→ 1" would read as CPU 1 (every other step that picks a CPU says
/// "CPU n"); the library's trace keeps the kernel's 0/1.
pub fn result_text(s: &Step) -> String {
    match (s.function.as_str(), s.result.as_str()) {
        ("wake_affine (v3.8)", "1") => "yes (1): wake affine".into(),
        ("wake_affine (v3.8)", "0") => "no (0): stay near prev".into(),
        _ => s.result.clone(),
    }
}

#[derive(Properties, PartialEq)]
pub struct TraceStepsProps {
    pub steps: Vec<Step>,
    #[prop_or_default]
    pub id: Option<AttrValue>,
}

/// The steps of a wakeup's path: function, result, the values read, and why.
#[function_component(TraceSteps)]
pub fn trace_steps(p: &TraceStepsProps) -> Html {
    html! {
        <ol class="steps" id={p.id.clone()}>
            { for p.steps.iter().map(|s| html! {
                <li class="step">
                    <div class="step-head"><code class="fn">{ s.function.clone() }</code>{ " → " }<strong class="result">{ result_text(s) }</strong></div>
                    if !s.read.is_empty() {
                        <div class="reads">{ for s.read.iter().map(|r| html! { <code class="read">{ r.clone() }</code> }) }</div>
                    }
                    if !s.why.is_empty() {
                        <div class="why">{ s.why.clone() }</div>
                    }
                </li>
            }) }
        </ol>
    }
}
