//! The machine drawn as nested boxes — node ⊃ LLC ⊃ core ⊃ SMT thread — editable by
//! direct manipulation, and in live mode coloured by what each CPU does.

use crate::model::topology::{Refusal, Spot, TopoEdit};
use crate::web::hooks::use_roving_focus;
use schedsim::live::CpuView;
use schedsim::topology::{Topology, LOCAL_DISTANCE, THREADS_PER_CORE_MAX};
use schedsim::trace::WakeupTrace;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// What live mode shows on the drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveFrame {
    pub cpus: Vec<CpuView>,
    pub trace: Option<WakeupTrace>,
    /// C-state names, shallow to deep, to shade idle depth.
    pub cstates: Vec<String>,
    /// The wasted-core invariant broken right now: its idle and busy CPU are marked.
    pub wasted: Option<schedsim::WastedMoment>,
    /// The A/B diff: the CPU kernel B would have chosen for `trace`'s wakeup.
    pub counterfactual: Option<u32>,
}

#[derive(Properties)]
pub struct TopologyProps {
    pub topo: Rc<Topology>,
    #[prop_or_default]
    pub editable: bool,
    #[prop_or_default]
    pub refusal: Option<Refusal>,
    #[prop_or_default]
    pub on_edit: Callback<TopoEdit>,
    #[prop_or_default]
    pub live: Option<Rc<LiveFrame>>,
}

/// Equal when they draw the same. `on_edit` is left out: every caller's is the page's
/// dispatch of the edit, made anew at each render of the page, and compared by pointer
/// it redrew the whole machine editor (three controls per core, 1,536 on a 1,024-CPU
/// machine) at every change of the page's state: five times a second while a sweep runs.
impl PartialEq for TopologyProps {
    fn eq(&self, o: &Self) -> bool {
        self.topo == o.topo && self.editable == o.editable && self.refusal == o.refusal && self.live == o.live
    }
}

fn refusal_at(r: &Option<Refusal>, spot: Spot) -> Html {
    match r {
        Some(r) if r.spot == spot => html! { <p class="refusal" role="alert">{ r.message.clone() }</p> },
        _ => html! {},
    }
}

fn tool(label: &'static str, aria: String, on_edit: &Callback<TopoEdit>, e: TopoEdit) -> Html {
    let cb = on_edit.clone();
    html! {
        <button type="button" class="tool" title={aria.clone()} aria-label={aria} onclick={Callback::from(move |_| cb.emit(e))}>{ label }</button>
    }
}

