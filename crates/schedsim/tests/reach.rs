//! `Switch::reach` against the model: a switch said never to act in a configuration
//! gives byte-identical reports with it flipped, for every benchmark; one said to act
//! in part differs only where its note says (checked on v5.15); and a switch gated by a release
//! does act from that release on, so the notes cannot hide a switch that works.

use schedsim::reach::Reach;
use schedsim::{Experiment, KernelSpec, KernelVersion, MachineSpec, Switch, TopologyInput, Workload};

const WORKLOADS: [&str; 6] = ["tbench", "dbench", "hackbench", "pipe", "memcache", "schbench"];

/// A small run of `kernel` on two packages of two LLCs (so that cache-affinity tests
/// can fail), at a light and a full load: the JSON of its points (samples, counters,
/// latencies), which leaves out the experiment and the kernel's label.
fn report(workload: &str, kernel: KernelSpec) -> String {
    let machine = MachineSpec { topology: Some(TopologyInput::Spec("2x2x4x2".into())), ..MachineSpec::default() };
    let mut e = Experiment::new("reach", machine, Workload::by_name(workload).unwrap(), &[4, 16], vec![kernel])
        .with_duration_ms(40);
    e.iterations = 1;
    e.seed = 3;
    serde_json::to_string(&e.run(&mut |_| true).unwrap().configs[0].points).unwrap()
}

/// `spec` with `sw` flipped from what `spec` runs with.
fn flipped(spec: &KernelSpec, sw: Switch) -> KernelSpec {
    let on = spec.resolve().on(sw);
    KernelSpec { name: spec.name.clone(), ..spec.clone().with(sw, !on) }
}

/// What differs with `sw` flipped in `spec`, by workload.
fn differs(spec: &KernelSpec, sw: Switch) -> Vec<&'static str> {
    WORKLOADS.into_iter().filter(|w| report(w, spec.clone()) != report(w, flipped(spec, sw))).collect()
}

/// Each version's own configuration, and the ones that switch on what another switch
/// waits for (SHARED_RUNQ for its overload flag, SIS_UTIL off for SIS_PROP).
fn configurations() -> Vec<KernelSpec> {
    let mut out = Vec::new();
    for v in KernelVersion::ALL {
        let k = KernelSpec::new("k", v);
        out.push(k.clone().with(Switch::SharedRunq, true));
        out.push(k.clone().with(Switch::SisUtil, !k.resolve().on(Switch::SisUtil)));
        out.push(k);
    }
    out
}

#[test]
fn a_switch_said_never_to_act_changes_no_report() {
    let mut checked = 0;
    for spec in configurations() {
        // The configuration's own reports, run once for all its switches.
        let mut base: Vec<Option<String>> = vec![None; WORKLOADS.len()];
        for sw in Switch::ALL {
            if let Reach::Never(why) = sw.reach(&spec.resolve()) {
                for (i, w) in WORKLOADS.into_iter().enumerate() {
                    let own = base[i].get_or_insert_with(|| report(w, spec.clone()));
                    let other = report(w, flipped(&spec, sw));
                    assert!(*own == other, "{} {}: said \"{why}\", but {w} differs", spec.label(), sw.name());
                }
                checked += 1;
            }
        }
    }
    // v3.8 alone has nine; the count keeps the test from passing on an empty table.
    assert!(checked >= 20, "{checked}");
}

#[test]
fn the_rfc_from_v5_10_differs_only_with_wakeups_on_idle_cpus() {
    let spec = KernelSpec::new("k", KernelVersion::V5_15);
    let Reach::Partly(why) = Switch::WakeAffinePrevRfc.reach(&spec.resolve()) else { panic!("v5.15") };
    assert!(why.contains("idle CPU"), "{why}");
    // The case: tbench, hackbench and pipe wake from running tasks on v5.15;
    // dbench's disk and memcache's network wake from interrupts on idle CPUs.
    assert_eq!(differs(&spec, Switch::WakeAffinePrevRfc), ["dbench", "memcache"]);
    // Before v5.10 it acts on normal wakeups too.
    let spec = KernelSpec::new("k", KernelVersion::V4_15);
    assert_eq!(Switch::WakeAffinePrevRfc.reach(&spec.resolve()), Reach::Acts);
    assert!(differs(&spec, Switch::WakeAffinePrevRfc).contains(&"pipe"));
}

#[test]
fn a_switch_gated_by_a_release_acts_from_that_release() {
    // The first modelled release each gated switch is said to act in.
    for (sw, v) in [
        (Switch::WaIdle, KernelVersion::V4_15),
        (Switch::WaBias, KernelVersion::V4_15),
        (Switch::SisProp, KernelVersion::V4_15),
        (Switch::SisUtil, KernelVersion::V5_13),
        (Switch::WakeAffineNoirq, KernelVersion::V4_15),
        (Switch::RecentUsedPrev, KernelVersion::V5_13),
        (Switch::SharedRunqOverload, KernelVersion::V6_5),
    ] {
        let spec = KernelSpec::new("k", v).with(Switch::SharedRunq, true);
        assert_eq!(sw.reach(&spec.resolve()), Reach::Acts, "{} {}", sw.name(), v.name());
        assert!(!differs(&spec, sw).is_empty(), "{} acts in {} but changed no report", sw.name(), v.name());
    }
}
