//! One kernel configuration: a version preset, every sched feature and seed patch as a
//! switch with its one-line explanation, and a link to each patch's text. A name the
//! user never typed follows the configuration (`model::kernels`), and what would make the
//! comparison misleading (identical kernels, a switch that restates its version's
//! default, a name that says another version) is said in the panel; a switch that cannot
//! act on the version chosen says why beside it (`switch_reach`).

use crate::model::kernels;
use crate::web::components::fields::Field;
use crate::web::components::policy_editor::PolicyEditor;
use crate::web::components::switch_reach::SwitchReach;
use schedsim::{KernelSpec, KernelVersion, Switch};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct KernelProps {
    pub index: usize,
    pub spec: KernelSpec,
    pub others: Vec<String>,
    pub can_remove: bool,
    /// What is misleading about this kernel among the others (`kernels::warnings`).
    pub warnings: Vec<String>,
    /// Another kernel has this one's name (`kernels::duplicate_name`): the name field
    /// says so, as a refused field does.
    #[prop_or_default]
    pub duplicate: Option<String>,
    pub on_change: Callback<KernelSpec>,
    pub on_remove: Callback<()>,
}

pub use crate::model::kernels::letter;

#[function_component(KernelPanel)]
pub fn kernel_panel(p: &KernelProps) -> Html {
    let spec = &p.spec;
    let cfg = spec.resolve();
    let on_preset = {
        let spec = spec.clone();
        let cb = p.on_change.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Some(ver) = KernelVersion::parse(&v) {
                // The switches the user set stay set: one that the new version has on
                // anyway is said in the panel, not dropped behind the user's back.
                let k = KernelSpec { preset: ver, ..spec.clone() };
                cb.emit(kernels::follow(&spec, k));
            }
        })
    };
    let on_name = {
        let spec = spec.clone();
        let cb = p.on_change.clone();
        let others = p.others.clone();
        Callback::from(move |v: String| {
            let v = v.trim().to_string();
            if v.is_empty() || v.chars().count() > 40 {
                return Some("1 to 40 characters".to_string());
            }
            if others.contains(&v) {
                return Some("another kernel has this name".to_string());
            }
            let mut k = spec.clone();
            k.name = v;
            cb.emit(k);
            None
        })
    };
    let reset = {
        let spec = spec.clone();
        let cb = p.on_change.clone();
        Callback::from(move |_| {
            let mut k = spec.clone();
            k.overrides.clear();
            cb.emit(kernels::follow(&spec, k));
        })
    };
    let redundant = kernels::redundant_switches(spec);
    let tidy = {
        let spec = spec.clone();
        let cb = p.on_change.clone();
        let redundant = redundant.clone();
        Callback::from(move |_| {
            let mut k = spec.clone();
            k.overrides.retain(|sw, _| !redundant.contains(sw));
            cb.emit(kernels::follow(&spec, k));
        })
    };
    let switches = |patches: bool| {
        Switch::ALL
            .iter()
            .copied()
            .filter(|s| s.is_patch() == patches)
            .map(|sw| {
                let on = cfg.on(sw);
                let default = sw.default_in(spec.preset);
                let overridden = spec.overrides.contains_key(&sw);
                let onchange = {
                    let spec = spec.clone();
                    let cb = p.on_change.clone();
                    Callback::from(move |_: Event| {
                        let mut k = spec.clone();
                        let new = !on;
                        if sw.default_in(k.preset) == Some(new) {
                            k.overrides.remove(&sw);
                        } else {
                            k.overrides.insert(sw, new);
                        }
                        cb.emit(kernels::follow(&spec, k));
                    })
                };
                let id = format!("k{}-{}", p.index, sw.name());
                let state = match (default, overridden) {
                    (None, _) => format!("not in {}", spec.preset.name()),
                    (Some(_), true) => "changed".to_string(),
                    (Some(d), false) => format!("{} default", if d { "on" } else { "off" }),
                };
                html! {
                    <li class={classes!("switch", overridden.then_some("overridden"), default.is_none().then_some("absent"))}>
                        <input type="checkbox" id={id.clone()} checked={on} {onchange} />
                        <label for={id}>
                            <code>{ sw.name() }</code>
                            <span class="sw-state">{ state }</span>
                            <span class="sw-explain">{ sw.explain() }</span>
                        </label>
                        if let Some(f) = sw.seed_file() {
                            <a class="patch-link" href={format!("seeds/{f}")} target="_blank" rel="noopener">{ "patch text" }</a>
                        }
                        <SwitchReach switch={sw} {cfg} />
                    </li>
                }
            })
            .collect::<Html>()
    };
    let why = spec.non_historical();
    let remove = p.on_remove.clone();
    let on_policy = {
        let spec = spec.clone();
        let cb = p.on_change.clone();
        // A name that follows the configuration follows the script too ("v6.18 + script").
        Callback::from(move |policy: Option<String>| {
            cb.emit(kernels::follow(&spec, KernelSpec { policy, ..spec.clone() }))
        })
    };
    html! {
        <section class="kernel" data-kernel={p.index.to_string()}>
            <header>
                <h3><span class={classes!("swatch", format!("s{}", p.index % 6))}></span>{ format!("Kernel {}", letter(p.index)) }</h3>
                if p.can_remove {
                    <button type="button" class="tool" aria-label={format!("Remove kernel {}", letter(p.index))}
                        onclick={Callback::from(move |_| remove.emit(()))}>{ "✕" }</button>
                }
            </header>
            <div class="kernel-head">
                <Field label="name" value={spec.name.clone()} on_commit={on_name} id={format!("k{}-name", p.index)}
                    what={format!("Kernel {}, name", letter(p.index))}
                    hint={if kernels::is_auto_name(spec) { "follows the version and switches until you type one" } else { "" }}
                    refused={p.duplicate.clone().unwrap_or_default()} />
                <label class="field">
                    <span class="field-label">{ "version preset" }</span>
                    <select onchange={on_preset} aria-label={format!("Kernel {} version", letter(p.index))}>
                        { for KernelVersion::ALL.iter().map(|v| html! {
                            <option value={v.name()} selected={*v == spec.preset}>{ v.name() }</option>
                        }) }
                    </select>
                </label>
            </div>
            <p class="kernel-label"><code>{ spec.label() }</code>
                if !spec.overrides.is_empty() {
                    { " " }<button type="button" class="tool" onclick={reset}>{ "reset switches" }</button>
                }
            </p>
            <h4>{ "sched features" }</h4>
            <ul class="switches">{ switches(false) }</ul>
            <h4>{ "seed patches" }</h4>
            <ul class="switches">{ switches(true) }</ul>
            <PolicyEditor index={p.index} policy={spec.policy.clone()} on_change={on_policy} />
            if !p.warnings.is_empty() {
                <ul class="kernel-warnings" role="status">
                    { for p.warnings.iter().map(|w| html! { <li>{ w.clone() }</li> }) }
                    if !redundant.is_empty() {
                        <li class="tidy"><button type="button" class="tool" onclick={tidy}>{ "drop the switches that change nothing" }</button></li>
                    }
                </ul>
            }
            if !why.is_empty() {
                <ul class="non-historical">
                    { for why.iter().map(|w| html! { <li>{ format!("never shipped as such: {w}") }</li> }) }
                </ul>
            }
        </section>
    }
}