#[function_component(TopologyView)]
pub fn topology_view(p: &TopologyProps) -> Html {
    let t = &*p.topo;
    // The editor's buttons and menus (three per core) are one Tab stop, arrows inside.
    let editor = use_node_ref();
    let (on_key, on_focus) = use_roving_focus(editor.clone());
    let core_cpus = crate::model::topology::core_cpus(t).unwrap_or_default();
    let ed = &p.on_edit;
    let edit = p.editable;
    let live = p.live.as_deref();
    let mut gcore = 0usize;
    let mut gllc = 0usize;
    let nodes = t.nodes.iter().enumerate().map(|(ni, node)| {
        let n = ni as u32;
        let node_cpus: u32 = node.llcs.iter().flat_map(|l| &l.cores).map(|c| c.threads).sum();
        let llcs = node.llcs.iter().enumerate().map(|(li, llc)| {
            let l = li as u32;
            let llc_no = gllc;
            gllc += 1;
            let cores = llc.cores.iter().enumerate().map(|(ci, core)| {
                let c = ci as u32;
                let cpus = core_cpus.get(gcore).cloned().unwrap_or_default();
                gcore += 1;
                let cells = cpus.iter().map(|&cpu| cpu_cell(cpu, live)).collect::<Html>();
                let tools = if edit {
                    let cb = ed.clone();
                    let onchange = Callback::from(move |e: Event| {
                        let v = e.target_unchecked_into::<HtmlSelectElement>().value();
                        if let Ok(th) = v.parse::<u32>() {
                            cb.emit(TopoEdit::SetThreads(n, l, c, th));
                        }
                    });
                    html! {
                        <div class="core-tools">
                            <select class="smt" aria-label={format!("SMT width of node {n} LLC {l} core {c}")} {onchange}>
                                { for (1..=THREADS_PER_CORE_MAX).map(|w| html! {
                                    <option value={w.to_string()} selected={w == core.threads}>{ format!("{w}T") }</option>
                                }) }
                            </select>
                            { tool("dup", format!("Duplicate core {c} of node {n} LLC {l}"), ed, TopoEdit::DuplicateCore(n, l, c)) }
                            { tool("✕", format!("Remove core {c} of node {n} LLC {l}"), ed, TopoEdit::RemoveCore(n, l, c)) }
                        </div>
                    }
                } else {
                    html! {}
                };
                html! {
                    <div class="core" data-core={format!("{n}.{l}.{c}")}>
                        <div class="threads">{ cells }</div>
                        { tools }
                        { refusal_at(&p.refusal, Spot::Core(n, l, c)) }
                    </div>
                }
            }).collect::<Html>();
            html! {
                <div class="llc" data-llc={format!("{n}.{l}")}>
                    <header>
                        <span class="box-title">{ format!("LLC {llc_no}") }</span>
                        if edit {
                            { tool("+ core", format!("Add a core to node {n} LLC {l}"), ed, TopoEdit::AddCore(n, l)) }
                            { tool("dup", format!("Duplicate LLC {l} of node {n}"), ed, TopoEdit::DuplicateLlc(n, l)) }
                            { tool("✕", format!("Remove LLC {l} of node {n}"), ed, TopoEdit::RemoveLlc(n, l)) }
                        }
                    </header>
                    { refusal_at(&p.refusal, Spot::Llc(n, l)) }
                    <div class="cores">{ cores }</div>
                </div>
            }
        }).collect::<Html>();
        html! {
            <section class="node" data-node={n.to_string()}>
                <header>
                    <span class="box-title">{ format!("Node {n}") }</span>
                    <span class="box-sub">{ format!("{} LLC{}, {node_cpus} CPUs", node.llcs.len(), if node.llcs.len() == 1 { "" } else { "s" }) }</span>
                    if edit {
                        { tool("+ LLC", format!("Add an LLC to node {n}"), ed, TopoEdit::AddLlc(n)) }
                        { tool("dup", format!("Duplicate node {n}"), ed, TopoEdit::DuplicateNode(n)) }
                        { tool("✕", format!("Remove node {n}"), ed, TopoEdit::RemoveNode(n)) }
                    }
                </header>
                { refusal_at(&p.refusal, Spot::Node(n)) }
                <div class="llcs">{ llcs }</div>
            </section>
        }
    }).collect::<Html>();

    let toolbar = if edit {
        let cb = ed.clone();
        let onchange = Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Ok(th) = v.parse::<u32>() {
                cb.emit(TopoEdit::SetAllThreads(th));
            }
        });
        html! {
            <div class="topo-toolbar">
                { tool("+ node", "Add a NUMA node (a copy of the last)".into(), ed, TopoEdit::AddNode) }
                <label class="inline">{ "SMT width of every core " }
                    <select aria-label="SMT width of every core" {onchange}>
                        <option value="" selected=true>{ "—" }</option>
                        { for (1..=THREADS_PER_CORE_MAX).map(|w| html! { <option value={w.to_string()}>{ format!("{w}") }</option> }) }
                    </select>
                </label>
            </div>
        }
    } else {
        html! {}
    };

    let class = classes!(
        "topo",
        edit.then_some("editing"),
        live.is_some().then_some("live"),
        (t.cpu_count() > 96).then_some("dense")
    );
    let body = html! {
        <>
            { toolbar }
            { refusal_at(&p.refusal, Spot::Machine) }
            <div class="nodes">{ nodes }</div>
            if t.nodes.len() > 1 {
                { distance_matrix(t, edit, ed, &p.refusal) }
            }
            if let Some(f) = live {
                { legend(f.counterfactual.is_some()) }
            }
        </>
    };
    if edit {
        html! {
            <div {class} ref={editor} role="group" data-arrows="true" onkeydown={on_key} onfocusin={on_focus}
                aria-label="machine editor: one Tab stop, arrow keys move between its buttons and menus">{ body }</div>
        }
    } else {
        html! { <div {class}>{ body }</div> }
    }
}

