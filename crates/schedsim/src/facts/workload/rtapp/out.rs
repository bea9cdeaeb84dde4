//! Writing one: a workload as an rt-app file the real rt-app (1.0) runs.

use super::{RTAPP_BYTES_MAX, RTAPP_EVENTS_MAX};

/// A JSON string literal.
fn lit(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// µs for rt-app (its unit), at least 1 for any time at all.
fn us(ns: u64) -> u64 {
    ns.div_ceil(1_000)
}

/// One thread of an rt-app file: its name, settings (`"key" : value` pairs) and its
/// events in order, each key made unique with its index (rt-app's json-c keeps the last
/// of a key given twice; events are told by the start of their key).
struct OutThread {
    name: String,
    settings: Vec<String>,
    events: Vec<(&'static str, String)>,
}

fn write_file(threads: &[OutThread], duration_s: u64, what: &str) -> String {
    let mut s = format!("{{\n\t/* {what}, written by schedsim for rt-app 1.0 */\n\t\"tasks\" : {{\n");
    for (ti, t) in threads.iter().enumerate() {
        let events: Vec<String> =
            t.events.iter().enumerate().map(|(i, (k, v))| format!("{}: {v}", lit(&format!("{k}{i}")))).collect();
        let mut fields = t.settings.clone();
        fields.push(format!("\"phases\" : {{ \"p\" : {{ {} }} }}", events.join(", ")));
        s.push_str(&format!(
            "\t\t{} : {{ {} }}{}\n",
            lit(&t.name),
            fields.join(", "),
            if ti + 1 < threads.len() { "," } else { "" }
        ));
    }
    s.push_str(&format!(
        "\t}},\n\t\"global\" : {{ \"duration\" : {duration_s}, \"calibration\" : \"CPU0\", \"default_policy\" : \"SCHED_OTHER\", \"logdir\" : \"./\", \"log_basename\" : \"schedsim\" }}\n}}\n"
    ));
    s
}

/// `w` at `clients` as an rt-app file running `duration_s` seconds, and what the
/// translation loses, a line each. An rt-app workload is its own file; a replay's
/// traced tasks are threads whose steps become events (a run as `run`, a wakeup as
/// `resume` of the wakee, a block as `suspend`, an interrupt wakeup as `sleep`); tbench
/// and pipe pairs hand the CPU to each other over a mutex and condition variable
/// (`sync`). The other models have no rt-app form here: an error says so.
pub fn to_rtapp(w: &super::super::Workload, clients: u32, duration_s: u64) -> Result<(String, Vec<String>), String> {
    use super::super::Workload as W;
    let mut notes = Vec::new();
    let threads = match w {
        W::Rtapp(p) => return Ok((p.json.clone(), vec![format!("the rt-app file {} as it was given", p.file)])),
        W::Tbench(super::super::TbenchParams { work_ns, .. }) | W::Pipe(super::super::PipeParams { work_ns, .. }) => {
            notes.push(format!(
                "{}: each pair hands the CPU over a futex condition variable (rt-app's sync), not {}; run is CPU work \
                 only (no message bytes, no working set)",
                w.name(),
                if matches!(w, W::Tbench(_)) { "a loopback TCP socket" } else { "a pipe" }
            ));
            notes.push(
                "rt-app 1.0 may not end such a run when its duration is up (it joins threads still waiting on their \
                 partner): stop it with a signal it cannot wait out (timeout -k 2 DURATION+5 rt-app FILE)"
                    .into(),
            );
            let mut v = Vec::new();
            for i in 0..clients {
                for side in ["client", "server"] {
                    v.push(OutThread {
                        name: format!("{side}{i}"),
                        settings: vec!["\"loop\" : -1".into()],
                        events: vec![
                            ("run", us(*work_ns).to_string()),
                            ("lock", lit(&format!("m{i}"))),
                            (
                                "sync",
                                format!(
                                    "{{ \"ref\" : {}, \"mutex\" : {} }}",
                                    lit(&format!("pair{i}")),
                                    lit(&format!("m{i}"))
                                ),
                            ),
                            ("unlock", lit(&format!("m{i}"))),
                        ],
                    });
                }
            }
            v
        }
        W::Replay(p) => replay_threads(p, &mut notes)?,
        other => {
            return Err(format!(
                "--as rtapp: the {} model has no rt-app form (tbench, pipe, replay and rtapp have)",
                other.name()
            ))
        }
    };
    let what = format!("{} at {}", w.name(), w.clients_of(clients as u64));
    let text = write_file(&threads, duration_s.max(1), &what);
    if text.len() > RTAPP_BYTES_MAX {
        return Err(format!(
            "--as rtapp: the file would be {} bytes, more than the {RTAPP_BYTES_MAX} an rt-app file may be here (a \
             shorter trace window, or fewer clients)",
            text.len()
        ));
    }
    Ok((text, notes))
}

/// A replay's user tasks as rt-app threads, each once through its program.
fn replay_threads(p: &super::super::ReplayParams, notes: &mut Vec<String>) -> Result<Vec<OutThread>, String> {
    use super::super::replay::Op;
    let name = |i: usize| format!("{}-{i}", p.tasks[i].name.replace(['/', '"', '\\'], "_"));
    let mut out = Vec::new();
    let kthreads = p.tasks.iter().filter(|t| t.kthread).count();
    if kthreads > 0 {
        notes.push(format!("{kthreads} kernel threads of the trace left out: rt-app runs user threads"));
    }
    notes.push(
        "a wakeup becomes a resume, which rt-app 1.0 loses when its wakee is not yet suspended (the trace's wakeup \
         was counted): such a thread stalls until the end"
            .into(),
    );
    for (i, t) in p.tasks.iter().enumerate().filter(|(_, t)| !t.kthread) {
        if t.program.len() > RTAPP_EVENTS_MAX {
            return Err(format!(
                "--as rtapp: task {} has {} steps; an rt-app file here holds at most {RTAPP_EVENTS_MAX} a thread",
                t.name,
                t.program.len()
            ));
        }
        let mut events = Vec::new();
        for op in &t.program {
            match *op {
                Op::Run(ns) | Op::Sys(ns) => events.push(("run", us(ns).to_string())),
                Op::Wake { task, .. } if !p.tasks[task as usize].kthread => {
                    events.push(("resume", lit(&name(task as usize))))
                }
                Op::Wake { .. } => {}
                Op::Block => events.push(("suspend", lit(&name(i)))),
                Op::Irq { after_ns, .. } => events.push(("sleep", us(after_ns).to_string())),
                Op::Exit => break,
            }
        }
        if events.is_empty() {
            continue;
        }
        let mut settings = vec!["\"loop\" : 1".to_string()];
        if let Some(c) = t.pinned {
            settings.push(format!("\"cpus\" : [{c}]"));
        }
        out.push(OutThread { name: name(i), settings, events });
    }
    Ok(out)
}
