//! "Run this on a cluster": under a sweep's results and in the question before a large
//! sweep, the experiment as JSON to download and the three command lines
//! (`crate::model::cluster`) that run it in shards and merge the parts, with its run count and
//! the page's estimate of its cost.

use crate::model::cluster;
use crate::state::RunQuestion;
use crate::web::dom;
use schedsim::Experiment;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ClusterProps {
    pub exp: Experiment,
    /// Open at first (the question before a large sweep); folded under results.
    #[prop_or_default]
    pub open: bool,
}

#[function_component(ClusterPanel)]
pub fn cluster_panel(p: &ClusterProps) -> Html {
    let shards = use_state(|| None::<u32>);
    let status = use_state(|| None::<String>);
    // An invalid experiment has no sweep to hand over.
    let Some(cost) = RunQuestion::estimate(&p.exp) else { return html! {} };
    let n = shards.unwrap_or_else(|| cluster::default_shards(cost.runs));
    let file = format!("{}.json", crate::model::fmt::export_stem(&p.exp));
    let c = cluster::commands(&file, n);
    let on_download = {
        let (file, json, status) = (file.clone(), p.exp.to_json(), status.clone());
        Callback::from(move |_| {
            status.set(Some(match dom::download_text(&file, "application/json", &json) {
                Ok(()) => format!("Saved {file}: give it to the commands below from the repository's root."),
                Err(e) => format!("The download failed: {e}"),
            }))
        })
    };
    let on_shards = {
        let shards = shards.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            if let Ok(k) = v.trim().parse::<u32>() {
                shards.set(Some(k.clamp(1, 10_000)));
            }
        })
    };
    let block = |id: &'static str, title: &'static str, text: String| {
        html! {
            <div class="cluster-way">
                <h4>{ title }</h4>
                <pre id={id} class="cluster-cmd" tabindex="0">{ text }</pre>
            </div>
        }
    };
    html! {
        <details class="cluster" id="cluster" open={p.open}>
            <summary>{ "Run this on a cluster" }</summary>
            <p class="cluster-summary" id="cluster-summary">{ cluster::summary(cost.runs, cost.cpu_ms, n) }</p>
            <p class="cluster-tools">
                <button type="button" id="cluster-download" onclick={on_download}>{ format!("Download {file}") }</button>
                <label class="inline">{ " shards " }
                    <input type="number" id="cluster-shards" min="1" max="10000" step="1" value={n.to_string()}
                        onchange={on_shards} aria-label="number of shards" />
                </label>
                if let Some(s) = &*status {
                    <span class="status" role="status">{ s.clone() }</span>
                }
            </p>
            <p class="muted">{ "Each shard writes a part; merging the parts gives the very table and reports this page and schedsim run give. The job files are in the repository's docs/cluster/ (README.md there)." }</p>
            { block("cluster-slurm", "Slurm job array", c.slurm) }
            { block("cluster-kubernetes", "Kubernetes Indexed Job", c.kubernetes) }
            { block("cluster-parallel", "GNU parallel", c.parallel) }
        </details>
    }
}