fn distance_matrix(t: &Topology, edit: bool, ed: &Callback<TopoEdit>, refusal: &Option<Refusal>) -> Html {
    let n = t.nodes.len();
    let d = t.numa_distance.clone().unwrap_or_else(|| crate::model::topology::default_distances(n));
    let rows = (0..n)
        .map(|i| {
            let cells = (0..n).map(|j| {
            let v = d[i][j];
            if !edit || i == j {
                html! { <td>{ v }</td> }
            } else {
                let cb = ed.clone();
                let onchange = Callback::from(move |e: Event| {
                    let s = e.target_unchecked_into::<HtmlInputElement>().value();
                    match s.trim().parse::<u32>() {
                        Ok(v) => cb.emit(TopoEdit::SetDistance(i as u32, j as u32, v)),
                        // Out of u32: let the editor refuse it with its own message.
                        Err(_) => cb.emit(TopoEdit::SetDistance(i as u32, j as u32, 0)),
                    }
                });
                html! {
                    <td><input type="number" min={(LOCAL_DISTANCE + 1).to_string()} max="254" value={v.to_string()}
                        aria-label={format!("NUMA distance from node {i} to node {j}")} {onchange} /></td>
                }
            }
        }).collect::<Html>();
            html! { <tr><th scope="row">{ format!("node {i}") }</th>{ cells }</tr> }
        })
        .collect::<Html>();
    let spot_msg = match refusal {
        Some(r) if matches!(r.spot, Spot::Distance(..)) => {
            html! { <p class="refusal" role="alert">{ r.message.clone() }</p> }
        }
        _ => html! {},
    };
    html! {
        <div class="numa">
            <table class="distance">
                <caption>
                    { "NUMA distances (SLIT; beyond 30 a level loses wake-affine)" }
                    if edit && t.numa_distance.is_some() {
                        { " " }{ tool("reset", "Reset NUMA distances to 10/21".into(), ed, TopoEdit::ResetDistances) }
                    }
                </caption>
                <tr><th></th>{ for (0..n).map(|j| html! { <th scope="col">{ format!("node {j}") }</th> }) }</tr>
                { rows }
            </table>
            { spot_msg }
        </div>
    }
}

/// One CPU's cell: without live mode its number; in live mode a [`CpuCell`] of what it
/// does, which Yew redraws only when that changed (a live step at 1,024 CPUs changes a
/// few of them).
fn cpu_cell(cpu: u32, live: Option<&LiveFrame>) -> Html {
    let Some(f) = live else {
        return html! { <div class="cpu" title={format!("CPU {cpu}")}><span class="cpu-no">{ cpu }</span></div> };
    };
    let Some(v) = f.cpus.get(cpu as usize) else {
        return html! { <div class="cpu"><span class="cpu-no">{ cpu }</span></div> };
    };
    let depth = v.idle_state.as_ref().and_then(|s| f.cstates.iter().position(|c| c == s)).unwrap_or(0);
    let mut roles = Vec::new();
    if let Some(w) = &f.wasted {
        if w.idle_cpu == cpu {
            roles.push("wasted-idle");
        }
        if w.busy_cpu == cpu {
            roles.push("wasted-busy");
        }
    }
    if let Some(tr) = &f.trace {
        if tr.target_cpu == Some(cpu) {
            roles.push("target");
        }
        if tr.waker_cpu == cpu {
            roles.push("waker");
        }
        if tr.prev_cpu == cpu {
            roles.push("prev");
        }
        if tr.probed.contains(&cpu) {
            roles.push("probed");
        }
        if tr.outcome.as_ref().map(|o| o.chosen_cpu) == Some(cpu) {
            roles.push("chosen");
        }
    }
    if f.counterfactual == Some(cpu) {
        roles.push("chosen-b");
    }
    html! { <CpuCell cpu={cpu} view={v.clone()} {depth} {roles} /> }
}

#[derive(Properties, PartialEq)]
struct CpuCellProps {
    cpu: u32,
    view: CpuView,
    /// Its idle state's depth among the machine's C-states.
    depth: usize,
    /// What it is in the wakeup shown: `target`, `waker`, `chosen`, ...
    roles: Vec<&'static str>,
}

#[function_component(CpuCell)]
fn cpu_cell_live(p: &CpuCellProps) -> Html {
    let (cpu, v, roles) = (p.cpu, &p.view, &p.roles);
    // A "waking" CPU is leaving an idle state to run what was put on it (every CPU at
    // the start of a run, its first task queued): said so, not read as a task waking.
    let mut title = match (v.phase.as_str(), &v.idle_state) {
        ("waking", Some(s)) => format!("CPU {cpu}: leaving idle ({s})"),
        ("waking", None) => format!("CPU {cpu}: leaving idle"),
        (ph, Some(s)) => format!("CPU {cpu}: {ph} ({s})"),
        (ph, None) => format!("CPU {cpu}: {ph}"),
    };
    if let Some(r) = &v.running {
        title += &format!(", running {r}");
    }
    if !v.queued.is_empty() {
        title += &format!(", queued: {}", v.queued.join(" "));
    }
    if v.ttwu_pending {
        title += ", wakeup pending";
    }
    if !roles.is_empty() {
        title += &format!(" — {}", roles.join(", "));
    }
    let marks: String = roles
        .iter()
        .map(|r| match *r {
            "waker" => "W",
            "prev" => "P",
            "chosen" => "★",
            "chosen-b" => "◆",
            "target" => "T",
            "wasted-idle" => "⚠",
            "wasted-busy" => "Q",
            _ => "",
        })
        .collect();
    let task = v.running.clone().unwrap_or_default();
    html! {
        <div class={classes!("cpu", format!("ph-{}", v.phase), (v.phase == "idle").then(|| format!("depth-{}", p.depth.min(4))), roles.clone())}
             title={title} data-cpu={cpu.to_string()}>
            <span class="cpu-no">{ cpu }</span>
            <span class="cpu-task" title={task.clone()}>{ task }</span>
            if v.nr_running > 1 {
                <span class="cpu-q" title="runnable tasks">{ v.nr_running }</span>
            }
            if v.ttwu_pending {
                <span class="cpu-pend" title="wakeup pending">{ "•" }</span>
            }
            if !marks.is_empty() {
                <span class="cpu-marks">{ marks }</span>
            }
        </div>
    }
}

/// With `diff`, ★ is kernel A's choice and ◆ kernel B's.
fn legend(diff: bool) -> Html {
    html! {
        <div class="topo-legend" aria-label="legend">
            <span class="cpu ph-user">{ "user" }</span>
            <span class="cpu ph-kernel">{ "kernel" }</span>
            <span class="cpu ph-waking" title="a CPU leaving an idle state to run a task put on it (every CPU at the start of a run)">{ "leaving idle" }</span>
            <span class="cpu ph-idle depth-0">{ "idle (poll)" }</span>
            <span class="cpu ph-idle depth-2">{ "idle (deeper)" }</span>
            <span class="cpu waker">{ "W waker" }</span>
            <span class="cpu prev">{ "P prev" }</span>
            <span class="cpu target">{ "T target" }</span>
            <span class="cpu probed">{ "probed" }</span>
            if diff {
                <span class="cpu chosen">{ "★ A chose" }</span>
                <span class="cpu chosen-b">{ "◆ B would choose" }</span>
            } else {
                <span class="cpu chosen">{ "★ chosen" }</span>
            }
            if !diff {
                <span class="cpu wasted-idle">{ "⚠ wasted: idle CPU" }</span>
                <span class="cpu wasted-busy">{ "Q wasted: its task waits here" }</span>
            }
            <span class="cpu"><span class="cpu-q">{ "2" }</span>{ " runnable" }</span>
        </div>
    }
}
