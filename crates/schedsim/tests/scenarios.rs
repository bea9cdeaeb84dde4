//! Wakeup-path scenario tests: a tiny machine in a chosen state, ONE wakeup (or one
//! CPU going newly idle) through the real code, and the decision trace that
//! `schedsim trace` prints compared with a snapshot. The scenario language is
//! documented in `crates/schedsim/src/scenario.rs`; every CPU not named is idle in
//! C1. Refresh the snapshots with
//! `UPDATE_EXPECT=1 cargo test -p schedsim --test scenarios` and read the diff.
//!
//! Each case names the kernel function and branch it proves. A case marked
//! `DIVERGES` snapshots what the model does where the kernel named does otherwise.

use expect_test::{expect, Expect};
use schedsim::Switch;

/// Runs one scenario and compares its rendering with the snapshot.
fn check(spec: &str, want: Expect) {
    let got = schedsim::scenario::run(spec).unwrap_or_else(|e| panic!("scenario: {e}\n{spec}"));
    want.assert_eq(&got);
}

/// The same scenario with `switch` forced off and on (appended to its `kernel`
/// line): two snapshots, which must differ.
fn check_switch(switch: &str, spec: &str, off: Expect, on: Expect) {
    let (got_off, got_on) = run_off_on(schedsim::scenario::run, switch, spec);
    off.assert_eq(&got_off);
    on.assert_eq(&got_on);
    assert_ne!(got_off, got_on, "switch {switch} changes nothing in this scenario");
}

/// `spec` run by `run` with `-SWITCH` and with `+SWITCH` on its kernel line.
fn run_off_on(run: fn(&str) -> Result<String, String>, switch: &str, spec: &str) -> (String, String) {
    let sw = Switch::parse(switch).unwrap_or_else(|| panic!("unknown switch {switch}"));
    let got = |sign: char| {
        let s = with_switch(spec, &format!("{sign}{}", sw.name()));
        run(&s).unwrap_or_else(|e| panic!("scenario: {e}\n{s}"))
    };
    (got('-'), got('+'))
}

// ---- select_task_rq_fair -----------------------------------------------------------

// v5.15 select_task_rq(): nr_cpus_allowed == 1, select_task_rq_fair() is not called.
// record_wakee() runs inside select_task_rq_fair(), so never for a pinned wakee: the
// waker's wakee_flips stays 3.
#[test]
fn select_task_rq_pinned() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0 busy
        waker task cpu=0 flips=3 new_partner
        wakee prev=2 pinned=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. select_task_rq -> CPU 2
                   read: nr_cpus_allowed=1
                   why:  pinned task
              => CPU 2 (SameCpu from prev), IPI, leaves C1, waker cost 1000 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=3
        "#]],
    );
}

// v5.15 select_task_rq_fair(): want_affine = !wake_wide(p): wake_wide true, the
// domain loop finds no affine domain, select_idle_sibling(p, prev, prev).
#[test]
fn select_task_rq_wake_wide_true() {
    check(
        r#"
        machine 1x1x2x1
        kernel v5.15
        cpu 0,1 busy
        waker task cpu=0 flips=4
        wakee prev=1 flips=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 1 (wide)
                   read: current (waker) flips=4, wakee flips=2, llc_size=2
                   why:  the waker wakes many different tasks: spread them, no affine pull
              2. select_task_rq_fair -> target=prev CPU 1
                   read: want_affine=0
                   why:  no wake-affine domain spans both CPUs (or wake_wide): start from prev
              3. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              4. select_idle_cpu -> none
                   why:  no idle CPU in the LLC
              CPUs probed: 1 0 1
              => CPU 1 (SameCpu from prev), waker cost 620 ns
              after: this_sd->avg_scan_cost 0 -> 5
              after: wake_avg_idle(0) 500000 -> 499960
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=4
        "#]],
    );
}

// v5.15 wake_wide(): slave >= llc_size but master < slave * llc_size: 0, affine.
#[test]
fn wake_wide_master_below_slave_times_factor() {
    check(
        r#"
        machine 1x1x2x1
        kernel v5.15
        cpu 0,1 busy
        waker task cpu=0 flips=3
        wakee prev=1 flips=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=3, wakee flips=2, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 1
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> none
                   why:  no idle CPU in the LLC
              CPUs probed: 1 0 1
              => CPU 1 (SameCpu from prev), waker cost 620 ns
              after: this_sd->avg_scan_cost 0 -> 5
              after: wake_avg_idle(0) 500000 -> 499960
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=3
        "#]],
    );
}

// v5.15 wake_wide() reads current->wakee_flips, and record_wakee() counts on current,
// also in an interrupt, where current is the interrupted task (here flips 40, wakee
// 10, llc_size 2: master 40 >= 10 * 2, slave 10 >= 2, so wake_wide() = 1 and no
// wake_affine()).
// From an interrupt, record_wakee() and wake_wide() read `current`, the interrupted
// task (flips 40 vs 10, llc_size 2): wide, no wake_affine().
#[test]
fn wake_wide_from_interrupt_on_busy_cpu() {
    check(
        r#"
        machine 1x1x2x1
        kernel v5.15
        cpu 0,1 busy
        waker irq cpu=0 flips=40
        wakee prev=1 flips=10
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 1 (wide)
                   read: current (cpu0) flips=40, wakee flips=10, llc_size=2
                   why:  the waker wakes many different tasks: spread them, no affine pull
              2. select_task_rq_fair -> target=prev CPU 1
                   read: want_affine=0
                   why:  no wake-affine domain spans both CPUs (or wake_wide): start from prev
              3. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              4. select_idle_cpu -> none
                   why:  no idle CPU in the LLC
              CPUs probed: 1 0 1
              => CPU 1 (SameCpu from prev), waker cost 620 ns
              after: this_sd->avg_scan_cost 0 -> 5
              after: wake_avg_idle(0) 500000 -> 499960
              after: p->recent_used_cpu=1, interrupted cpu0->recent_used_cpu=0, ->wakee_flips=40
        "#]],
    );
}

// v5.14 select_task_rq_fair(): `if (want_affine) current->recent_used_cpu = cpu;` and
// record_wakee(p) run on current, in an interrupt the interrupted task (recent 3,
// flips 0, last woke another task): the kernel leaves it with recent_used_cpu 0 and
// wakee_flips 1.
// The interrupted task is `current`: its wakee_flips counts the wakee and, v4.17 to
// v5.14, its recent_used_cpu becomes this CPU (3 -> 0).
#[test]
fn select_task_rq_irq_current_v514() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.14
        cpu 0,1 busy
        waker irq cpu=0 recent=3 new_partner
        wakee prev=1
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (cpu0) flips=1, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 1
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 1 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1090 ns
              after: this_sd->avg_scan_cost 0 -> 7
              after: wake_avg_idle(0) 500000 -> 499940
              after: p->recent_used_cpu=1, interrupted cpu0->recent_used_cpu=0, ->wakee_flips=1
        "#]],
    );
}

// v5.15 select_task_rq_fair(): no domain of this CPU with SD_WAKE_AFFINE spans prev
// (NUMA distance 40 > node_reclaim_distance 30): select_idle_sibling(p, prev, prev).
#[test]
fn select_task_rq_no_affine_domain() {
    check(
        r#"
        machine 2x1x2x1
        numa 40
        kernel v5.15
        cpu 0,2 busy
        waker task cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. select_task_rq_fair -> target=prev CPU 2
                   read: want_affine=1
                   why:  no wake-affine domain spans both CPUs (or wake_wide): start from prev
              3. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              4. select_idle_cpu -> CPU 3
                   read: nr=1000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 3
              => CPU 3 (SameLlc from prev), queued on wake list, IPI, leaves C1, waker cost 1050 ns
              after: this_sd->avg_scan_cost 0 -> 18
              after: wake_avg_idle(0) 500000 -> 499850
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v3.8 select_task_rq_fair(): no affine_sd and no domain with SD_BALANCE_WAKE.
// DIVERGES from v3.8 select_task_rq_fair(): `while (sd)` does not run and new_cpu =
// prev_cpu is returned without select_idle_sibling(); the model calls
// select_idle_sibling(p, prev) and moves the wakee to idle CPU 3.
#[test]
fn select_task_rq_no_affine_domain_v38() {
    check(
        r#"
        machine 2x1x2x1
        numa 40
        kernel v3.8
        cpu 0,2 busy
        waker task cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. select_task_rq_fair -> target=prev CPU 2
                   read: want_affine=1
                   why:  no wake-affine domain spans both CPUs (or wake_wide): start from prev
              2. select_task_rq_fair -> CPU 2
                   read: affine_sd=NULL
                   why:  no SD_BALANCE_WAKE domain either: prev_cpu as it is, no select_idle_sibling
              => CPU 2 (SameCpu from prev), queued on wake list, IPI, waker cost 750 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_task_rq_fair(): cpu == prev_cpu: no wake_affine(), straight to
// select_idle_sibling(p, prev, prev).
#[test]
fn select_task_rq_this_is_prev() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 1 busy
        waker task cpu=1
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 1 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              3. select_idle_cpu -> CPU 2
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1060 ns
              after: this_sd->avg_scan_cost 0 -> 3
              after: wake_avg_idle(1) 500000 -> 499970
              after: p->recent_used_cpu=1, waker->recent_used_cpu=1, waker->wakee_flips=0
        "#]],
    );
}

// ---- wake_affine (v3.8) ------------------------------------------------------------

// v3.8 wake_affine(): sync subtracts the waker's weight, this_load <= 0: balanced,
// `sync && balanced` returns 1; v3.8 select_idle_sibling() group walk from CPU 0's
// MC group finds CPU 2 (groups {0} and {1} are busy).
#[test]
fn wake_affine_v38_sync_balanced() {
    check(
        r#"
        machine 1x1x4x1
        kernel v3.8
        cpu 0 busy
        cpu 1 busy queued=1
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_affine (v3.8) -> 1
                   read: this_load=0, prev_load=2048, sync=1, balanced=1
                   why:  this CPU is no busier than prev with the wakee added: wake affine
              2. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              3. select_idle_sibling (v3.8 group walk) -> CPU 2
                   read: level=MC, group=2
                   why:  first group with every CPU idle, in list order from the target's group
              CPUs probed: 0 0 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1080 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v3.8 wake_affine(): 100 * (2048 + 1024) > 108 * 1024 and this_load > load: 0, stay
// at prev; v3.8 select_idle_sibling(): target == prev but prev busy, group walk.
#[test]
fn wake_affine_v38_unbalanced() {
    check(
        r#"
        machine 1x1x4x1
        kernel v3.8
        cpu 0 busy queued=1
        cpu 1 busy
        waker task cpu=0
        wakee prev=1
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_affine (v3.8) -> 0
                   read: this_load=2048, prev_load=1024, sync=0, balanced=0
                   why:  prev is less loaded
              2. wake_affine -> prev CPU 1
                   why:  no rule moved the wakeup: stay at prev
              3. select_idle_sibling (v3.8 group walk) -> CPU 2
                   read: level=MC, group=2
                   why:  first group with every CPU idle, in list order from the target's group
              CPUs probed: 1 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1090 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v3.8 wake_affine() from an interrupt on an idle CPU: this_load = 0, balanced, pull
// to this CPU across LLCs (no cache check before 7332dec055f2); v3.8
// select_idle_sibling(): target == this and idle.
#[test]
fn wake_affine_v38_irq_pulls_across_llc() {
    check(
        r#"
        machine 1x2x2x1
        kernel v3.8
        cpu 2 busy
        waker irq cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_affine (v3.8) -> 1
                   read: this_load=0, prev_load=1024, sync=0, balanced=1
                   why:  this CPU is no busier than prev with the wakee added: wake affine
              2. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              3. select_idle_sibling (v3.8) -> CPU 0
                   read: idle_cpu(0)=1
                   why:  the target is idle
              CPUs probed: 0
              => CPU 0 (CrossLlc from prev), waker cost 560 ns
              after: p->recent_used_cpu=2
        "#]],
    );
}

// ---- wake_affine (v4.15) -----------------------------------------------------------

// v4.15 wake_affine_idle(): idle_cpu(this) (an interrupt) is enough, whatever the
// cache: the wakee is pulled across LLCs.
#[test]
fn wake_affine_idle_v415_irq_pulls_across_llc() {
    check(
        r#"
        machine 1x2x2x1
        kernel v4.15
        cpu 2,3 busy
        waker irq cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=0
                   why:  this CPU is idle (an interrupt woke the task): pull it here, whatever the cache
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 0
                   read: idle_cpu(0)=1
                   why:  the target is idle
              CPUs probed: 0
              => CPU 0 (CrossLlc from prev), waker cost 560 ns
              after: p->recent_used_cpu=2
        "#]],
    );
}

// v4.15 wake_affine_idle(): sync and nr_running(this) == 1.
#[test]
fn wake_affine_idle_v415_sync() {
    check(
        r#"
        machine 1x1x4x1
        kernel v4.15
        cpu 0,1 busy
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu: SIS_PROP -> nr=7812
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> CPU 2
                   read: nr=7812
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 0 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1110 ns
              after: this_sd->avg_scan_cost 0 -> 8
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v4.15 wake_affine_weight(): not sync; this 1024 + 512 vs prev 2048 - 512, WA_BIAS
// 100 vs 108: this_eff <= prev_eff, affine.
#[test]
fn wake_affine_weight_v415_affine() {
    check(
        r#"
        machine 1x1x4x1
        kernel v4.15
        cpu 0 busy
        cpu 1 busy queued=1
        waker task cpu=0
        wakee prev=1
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> this
                   read: this_load=1024, prev_load=2048, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=165888
                   why:  this CPU would be no busier than prev after the move
              4. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              5. select_idle_cpu: SIS_PROP -> nr=7812
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=7812
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 0 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1110 ns
              after: this_sd->avg_scan_cost 0 -> 8
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v4.15 wake_affine_weight(): the comparison is `<=` (before 082f764a2f3f, v4.17):
// equal effective loads (512 + 256 vs 1024 - 256) are affine. WA_BIAS off to make
// them equal.
// sd_init()'s imbalance_pct of the cross-LLC domain, in WA_BIAS: 125 before v5.10 (the
// bias is 112%: CPU 0 wins, 50000 < 50960), 117 from 2208cdaa56c9 (108%: 49140, prev
// wins). The same loads, two kernels, two CPUs.
#[test]
fn wake_affine_weight_pkg_imbalance_pct_v415() {
    check(
        r#"
        machine 2x1x2x1
        kernel v4.15
        cpu 0 busy task_load=400
        cpu 2 busy task_load=555
        waker task cpu=0 load=400
        wakee prev=2 load=100
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> this
                   read: this_load=400, prev_load=555, task_load=100, imbalance_pct=125, this_eff=50000, prev_eff=50960
                   why:  this CPU would be no busier than prev after the move
              4. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              5. select_idle_cpu: SIS_PROP -> nr=3906
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 1
                   read: nr=3906
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 0 1
              => CPU 1 (CrossNode from prev), IPI, leaves C1, waker cost 1050 ns
              after: this_sd->avg_scan_cost 0 -> 5
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

#[test]
fn wake_affine_weight_pkg_imbalance_pct_v513() {
    check(
        r#"
        machine 2x1x2x1
        kernel v5.13
        cpu 0 busy task_load=400
        cpu 2 busy task_load=555
        waker task cpu=0 load=400
        wakee prev=2 load=100
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=400, prev_load=555, task_load=100, imbalance_pct=117, this_eff=50000, prev_eff=49140
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=3906
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 3
                   read: nr=3906
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 2 3
              => CPU 3 (SameLlc from prev), queued on wake list, IPI, leaves C1, waker cost 1200 ns
              after: this_sd->avg_scan_cost 0 -> 37
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

#[test]
fn wake_affine_weight_v415_equal_is_affine() {
    check(
        r#"
        machine 1x1x4x1
        kernel v4.15-WA_BIAS
        cpu 0 busy task_load=512
        cpu 1 busy task_load=1024
        waker task cpu=0 load=512
        wakee prev=1 load=256
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> this
                   read: this_load=512, prev_load=1024, task_load=256, imbalance_pct=117, this_eff=768, prev_eff=768
                   why:  this CPU would be no busier than prev after the move
              4. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              5. select_idle_cpu: SIS_PROP -> nr=7812
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=7812
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 0 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1110 ns
              after: this_sd->avg_scan_cost 0 -> 8
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 wake_affine_weight(): `this_eff_load < prev_eff_load` (082f764a2f3f): the
// same equal loads stay at prev.
#[test]
fn wake_affine_weight_v515_equal_is_not_affine() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15-WA_BIAS
        cpu 0 busy load=512
        cpu 1 busy load=1024
        waker task cpu=0 load=512
        wakee prev=1 load=256
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=512, prev_load=1024, task_load=256, imbalance_pct=117, this_eff=768, prev_eff=768
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 1
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1060 ns
              after: this_sd->avg_scan_cost 0 -> 3
              after: wake_avg_idle(0) 500000 -> 499970
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 wake_affine_weight(): sync, current_load (1024) > this_load (cpu_load 500):
// return this_cpu at once. (wake_affine_idle has no opinion: two tasks on this CPU,
// prev busy.)
#[test]
fn wake_affine_weight_sync_current_load() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0 busy queued=1 load=500
        cpu 1 busy
        waker task cpu=0 load=1024
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=2
                   why:  no opinion
              3. wake_affine_weight -> this
                   read: current_load=1024, this_load=500
                   why:  sync: the waker is all of this CPU's load
              4. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              5. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1100 ns
              after: this_sd->avg_scan_cost 0 -> 7
              after: wake_avg_idle(0) 500000 -> 499940
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 wake_affine_weight(): sync subtracts current_load and adds 1 to prev_eff_load:
// this 2048 - 1024 + 512 = 1536 vs prev (2048 - 512) * 108 + 1 -> affine.
#[test]
fn wake_affine_weight_sync_subtracts_current() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0 busy queued=1
        cpu 1 busy queued=1
        waker task cpu=0 load=1024
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=2
                   why:  no opinion
              3. wake_affine_weight -> this
                   read: this_load=1024, prev_load=2048, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=165889
                   why:  this CPU would be no busier than prev after the move
              4. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              5. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1100 ns
              after: this_sd->avg_scan_cost 0 -> 7
              after: wake_avg_idle(0) 500000 -> 499940
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// ---- wake_affine (v5.13+) ----------------------------------------------------------

// v5.15 wake_affine_idle(): this idle (interrupt), cache shared, prev idle too:
// return prev (806486c377e3).
#[test]
fn wake_affine_idle_irq_prev_idle() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        waker irq cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 2
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,2)=1, idle_cpu(prev=2)=1, sync=0, nr_running(0)=0
                   why:  this CPU is idle (interrupt) and shares cache with prev, which is idle too: stay on prev
              3. wake_affine -> CPU 2
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v5.15) -> CPU 2
                   read: idle_cpu(2)=1
                   why:  the target is idle
              CPUs probed: 2
              => CPU 2 (SameCpu from prev), IPI, leaves C1, waker cost 1030 ns
              after: p->recent_used_cpu=2
        "#]],
    );
}

// v5.15 wake_affine_idle(): this idle (interrupt), cache shared, prev busy: this.
#[test]
fn wake_affine_idle_irq_prev_busy() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 2 busy
        waker irq cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,2)=1, idle_cpu(prev=2)=0, sync=0, nr_running(0)=0
                   why:  this CPU is idle (interrupt) and shares cache with prev: move here
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v5.15) -> CPU 0
                   read: idle_cpu(0)=1
                   why:  the target is idle
              CPUs probed: 0
              => CPU 0 (SameLlc from prev), waker cost 560 ns
              after: p->recent_used_cpu=2
        "#]],
    );
}

// v5.15 wake_affine_idle(): this idle but not cache-affine with prev; prev busy:
// nr_cpumask_bits, then wake_affine_weight() decides (here: prev).
#[test]
fn wake_affine_idle_irq_other_llc() {
    check(
        r#"
        machine 1x2x2x1
        kernel v5.15
        cpu 2,3 busy
        waker irq cpu=0
        wakee prev=2 load=1024
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=0
                   why:  this CPU is idle but does not share cache with prev: an interrupt does not pull across LLCs
              3. wake_affine_weight -> no opinion
                   read: this_load=0, prev_load=1024, task_load=1024, imbalance_pct=117, this_eff=102400, prev_eff=0
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> none
                   why:  no idle CPU in the LLC
              CPUs probed: 2 3 2
              => CPU 2 (SameCpu from prev), queued on wake list, IPI, waker cost 1050 ns
              after: this_sd->avg_scan_cost 0 -> 25
              after: wake_avg_idle(0) 500000 -> 499800
              after: p->recent_used_cpu=2
        "#]],
    );
}

// v5.15 wake_affine_idle(): not idle, not sync, prev idle: return prev (the rule of
// d8fcb81f1acf, v5.10).
#[test]
fn wake_affine_idle_prev_idle_rule() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0 busy
        waker task cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 2
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=1, idle_cpu(prev=2)=1, sync=0, nr_running(0)=1
                   why:  prev is idle: use it (d8fcb81f1acf)
              3. wake_affine -> CPU 2
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v5.15) -> CPU 2
                   read: idle_cpu(2)=1
                   why:  the target is idle
              CPUs probed: 2
              => CPU 2 (SameCpu from prev), IPI, leaves C1, waker cost 1030 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 wake_affine(): both rules without opinion: prev.
#[test]
fn wake_affine_no_opinion_stays_prev() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0 busy queued=1
        cpu 2 busy
        waker task cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=1, idle_cpu(prev=2)=0, sync=0, nr_running(0)=2
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=2048, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=256000, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 3
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 3
              => CPU 3 (SameLlc from prev), IPI, leaves C1, waker cost 1060 ns
              after: this_sd->avg_scan_cost 0 -> 3
              after: wake_avg_idle(0) 500000 -> 499970
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// ---- select_idle_sibling (v3.8 group walk) -----------------------------------------

// v3.8 select_idle_sibling(): target == prev and idle_cpu(prev).
#[test]
fn sis_v38_prev_idle_target() {
    check(
        r#"
        machine 1x1x4x1
        kernel v3.8
        cpu 0 busy queued=1
        waker task cpu=0
        wakee prev=2
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_affine (v3.8) -> 0
                   read: this_load=2048, prev_load=0, sync=0, balanced=0
                   why:  prev is less loaded
              2. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              3. select_idle_sibling (v3.8) -> CPU 2
                   read: idle_cpu(2)=1
                   why:  the target is idle
              CPUs probed: 2
              => CPU 2 (SameCpu from prev), IPI, leaves C1, waker cost 1030 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v3.8 select_idle_sibling() on SMT: the walk starts at the LLC level, whose groups
// are cores ({0,2} and {1,3}); the first wholly idle core from the target's gives its
// first CPU.
#[test]
fn sis_v38_group_walk_smt_core() {
    check(
        r#"
        machine 1x1x2x2
        kernel v3.8
        cpu 0,2 busy
        waker task cpu=0
        wakee prev=2
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, sync)
              1. wake_affine (v3.8) -> 1
                   read: this_load=0, prev_load=1024, sync=1, balanced=1
                   why:  this CPU is no busier than prev with the wakee added: wake affine
              2. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              3. select_idle_sibling (v3.8 group walk) -> CPU 1
                   read: level=MC, group=1
                   why:  first group with every CPU idle, in list order from the target's group
              CPUs probed: 0 0 1 3
              => CPU 1 (SameLlc from prev), IPI, leaves C1, waker cost 1080 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v3.8 select_idle_sibling(): no idle core at MC, then for_each_lower_domain() walks
// the target's SMT domain, whose groups are single CPUs: its idle sibling 2.
#[test]
fn sis_v38_group_walk_smt_level() {
    check(
        r#"
        machine 1x1x2x2
        kernel v3.8
        cpu 0,1 busy
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_affine (v3.8) -> 1
                   read: this_load=0, prev_load=1024, sync=1, balanced=1
                   why:  this CPU is no busier than prev with the wakee added: wake affine
              2. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              3. select_idle_sibling (v3.8 group walk) -> CPU 2
                   read: level=SMT, group=1
                   why:  first group with every CPU idle, in list order from the target's group
              CPUs probed: 0 0 1 0 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1077 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v3.8 select_idle_sibling(): no group with every CPU idle at any level: the target.
#[test]
fn sis_v38_group_walk_fails() {
    check(
        r#"
        machine 1x1x2x2
        kernel v3.8
        cpu 0,1,2 busy
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_affine (v3.8) -> 1
                   read: this_load=0, prev_load=1024, sync=1, balanced=1
                   why:  this CPU is no busier than prev with the wakee added: wake affine
              2. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              3. select_idle_sibling (v3.8 group walk) -> CPU 0
                   why:  no fully idle group: stay on the target
              CPUs probed: 0 0 1 0 2
              => CPU 0 (SameLlc from prev), waker cost 627 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// ---- select_idle_sibling (v4.15) ---------------------------------------------------

// v4.15 select_idle_sibling(): idle_cpu(target).
#[test]
fn sis_v415_target_idle() {
    check(
        r#"
        machine 1x1x4x2
        kernel v4.15
        waker irq cpu=0
        wakee prev=1
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=1, sync=0, nr_running(0)=0
                   why:  this CPU is idle (an interrupt woke the task): pull it here, whatever the cache
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 0
                   read: idle_cpu(0)=1
                   why:  the target is idle
              CPUs probed: 0
              => CPU 0 (SameLlc from prev), waker cost 560 ns
              after: p->recent_used_cpu=1
        "#]],
    );
}

// v4.15 select_idle_sibling(): prev != target, cache-affine and idle: prev.
#[test]
fn sis_v415_prev_idle() {
    check(
        r#"
        machine 1x1x4x2
        kernel v4.15
        cpu 0 busy
        waker task cpu=0
        wakee prev=5
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 5, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,5)=1, idle_cpu(prev=5)=1, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling -> CPU 5
                   read: idle_cpu(prev=5)=1, cpus_share_cache(5,0)=1
                   why:  prev is idle and shares the target's cache
              CPUs probed: 0 5
              => CPU 5 (SameCpu from prev), IPI, leaves C1, waker cost 1040 ns
              after: p->recent_used_cpu=5, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v4.15 select_idle_core(): has_idle_cores, first core from the target whose SMT
// threads are all idle (core {2,6}).
#[test]
fn sis_v415_select_idle_core() {
    check(
        r#"
        machine 1x1x4x2
        kernel v4.15
        cpu 0,1,5 busy
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_core -> CPU 2
                   read: has_idle_cores=1
                   why:  a whole idle core
              CPUs probed: 0 1 0 4 1 5 2 6
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1187 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v4.15 select_idle_core() finds none and clears has_idle_cores; select_idle_cpu()
// takes the first idle CPU from the target (SIS_PROP nr from avg_idle / 512).
#[test]
fn sis_v415_idle_core_fails_then_cpu() {
    check(
        r#"
        machine 1x1x4x2
        kernel v4.15
        cpu 0-3,5-6 busy
        llc 0 has_idle_cores=1
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_core -> none
                   why:  no idle core: clear has_idle_cores
              5. select_idle_cpu: SIS_PROP -> nr=15624
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=8
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 4
                   read: nr=15624
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 0 4 1 5 2 6 3 7 0 1 2 3 4
              => CPU 4 (SameLlc from prev), IPI, leaves C1, waker cost 1364 ns
              after: this_sd->avg_scan_cost 0 -> 14
              after: has_idle_cores per LLC [1] -> [0]
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v4.15 select_idle_cpu(): SIS_PROP nr = 4 (avg_idle / 512 tiny): `!--nr` stops after
// three CPUs, without updating avg_scan_cost; select_idle_smt() then finds the
// target's idle sibling 4.
#[test]
fn sis_v415_sis_prop_limit_then_smt() {
    check(
        r#"
        machine 1x1x4x2
        kernel v4.15
        cpu 0-3,5-7 busy
        cpu 0 avg_idle=0
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu: SIS_PROP -> nr=4
                   read: avg_idle=0, avg_scan_cost=0, llc_weight=8
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> none
                   read: nr=4
                   why:  scan depth exhausted
              6. select_idle_smt -> CPU 4
                   why:  an idle SMT sibling of the target
              CPUs probed: 0 1 0 1 2 4
              => CPU 4 (SameLlc from prev), IPI, leaves C1, waker cost 1127 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v4.15 select_idle_sibling(): everything busy: the target; the unlimited scan
// folds its time into avg_scan_cost.
#[test]
fn sis_v415_all_busy() {
    check(
        r#"
        machine 1x1x2x2
        kernel v4.15
        cpu 0-3 busy
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu: SIS_PROP -> nr=7812
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> none
                   why:  no idle CPU in the LLC
              CPUs probed: 0 1 0 1 2 3 2
              => CPU 0 (SameLlc from prev), waker cost 694 ns
              after: this_sd->avg_scan_cost 0 -> 10
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// ---- select_idle_sibling (v5.13+) --------------------------------------------------

// v5.15 select_idle_sibling(): `sd = per_cpu(sd_llc, target)` is NULL when the LLC is a
// single CPU (its MC domain degenerates): return target after the fast checks.
#[test]
fn sis_v515_no_llc_domain() {
    check(
        r#"
        machine 1x2x1x1
        kernel v5.15
        cpu 0,1 busy
        waker task cpu=0
        wakee prev=1
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=1
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=0, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 1
                   why:  no rule moved the wakeup: stay at prev
              CPUs probed: 1
              => CPU 1 (SameCpu from prev), queued on wake list, IPI, waker cost 850 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_sibling(): recent_used_cpu != prev, != target, cache-affine, idle:
// take it (p->recent_used_cpu = prev was set before the test, 89aafd67f28c).
#[test]
fn sis_v515_recent_used_cpu_hit() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0,1 busy
        waker task cpu=0
        wakee prev=1 recent=3
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling: recent_used_cpu -> CPU 3
                   read: p->recent_used_cpu=3, cpus_share_cache(3,0)=1, idle_cpu(3)=1
                   why:  the CPU this task used recently is idle and cache-affine
              CPUs probed: 0 1 3
              => CPU 3 (SameLlc from prev), IPI, leaves C1, waker cost 1070 ns
              after: sis_recent_hit +1, sis_recent_miss +0
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_sibling(): a recent_used_cpu in another LLC than the target is no
// candidate, but Gorman's SIS statistics as he measured seed 003 with ("[PATCH 2/9]
// sched/fair: Track efficiency of task recent_used_cpu", 26 Jul 2021) count it as a
// miss: the miss counter sits after the test of `recent != prev && recent != target`
// alone.
#[test]
fn sis_v515_recent_used_cpu_other_llc_counts_a_miss() {
    check(
        r#"
        machine 1x2x2x1
        kernel v5.15
        cpu 0,1 busy
        waker task cpu=0
        wakee prev=1 recent=3
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling: recent_used_cpu -> no
                   read: p->recent_used_cpu=3, cpus_share_cache(3,0)=0, idle_cpu(3)=1
                   why:  recently used CPU not usable
              5. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> none
                   why:  no idle CPU in the LLC
              CPUs probed: 0 1 1 0
              => CPU 0 (SameLlc from prev), waker cost 630 ns
              after: this_sd->avg_scan_cost 0 -> 5
              after: wake_avg_idle(0) 500000 -> 499960
              after: sis_recent_hit +0, sis_recent_miss +1
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_sibling(): recent_used_cpu busy: not usable, scan.
#[test]
fn sis_v515_recent_used_cpu_busy() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0,1,3 busy
        waker task cpu=0
        wakee prev=1 recent=3
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling: recent_used_cpu -> no
                   read: p->recent_used_cpu=3, cpus_share_cache(3,0)=1, idle_cpu(3)=0
                   why:  recently used CPU not usable
              5. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 3 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1130 ns
              after: this_sd->avg_scan_cost 0 -> 7
              after: wake_avg_idle(0) 500000 -> 499940
              after: sis_recent_hit +0, sis_recent_miss +1
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_sibling(): a per-CPU kthread waking a task whose prev is this CPU
// with nr_running <= 1 stacks it there (52262ee567ad).
#[test]
fn sis_v515_percpu_kthread_stacking() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0 busy
        waker task cpu=0 kthread
        wakee prev=0
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 0, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. select_idle_sibling -> CPU 0
                   read: current is a per-CPU kthread, prev == this == 0
                   why:  a kworker woke a task of its own CPU: stack it there
              CPUs probed: 0
              => CPU 0 (SameCpu from prev), waker cost 560 ns
              after: p->recent_used_cpu=0, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_sibling(): SMT, !has_idle_core, prev cache-affine:
// select_idle_smt(p, prev) finds prev's idle sibling.
#[test]
fn sis_v515_select_idle_smt_prev() {
    check(
        r#"
        machine 1x1x4x2
        kernel v5.15
        cpu 0-3,6-7 busy
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_smt(prev) -> CPU 5
                   why:  an idle SMT sibling of prev
              CPUs probed: 0 1 1 5
              => CPU 5 (SmtSibling from prev), IPI, leaves C1, waker cost 1100 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_cpu() with has_idle_core: select_idle_core() per core from the
// target, unlimited by SIS_PROP.
#[test]
fn sis_v515_idle_core() {
    check(
        r#"
        machine 1x1x4x2
        kernel v5.15
        cpu 0,1,5 busy
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_core -> CPU 2
                   read: has_idle_cores=1
                   why:  a whole idle core
              CPUs probed: 0 1 1 5 2 6
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1160 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_cpu() with has_idle_core set but no idle core: the kernel returns
// the first idle CPU that select_idle_core() passed (*idle_cpu), in core order from
// the target: core {0,4} first, so CPU 4.
// From target + 1: core {1,5} gives idle_cpu = 1 and stops at busy 5; every later
// core stops at its first busy thread; no idle core, so idle_cpu (CPU 1) is returned
// without a second scan.
#[test]
fn sis_v515_idle_core_fails_fallback() {
    check(
        r#"
        machine 1x1x4x2
        kernel v5.15
        cpu 0,2,3,5,6,7 busy
        llc 0 has_idle_cores=1
        waker task cpu=0
        wakee prev=2
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=1, idle_cpu(prev=2)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_core -> none
                   why:  no idle core: clear has_idle_cores
              5. select_idle_cpu -> CPU 1
                   read: idle_cpu=1
                   why:  no whole idle core: the first idle CPU the core scan passed
              CPUs probed: 0 2 1 5 2 3 0
              => CPU 1 (SameLlc from prev), IPI, leaves C1, waker cost 1170 ns
              after: has_idle_cores per LLC [1] -> [0]
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.13 select_idle_cpu(): SIS_PROP nr from this_rq->avg_idle / 512.
#[test]
fn sis_v513_sis_prop_avg_idle() {
    check(
        r#"
        machine 1x1x8x1
        kernel v5.13
        cpu 0-5 busy
        cpu 0 avg_idle=0
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu: SIS_PROP -> nr=4
                   read: avg_idle=0, avg_scan_cost=0, llc_weight=8
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> none
                   read: nr=4
                   why:  scan depth exhausted
              CPUs probed: 0 1 0 1 2
              => CPU 0 (SameLlc from prev), waker cost 660 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_cpu(): SIS_PROP nr from wake_avg_idle (94aafc3ee31d); the scan
// time is subtracted from wake_avg_idle.
#[test]
fn sis_v515_sis_prop_wake_avg_idle() {
    check(
        r#"
        machine 1x1x8x1
        kernel v5.15
        cpu 0-5 busy
        cpu 0 avg_idle=0 wake_avg_idle=100
        llc 0 avg_scan_cost=20
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu: SIS_PROP -> nr=38
                   read: avg_idle=100, avg_scan_cost=20, llc_weight=8
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> CPU 6
                   read: nr=38
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 1 2 3 4 5 6
              => CPU 6 (SameLlc from prev), IPI, leaves C1, waker cost 1220 ns
              after: this_sd->avg_scan_cost 20 -> 40
              after: wake_avg_idle(0) 100 -> 0
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 select_idle_cpu() SIS_PROP (94aafc3ee31d): wake_avg_idle is halved for every
// jiffy since wake_stamp: 80 >> 3 = 10 gives nr = 4 where 80 gives 30.
#[test]
fn sis_v515_sis_prop_aging() {
    let spec = r#"
        machine 1x1x8x1
        kernel v5.15
        cpu 0-5 busy
        cpu 0 wake_avg_idle=80 wake_stamp_ago=AGO
        llc 0 avg_scan_cost=20
        waker task cpu=0
        wakee prev=1
        sync
        "#;
    check(
        &spec.replace("AGO", "0"),
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu: SIS_PROP -> nr=30
                   read: avg_idle=80, avg_scan_cost=20, llc_weight=8
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> CPU 6
                   read: nr=30
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 1 2 3 4 5 6
              => CPU 6 (SameLlc from prev), IPI, leaves C1, waker cost 1220 ns
              after: this_sd->avg_scan_cost 20 -> 40
              after: wake_avg_idle(0) 80 -> 0
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
    check(
        &spec.replace("AGO", "3"),
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu: SIS_PROP -> nr=4
                   read: avg_idle=10, avg_scan_cost=20, llc_weight=8
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> none
                   read: nr=4
                   why:  scan depth exhausted
              CPUs probed: 0 1 1 2 3
              => CPU 0 (SameLlc from prev), waker cost 680 ns
              after: wake_avg_idle(0) 80 -> 10
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v6.5 select_idle_cpu(): SIS_UTIL nr = nr_idle_scan + 1; scan from target + 1.
#[test]
fn sis_v65_sis_util_limit() {
    check(
        r#"
        machine 1x1x8x1
        kernel v6.5
        cpu 0-5 busy
        llc 0 nr_idle_scan=3
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu -> none
                   read: nr=4
                   why:  scan depth exhausted
              CPUs probed: 0 1 1 2 3
              => CPU 0 (SameLlc from prev), waker cost 680 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v6.5 select_idle_cpu(): SIS_UTIL nr_idle_scan == 0: `nr == 1`, return -1, no scan.
#[test]
fn sis_v65_sis_util_no_scan() {
    check(
        r#"
        machine 1x1x8x1
        kernel v6.5
        cpu 0-5 busy
        llc 0 nr_idle_scan=0
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu (SIS_UTIL) -> none
                   read: nr_idle_scan=0
                   why:  the LLC is busy: no scan
              CPUs probed: 0 1
              => CPU 0 (SameLlc from prev), waker cost 590 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v6.5 select_idle_cpu(): SIS_UTIL's `nr == 1` return comes before the loop, also when
// has_idle_core.
// SIS_UTIL's `nr == 1` returns -1 before has_idle_core is looked at: no scan.
#[test]
fn sis_v65_sis_util_no_scan_with_idle_core() {
    check(
        r#"
        machine 1x1x4x2
        kernel v6.5
        cpu 0,1,5 busy
        llc 0 nr_idle_scan=0
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu (SIS_UTIL) -> none
                   read: nr_idle_scan=0
                   why:  the LLC is busy: no scan
              CPUs probed: 0 1
              => CPU 0 (SameLlc from prev), waker cost 590 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v6.5 select_idle_cpu(): SIS_UTIL reads sd_llc_shared of the TARGET.
// nr_idle_scan 4 in LLC 0 (this), 0 in LLC 1 (the target): no scan, CPU 4 kept; with
// SIS_PROP off neither avg_scan_cost nor wake_avg_idle is touched.
// The PKG domain's imbalance_pct is 117 since "sched/fair: Reduce minimal imbalance
// threshold" (2208cdaa56c9, v5.10).
#[test]
fn sis_v65_sis_util_reads_target_llc() {
    check(
        r#"
        machine 1x2x4x1
        kernel v6.5
        cpu 0-4 busy
        llc 0 nr_idle_scan=4
        llc 1 nr_idle_scan=0
        waker task cpu=0 flips=8
        wakee prev=4 flips=8
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 4, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=8, wakee flips=8, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,4)=0, idle_cpu(prev=4)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 4
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu (SIS_UTIL) -> none
                   read: nr_idle_scan=0
                   why:  the LLC is busy: no scan
              CPUs probed: 4
              => CPU 4 (SameCpu from prev), queued on wake list, IPI, waker cost 850 ns
              after: p->recent_used_cpu=4, waker->recent_used_cpu=0, waker->wakee_flips=8
        "#]],
    );
}

// ---- ttwu_queue_cond ---------------------------------------------------------------

// v5.15 try_to_wake_up(): p->on_cpu and ttwu_queue_cond(WF_ON_CPU) with nr_running <= 1
// on that CPU (one task queued behind the blocking wakee): queue it there, no
// select_task_rq.
#[test]
fn ttwu_on_cpu_queue_v515() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0 busy
        cpu 2 queued=1
        waker task cpu=0
        wakee prev=2 on_cpu
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. ttwu_queue_cond (p->on_cpu) -> queue to CPU 2
                   read: p->on_cpu=CPU 2, nr_running(2)=1
                   why:  the wakee is still on its CPU and that CPU has at most one task: let it finish there
              => CPU 2 (SameCpu from prev), queued on wake list, IPI, waker cost 750 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 try_to_wake_up(): p->on_cpu, same LLC, two tasks on its CPU: spin on on_cpu,
// then select_task_rq() once the switch is done. (The trace ends at the spin and names
// the on_cpu CPU; the placement that follows is not traced, the harness reports it.)
#[test]
fn ttwu_on_cpu_spin_v515() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.15
        cpu 0 busy
        cpu 2 queued=2
        waker task cpu=0
        wakee prev=2 on_cpu
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. ttwu_queue_cond (p->on_cpu) -> spin
                   read: p->on_cpu=CPU 2, nr_running(2)=2
                   why:  wait for the wakee to leave its CPU (smp_cond_load_acquire on p->on_cpu)
              => CPU 2 (SameCpu from prev), waker cost 2000 ns
              after the spin (untraced): select_task_rq put the wakee on CPU 1 at +2000 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 ttwu_queue_cond(): `!cpus_share_cache(smp_processor_id(), cpu)` returns true
// before the WF_ON_CPU test, so an on_cpu wakee in another LLC is always queued.
// `!cpus_share_cache()` comes first: queued although CPU 2 runs two tasks.
#[test]
fn ttwu_on_cpu_cross_llc_v515() {
    check(
        r#"
        machine 1x2x2x1
        kernel v5.15
        cpu 0 busy
        cpu 2 queued=2
        waker task cpu=0
        wakee prev=2 on_cpu
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. ttwu_queue_cond (p->on_cpu) -> queue to CPU 2
                   read: p->on_cpu=CPU 2, nr_running(2)=2
                   why:  the wakee's CPU does not share this cache: queue it there rather than spin
              => CPU 2 (SameCpu from prev), queued on wake list, IPI, waker cost 750 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v6.5 ttwu_queue_cond(): WF_ON_CPU is gone (f3dd3f674555): the on_cpu wakee is queued
// only when its CPU has nr_running == 0.
// One task on CPU 2: spin.
#[test]
fn ttwu_on_cpu_one_running_v65() {
    check(
        r#"
        machine 1x1x4x1
        kernel v6.5
        cpu 0 busy
        cpu 2 queued=1
        waker task cpu=0
        wakee prev=2 on_cpu
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. ttwu_queue_cond (p->on_cpu) -> spin
                   read: p->on_cpu=CPU 2, nr_running(2)=1
                   why:  wait for the wakee to leave its CPU (smp_cond_load_acquire on p->on_cpu)
              => CPU 2 (SameCpu from prev), waker cost 2000 ns
              after the spin (untraced): select_task_rq put the wakee on CPU 3 at +2000 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v4.15 try_to_wake_up(): smp_cond_load_acquire(&p->on_cpu, !VAL): always spin.
#[test]
fn ttwu_on_cpu_spin_v415() {
    check(
        r#"
        machine 1x1x4x1
        kernel v4.15
        cpu 0 busy
        waker task cpu=0
        wakee prev=2 on_cpu
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. try_to_wake_up (p->on_cpu) -> spin
                   read: p->on_cpu=CPU 2, nr_running(2)=0
                   why:  wait for the wakee to leave its CPU (smp_cond_load_acquire on p->on_cpu)
              => CPU 2 (SameCpu from prev), waker cost 2000 ns
              after the spin (untraced): select_task_rq put the wakee on CPU 2 at +2000 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// v5.15 ttwu_queue_cond(): the chosen CPU does not share the waker's cache: queue on
// its wake list and send the IPI.
#[test]
fn ttwu_queue_cross_llc() {
    check(
        r#"
        machine 1x2x2x1
        kernel v5.15
        cpu 0 busy
        cpu 2 busy
        waker task cpu=0 flips=4
        wakee prev=2 flips=4
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=4, wakee flips=4, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 3
                   read: nr=1000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 3
              => CPU 3 (SameLlc from prev), queued on wake list, IPI, leaves C1, waker cost 950 ns
              after: this_sd->avg_scan_cost 0 -> 12
              after: wake_avg_idle(0) 500000 -> 499900
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=4
        "#]],
    );
}

// v5.15 __ttwu_queue_wakelist() -> send_call_function_single_ipi(): a target polling
// in POLL (set_nr_if_polling) needs no IPI; the wakeup is queued all the same.
#[test]
fn ttwu_queue_cross_llc_polling_target() {
    check(
        r#"
        machine 1x2x2x1
        kernel v5.15
        cpu 0 busy
        cpu 2 busy
        cpu 3 idle=POLL
        waker task cpu=0 flips=4
        wakee prev=2 flips=4
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=4, wakee flips=4, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 3
                   read: nr=1000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 3
              => CPU 3 (SameLlc from prev), queued on wake list, waker cost 500 ns
              after: this_sd->avg_scan_cost 0 -> 12
              after: wake_avg_idle(0) 500000 -> 499900
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=4
        "#]],
    );
}

// v6.5 ttwu_queue_cond(): an idle CPU in the waker's LLC (nr_running == 0) is also
// queued to (f3dd3f674555, v6.0); v5.15 locks its runqueue directly.
#[test]
fn ttwu_queue_idle_same_llc_v65() {
    let spec = r#"
        machine 1x1x4x1
        kernel VERSION
        cpu 0 busy
        waker task cpu=0
        wakee prev=2
        "#;
    check(
        &spec.replace("VERSION", "v6.5"),
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 2
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=1, idle_cpu(prev=2)=1, sync=0, nr_running(0)=1
                   why:  prev is idle: use it (d8fcb81f1acf)
              3. wake_affine -> CPU 2
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v6.5) -> CPU 2
                   read: idle_cpu(2)=1
                   why:  the target is idle
              CPUs probed: 2
              => CPU 2 (SameCpu from prev), queued on wake list, IPI, leaves C1, waker cost 780 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
    check(
        &spec.replace("VERSION", "v5.15"),
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 2
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=1, idle_cpu(prev=2)=1, sync=0, nr_running(0)=1
                   why:  prev is idle: use it (d8fcb81f1acf)
              3. wake_affine -> CPU 2
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v5.15) -> CPU 2
                   read: idle_cpu(2)=1
                   why:  the target is idle
              CPUs probed: 2
              => CPU 2 (SameCpu from prev), IPI, leaves C1, waker cost 1030 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// ---- newidle_balance entry gates ----------------------------------------------------

// v3.8 idle_balance(): avg_idle < sysctl_sched_migration_cost: return.
#[test]
fn newidle_v38_avg_idle_gate() {
    check(
        r#"
        machine 1x1x4x1
        kernel v3.8
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=400000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v3.8): avg_idle=400000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[0]
              counters: context_switches=1 newidle_calls=1 newidle_gate_avg_idle=1
              => switches to idle at +870 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[0] nr_running=[2, 0, 0, 0]
        "#]],
    );
}

// v3.8 idle_balance(): no rd->overload test (v3.16) and no per-domain budget (v3.13):
// balances with rd->overload clear and pulls CPU 0's queued task.
#[test]
fn newidle_v38_no_overload_gate() {
    check(
        r#"
        machine 1x1x4x1
        kernel v3.8
        cpu 0 busy queued=1
        cpu 2 busy max_newidle_lb_cost=5000000
        rd_overload 0
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v3.8): avg_idle=1000000 rd->overload=0 ttwu_pending=0 max_newidle_lb_cost=[5000000]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 newidle_lb_mc=1 newidle_pulled=1
              => switches to cpu0.q1 at +3280 ns
              after: idle_stamp=0 max_newidle_lb_cost=[5000000] nr_running=[1, 0, 1, 0]
        "#]],
    );
}

// v4.15 idle_balance(): !rd->overload: return without balancing.
#[test]
fn newidle_v415_overload_gate() {
    check(
        r#"
        machine 1x1x4x1
        kernel v4.15
        cpu 0 busy queued=1
        cpu 2 busy
        rd_overload 0
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v4.15): avg_idle=1000000 rd->overload=0 ttwu_pending=0 max_newidle_lb_cost=[0]
              counters: context_switches=1 newidle_calls=1 newidle_gate_overload=1
              => switches to idle at +870 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[0] nr_running=[2, 0, 0, 0]
        "#]],
    );
}

// v4.15 idle_balance(): per domain, avg_idle < curr_cost + sd->max_newidle_lb_cost:
// break before the first domain.
#[test]
fn newidle_v415_domain_budget() {
    check(
        r#"
        machine 1x1x4x1
        kernel v4.15
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=600000 max_newidle_lb_cost=700000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v4.15): avg_idle=600000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[700000]
              counters: context_switches=1 newidle_calls=1 newidle_gate_cost=1
              => switches to idle at +950 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[700000] nr_running=[2, 0, 0, 0]
        "#]],
    );
}

// v5.14 newidle_balance(): both gates pass; load_balance() at MC pulls the queued
// task of CPU 0.
#[test]
fn newidle_v514_pulls() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.14
        cpu 0 busy queued=1
        cpu 2 busy
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v5.14): avg_idle=1000000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[0]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 newidle_lb_mc=1 newidle_pulled=1
              => switches to cpu0.q1 at +3500 ns
              after: idle_stamp=0 max_newidle_lb_cost=[1640] nr_running=[1, 0, 1, 0]
        "#]],
    );
}

// v5.14 newidle_balance(): the per-domain budget stops at the second level: MC of
// CPU 2 (LLC 1) has nothing to pull; PKG's max_newidle_lb_cost 999500 > avg_idle -
// curr_cost: break. With PKG's cost at 1000 the PKG balance pulls CPU 0's task.
#[test]
fn newidle_v514_budget_at_pkg() {
    let spec = r#"
        machine 1x2x2x1
        kernel v5.14
        cpu 0 busy queued=1
        cpu 2 busy max_newidle_lb_cost=1000,PKG
        newidle cpu=2
        "#;
    check(
        &spec.replace("PKG", "999500"),
        expect![[r#"
            newidle on CPU 2 (v5.14): avg_idle=1000000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[1000, 999500]
              counters: context_switches=1 newidle_calls=1 newidle_lb_mc=1
              => switches to idle at +1860 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[1000, 999500] nr_running=[2, 0, 0, 0]
        "#]],
    );
    check(
        &spec.replace("PKG", "1000"),
        expect![[r#"
            newidle on CPU 2 (v5.14): avg_idle=1000000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[1000, 1000]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_cross_llc=1 newidle_calls=1 newidle_lb_mc=1 newidle_lb_pkg=1 newidle_pulled=1
              => switches to cpu0.q1 at +4810 ns
              after: idle_stamp=0 max_newidle_lb_cost=[1000, 2200] nr_running=[1, 0, 1, 0]
        "#]],
    );
}

// v5.14 newidle_balance(): avg_idle < sysctl_sched_migration_cost (500 us): goto out.
#[test]
fn newidle_v514_avg_idle_gate() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.14
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v5.14): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[0]
              counters: context_switches=1 newidle_calls=1 newidle_gate_avg_idle=1
              => switches to idle at +870 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[0] nr_running=[2, 0, 0, 0]
        "#]],
    );
}

// v6.5 newidle_balance(): no 500 us gate any more (v5.16): avg_idle 300 us above the
// lowest domain's max_newidle_lb_cost balances and pulls.
#[test]
fn newidle_v65_no_migration_cost_gate() {
    check(
        r#"
        machine 1x1x4x1
        kernel v6.5
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=1000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[1000]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 newidle_lb_mc=1 newidle_pulled=1
              => switches to cpu0.q1 at +3500 ns
              after: idle_stamp=0 max_newidle_lb_cost=[1880] nr_running=[1, 0, 1, 0]
        "#]],
    );
}

// v6.5 newidle_balance() with the tasks three task-group levels down: t0 is taken
// before update_blocked_averages() (9d783c8dd112, v5.16), so the walk of the root,
// rt, dl and three group cfs_rqs plus their group entities (9 PELT updates of 80 ns)
// is in the first domain's measured cost: 1,880 ns without groups, 2,360 with them.
#[test]
fn newidle_v65_blocked_averages_in_first_domain_cost() {
    check(
        r#"
        machine 1x1x4x1
        kernel v6.5
        cgroup_depth 3
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=1000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[1000]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 newidle_lb_mc=1 newidle_pulled=1
              => switches to cpu0.q1 at +3980 ns
              after: idle_stamp=0 max_newidle_lb_cost=[2360] nr_running=[1, 0, 1, 0]
        "#]],
    );
}

// The same pass on a box where 20 other task groups (services) keep blocked load on
// every CPU: each is one more cfs_rq and group entity to decay (2 PELT updates of
// 80 ns), so the first domain's measured cost grows by 20 x 160 ns, and the pass
// ends later by as much.
#[test]
fn newidle_v65_other_cgroups_lengthen_the_walk() {
    check(
        r#"
        machine 1x1x4x1
        kernel v6.5
        cgroup_depth 3
        other_cgroups 20
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=1000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[1000]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 newidle_lb_mc=1 newidle_pulled=1
              => switches to cpu0.q1 at +7180 ns
              after: idle_stamp=0 max_newidle_lb_cost=[5560] nr_running=[1, 0, 1, 0]
        "#]],
    );
}

// v5.13 idle balancing: update_blocked_averages() runs after the gates but before the
// loop, whose t0 is taken per domain, so its time is spent (the switch comes later)
// but not in any domain's max_newidle_lb_cost.
#[test]
fn newidle_v513_blocked_averages_outside_domain_cost() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.13
        cgroup_depth 3
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=600000 max_newidle_lb_cost=1000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v5.13): avg_idle=600000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[1000]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 newidle_lb_mc=1 newidle_pulled=1
              => switches to cpu0.q1 at +3980 ns
              after: idle_stamp=0 max_newidle_lb_cost=[1640] nr_running=[1, 0, 1, 0]
        "#]],
    );
}

// v6.5 newidle_balance(): rd->overload set but this_rq->avg_idle <
// sd->max_newidle_lb_cost of the lowest domain: goto out.
#[test]
fn newidle_v65_cost_gate() {
    check(
        r#"
        machine 1x1x4x1
        kernel v6.5
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=400000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[400000]
              counters: context_switches=1 newidle_calls=1 newidle_gate_cost=1
              => switches to idle at +870 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[400000] nr_running=[2, 0, 0, 0]
        "#]],
    );
}

// v5.14 newidle_balance() (e5e678e4fea2): this_rq->ttwu_pending: return 0 before
// idle_stamp is set.
#[test]
fn newidle_v514_skip_pending() {
    check(
        r#"
        machine 1x1x4x1
        kernel v5.14
        cpu 0 busy queued=1
        cpu 2 busy ttwu_pending
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v5.14): avg_idle=1000000 rd->overload=1 ttwu_pending=1 max_newidle_lb_cost=[0]
              counters: context_switches=1 newidle_calls=1 newidle_skipped_pending=1
              => switches to idle at +870 ns
              after: idle_stamp=0 max_newidle_lb_cost=[0] nr_running=[2, 0, 0, 0]
        "#]],
    );
}

// v5.14 newidle_balance() (e5e678e4fea2): after a domain, `this_rq->ttwu_pending`
// stops the walk (MC found nothing, PKG is not balanced). The kernel does not count
// that as a pulled task, so idle_stamp stays set and the queued wakee's activation
// updates avg_idle.
// DIVERGES from v5.14 newidle_balance(): the model clears idle_stamp on this bail
// (`idle_stamp=0` below), so that avg_idle update is lost.
#[test]
fn newidle_v514_bail_on_pending() {
    check(
        r#"
        machine 1x2x2x1
        kernel v5.14
        cpu 0 busy queued=1
        cpu 2 busy
        newidle cpu=2 wakeup_during
        "#,
        expect![[r#"
            newidle on CPU 2 (v5.14): avg_idle=1000000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[0, 0]
              (a wakeup of `late` is queued on CPU 2's wake list during the balance)
              counters: context_switches=1 newidle_bailed_pending=1 newidle_calls=1 newidle_lb_mc=1
              => switches to idle at +1860 ns
              after: idle_stamp=0 max_newidle_lb_cost=[680, 0] nr_running=[2, 0, 0, 0]
        "#]],
    );
}

// SHARED_RUNQ v3 on v6.5: newidle_balance() pops the head of the first shard from its
// own (shard_size 2: CPUs 0-1 share shard 0, CPUs 2-3 shard 1) and pulls it.
#[test]
fn newidle_shared_runq_pop() {
    check(
        r#"
        machine 1x1x4x1
        kernel v6.5+SHARED_RUNQ
        shard_size 2
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=400000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[400000]
              shards before (! = overload): 0.0![cpu0.q1] 0.1[]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 shared_runq_pops=1 shared_runq_pulled=1
              => switches to cpu0.q1 at +2820 ns
              after: idle_stamp=0 max_newidle_lb_cost=[400000] nr_running=[1, 0, 1, 0]
              shards after: 0.0![] 0.1[]
        "#]],
    );
}

// SHARED_RUNQ (Nayak RFC patch 2 newidle_balance()): rd->overload is still checked
// first: clear, no pop at all.
#[test]
fn newidle_shared_runq_rd_overload_gate() {
    check(
        r#"
        machine 1x1x4x1
        kernel v6.5+SHARED_RUNQ
        shard_size 2
        cpu 0 busy queued=1
        cpu 2 busy
        rd_overload 0
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ): avg_idle=1000000 rd->overload=0 ttwu_pending=0 max_newidle_lb_cost=[0]
              shards before (! = overload): 0.0![cpu0.q1] 0.1[]
              counters: context_switches=1 newidle_calls=1
              => switches to idle at +870 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[0] nr_running=[2, 0, 0, 0]
              shards after: 0.0![cpu0.q1] 0.1[]
        "#]],
    );
}

// SHARED_RUNQ (Nayak RFC patch 2 newidle_balance()): the pop finds LLC 1's shards
// empty; the domain loop then starts at the lowest domain and tests
// `avg_idle < curr_cost + sd->max_newidle_lb_cost` BEFORE skipping domains up to the
// LLC, so MC's cost (400 us > avg_idle 300 us) stops it and PKG is never balanced.
#[test]
fn newidle_shared_runq_llc_budget_skipped() {
    check(
        r#"
        machine 1x2x2x1
        kernel v6.5+SHARED_RUNQ
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=400000,1000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[400000, 1000]
              shards before (! = overload): 0.0![cpu0.q1] 1.0[]
              counters: context_switches=1 newidle_calls=1 newidle_gate_cost=1
              => switches to idle at +1200 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[400000, 1000] nr_running=[2, 0, 0, 0]
              shards after: 0.0![cpu0.q1] 1.0[]
        "#]],
    );
}

// SHARED_RUNQ (Nayak RFC patch 2 newidle_balance()): after a failed pop,
// `if (this_rq->ttwu_pending) return 0;` before any load_balance(). Seed 002's entry
// skip is switched off so that the pending wakeup reaches this test; without it the
// PKG balance pulls CPU 0's task.
#[test]
fn newidle_shared_runq_pending_after_pop() {
    let spec = r#"
        machine 1x2x2x1
        kernel v6.5+SHARED_RUNQ-newidle-skip-pending
        cpu 0 busy queued=1
        cpu 2 busy PENDING
        newidle cpu=2
        "#;
    check(
        &spec.replace("PENDING", "ttwu_pending"),
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ-newidle-skip-pending): avg_idle=1000000 rd->overload=1 ttwu_pending=1 max_newidle_lb_cost=[0, 0]
              shards before (! = overload): 0.0![cpu0.q1] 1.0[]
              counters: context_switches=1 newidle_calls=1
              => switches to idle at +960 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[20, 0] nr_running=[2, 0, 0, 0]
              shards after: 0.0![cpu0.q1] 1.0[]
        "#]],
    );
    check(
        &spec.replace("PENDING", ""),
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ-newidle-skip-pending): avg_idle=1000000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[0, 0]
              shards before (! = overload): 0.0![cpu0.q1] 1.0[]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_cross_llc=1 newidle_calls=1 newidle_lb_pkg=1 newidle_pulled=1
              => switches to cpu0.q1 at +4630 ns
              after: idle_stamp=0 max_newidle_lb_cost=[20, 2820] nr_running=[1, 0, 1, 0]
              shards after: 0.0![] 1.0[]
        "#]],
    );
}

// SHARED_RUNQ with seed 004's overload flag: a shard whose flag is clear is skipped
// without taking its lock; an empty flagged shard gets its flag cleared.
#[test]
fn newidle_shared_runq_pop_overload_flag() {
    check(
        r#"
        machine 1x1x4x1
        kernel v6.5+SHARED_RUNQ+shared-runq-overload
        shard_size 2
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=400000
        llc 0 overload=1,1
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ+shared-runq-overload): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[400000]
              shards before (! = overload): 0.0![cpu0.q1] 0.1![]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 shared_runq_pops=1 shared_runq_pulled=1
              => switches to cpu0.q1 at +2820 ns
              after: idle_stamp=0 max_newidle_lb_cost=[400000] nr_running=[1, 0, 1, 0]
              shards after: 0.0![] 0.1[]
        "#]],
    );
}

// ---- one case per switch: the same scenario off and on ------------------------------

// WA_IDLE, v4.15 wake_affine(): an interrupt on idle CPU 0 wakes a task of idle CPU 1.
// On: wake_affine_idle() says this CPU. Off: wake_affine_weight() (prev load 0) says
// prev.
#[test]
fn switch_wa_idle() {
    check_switch(
        "WA_IDLE",
        r#"
        machine 1x1x4x1
        kernel v4.15
        waker irq cpu=0
        wakee prev=1
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_weight -> no opinion
                   read: this_load=0, prev_load=0, task_load=512, imbalance_pct=117, this_eff=51200, prev_eff=-55296
                   why:  prev is less loaded
              3. wake_affine -> prev CPU 1
                   why:  no rule moved the wakeup: stay at prev
              4. select_idle_sibling (v4.15) -> CPU 1
                   read: idle_cpu(1)=1
                   why:  the target is idle
              CPUs probed: 1
              => CPU 1 (SameCpu from prev), IPI, leaves C1, waker cost 1030 ns
              after: p->recent_used_cpu=1
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=1, sync=0, nr_running(0)=0
                   why:  this CPU is idle (an interrupt woke the task): pull it here, whatever the cache
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 0
                   read: idle_cpu(0)=1
                   why:  the target is idle
              CPUs probed: 0
              => CPU 0 (SameLlc from prev), waker cost 560 ns
              after: p->recent_used_cpu=1
        "#]],
    );
}

// WA_WEIGHT, v4.15 wake_affine(): no WA_IDLE opinion (not sync, this busy); the weight
// comparison moves the target to this CPU only when on.
#[test]
fn switch_wa_weight() {
    check_switch(
        "WA_WEIGHT",
        r#"
        machine 1x1x4x1
        kernel v4.15
        cpu 0 busy
        cpu 1 busy queued=1
        waker task cpu=0
        wakee prev=1
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine -> prev CPU 1
                   why:  no rule moved the wakeup: stay at prev
              4. select_idle_cpu: SIS_PROP -> nr=7812
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> CPU 2
                   read: nr=7812
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 1 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1090 ns
              after: this_sd->avg_scan_cost 0 -> 7
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> this
                   read: this_load=1024, prev_load=2048, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=165888
                   why:  this CPU would be no busier than prev after the move
              4. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              5. select_idle_cpu: SIS_PROP -> nr=7812
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=7812
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 0 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1110 ns
              after: this_sd->avg_scan_cost 0 -> 8
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// WA_BIAS, v4.15 wake_affine_weight(): this 1024 + 512 vs prev 1974 - 512: without the
// bias 1536 > 1462 (prev); with it 153600 <= 157896 (this).
#[test]
fn switch_wa_bias() {
    check_switch(
        "WA_BIAS",
        r#"
        machine 1x1x4x1
        kernel v4.15
        cpu 0 busy
        cpu 1 busy queued=1 task_load=987
        waker task cpu=0
        wakee prev=1
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1974, task_load=512, imbalance_pct=117, this_eff=1536, prev_eff=1462
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 1
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=7812
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=7812
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 1 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1090 ns
              after: this_sd->avg_scan_cost 0 -> 7
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> this
                   read: this_load=1024, prev_load=1974, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=157896
                   why:  this CPU would be no busier than prev after the move
              4. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              5. select_idle_cpu: SIS_PROP -> nr=7812
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=7812
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 0 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1110 ns
              after: this_sd->avg_scan_cost 0 -> 8
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// SIS_PROP, v5.15 select_idle_cpu(): wake_avg_idle 0 gives nr = 4, three probes, and
// the idle CPU 6 is not reached; off the scan finds it.
#[test]
fn switch_sis_prop() {
    check_switch(
        "SIS_PROP",
        r#"
        machine 1x1x8x1
        kernel v5.15
        cpu 0-5 busy
        cpu 0 wake_avg_idle=0
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu -> CPU 6
                   read: nr=unlimited
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 1 2 3 4 5 6
              => CPU 6 (SameLlc from prev), IPI, leaves C1, waker cost 1220 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu: SIS_PROP -> nr=4
                   read: avg_idle=0, avg_scan_cost=0, llc_weight=8
                   why:  scan depth proportional to expected idle time over scan cost
              5. select_idle_cpu -> none
                   read: nr=4
                   why:  scan depth exhausted
              CPUs probed: 0 1 1 2 3
              => CPU 0 (SameLlc from prev), waker cost 680 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// SIS_UTIL, v6.5 select_idle_cpu(): nr_idle_scan 1 allows one probe (CPU 2); off (and
// SIS_PROP off in v6.5) the scan is unlimited and finds CPU 6.
#[test]
fn switch_sis_util() {
    check_switch(
        "SIS_UTIL",
        r#"
        machine 1x1x8x1
        kernel v6.5
        cpu 0-5 busy
        llc 0 nr_idle_scan=1
        waker task cpu=0
        wakee prev=1
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu -> CPU 6
                   read: nr=unlimited
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 1 2 3 4 5 6
              => CPU 6 (SameLlc from prev), queued on wake list, IPI, leaves C1, waker cost 970 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=8
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_cpu -> none
                   read: nr=2
                   why:  scan depth exhausted
              CPUs probed: 0 1 1
              => CPU 0 (SameLlc from prev), waker cost 620 ns
              after: p->recent_used_cpu=1, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// TTWU_QUEUE, v5.15 ttwu_queue(): a wakeup into another LLC is queued on the target's
// wake list with an IPI when on, enqueued under the remote rq lock when off.
#[test]
fn switch_ttwu_queue() {
    check_switch(
        "TTWU_QUEUE",
        r#"
        machine 1x2x2x1
        kernel v5.15
        cpu 0,2 busy
        waker task cpu=0 flips=4
        wakee prev=2 flips=4
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=4, wakee flips=4, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 3
                   read: nr=1000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 3
              => CPU 3 (SameLlc from prev), IPI, leaves C1, waker cost 1200 ns
              after: this_sd->avg_scan_cost 0 -> 12
              after: wake_avg_idle(0) 500000 -> 499900
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=4
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=4, wakee flips=4, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> nr_cpumask_bits
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=1
                   why:  no opinion
              3. wake_affine_weight -> no opinion
                   read: this_load=1024, prev_load=1024, task_load=512, imbalance_pct=117, this_eff=153600, prev_eff=55296
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=1000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 3
                   read: nr=1000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 3
              => CPU 3 (SameLlc from prev), queued on wake list, IPI, leaves C1, waker cost 950 ns
              after: this_sd->avg_scan_cost 0 -> 12
              after: wake_avg_idle(0) 500000 -> 499900
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=4
        "#]],
    );
}

// SHARED_RUNQ, v6.5 newidle_balance(): avg_idle below the lowest domain's
// max_newidle_lb_cost stops upstream's newidle balance; the shared-runqueue pop comes
// before that gate and pulls CPU 0's queued task.
#[test]
fn switch_shared_runq() {
    check_switch(
        "SHARED_RUNQ",
        r#"
        machine 1x1x4x1
        kernel v6.5
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=400000
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5-SHARED_RUNQ): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[400000]
              counters: context_switches=1 newidle_calls=1 newidle_gate_cost=1
              => switches to idle at +870 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[400000] nr_running=[2, 0, 0, 0]
        "#]],
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[400000]
              shards before (! = overload): 0.0![cpu0.q1]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 shared_runq_pops=1 shared_runq_pulled=1
              => switches to cpu0.q1 at +2780 ns
              after: idle_stamp=0 max_newidle_lb_cost=[400000] nr_running=[1, 0, 1, 0]
              shards after: 0.0![]
        "#]],
    );
}

// sis-prev-idle (e0a79f529d5b), v3.8 select_idle_sibling(): target (this) busy, prev 3
// idle and cache-affine: on, prev; off, the group walk's first idle group (CPU 1).
#[test]
fn switch_sis_prev_idle() {
    check_switch(
        "sis-prev-idle",
        r#"
        machine 1x1x4x1
        kernel v3.8
        cpu 0,2 busy
        waker task cpu=0
        wakee prev=3
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 3, sync)
              1. wake_affine (v3.8) -> 1
                   read: this_load=0, prev_load=0, sync=1, balanced=1
                   why:  this CPU is no busier than prev with the wakee added: wake affine
              2. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              3. select_idle_sibling (v3.8 group walk) -> CPU 1
                   read: level=MC, group=1
                   why:  first group with every CPU idle, in list order from the target's group
              CPUs probed: 0 0 1
              => CPU 1 (SameLlc from prev), IPI, leaves C1, waker cost 1050 ns
              after: p->recent_used_cpu=3, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 3, sync)
              1. wake_affine (v3.8) -> 1
                   read: this_load=0, prev_load=0, sync=1, balanced=1
                   why:  this CPU is no busier than prev with the wakee added: wake affine
              2. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              3. select_idle_sibling -> CPU 3
                   read: idle_cpu(prev=3)=1, cpus_share_cache(3,0)=1
                   why:  prev is idle and shares the target's cache
              CPUs probed: 0 3
              => CPU 3 (SameCpu from prev), IPI, leaves C1, waker cost 1040 ns
              after: p->recent_used_cpu=3, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// wake-affine-noirq (7332dec055f2, v4.16), wake_affine_idle(): an interrupt on idle
// CPU 0 wakes a task of LLC 1. Off (v4.15): pulled across LLCs. On: no cache
// affinity, no pull; wake_affine_weight() keeps prev (wakee load 1024).
#[test]
fn switch_wake_affine_noirq() {
    check_switch(
        "wake-affine-noirq",
        r#"
        machine 1x2x2x1
        kernel v4.15
        cpu 2 busy
        waker irq cpu=0
        wakee prev=2 load=1024
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=0
                   why:  this CPU is idle (an interrupt woke the task): pull it here, whatever the cache
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 0
                   read: idle_cpu(0)=1
                   why:  the target is idle
              CPUs probed: 0
              => CPU 0 (CrossLlc from prev), waker cost 560 ns
              after: p->recent_used_cpu=2
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=0
                   why:  this CPU is idle but does not share cache with prev: an interrupt does not pull across LLCs
              3. wake_affine_weight -> no opinion
                   read: this_load=0, prev_load=1024, task_load=1024, imbalance_pct=125, this_eff=102400, prev_eff=0
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=3906
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 3
                   read: nr=3906
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 2 3
              => CPU 3 (SameLlc from prev), queued on wake list, IPI, leaves C1, waker cost 1050 ns
              after: this_sd->avg_scan_cost 0 -> 25
              after: p->recent_used_cpu=2
        "#]],
    );
}

// wake-affine-prev (806486c377e3, v4.16), wake_affine_idle(): an interrupt on idle
// CPU 0 wakes a task whose prev, CPU 1, shares the cache and is idle. Off (noirq
// only): the interrupt CPU. On: prev.
#[test]
fn switch_wake_affine_prev() {
    check_switch(
        "wake-affine-prev",
        r#"
        machine 1x2x2x1
        kernel v4.15+wake-affine-noirq
        cpu 2 busy
        waker irq cpu=0
        wakee prev=1 load=1024
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> true
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=1, sync=0, nr_running(0)=0
                   why:  this CPU is idle (interrupt) and shares cache with prev: move here
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 0
                   read: idle_cpu(0)=1
                   why:  the target is idle
              CPUs probed: 0
              => CPU 0 (SameLlc from prev), waker cost 560 ns
              after: p->recent_used_cpu=1
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 1, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 1
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=1, sync=0, nr_running(0)=0
                   why:  this CPU is idle (interrupt) and shares cache with prev, which is idle too: stay on prev
              3. wake_affine -> CPU 1
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 1
                   read: idle_cpu(1)=1
                   why:  the target is idle
              CPUs probed: 1
              => CPU 1 (SameCpu from prev), IPI, leaves C1, waker cost 1030 ns
              after: p->recent_used_cpu=1
        "#]],
    );
}

// Seed 000 as posted, wake_affine_idle(): a task on busy CPU 0 wakes (not sync) a task
// whose prev, CPU 2, is idle in the same LLC: "prev is idle", kept as the target.
// Without the RFC the same CPU wins through wake_affine_weight() (prev's runnable load
// is 0) and select_idle_sibling(); the RFC only names the reason.
#[test]
fn wake_affine_prev_rfc_keeps_idle_prev() {
    check(
        r#"
        machine 1x1x4x1
        kernel v4.15+wake-affine-noirq+wake-affine-prev-rfc
        cpu 0 busy load=256
        waker task cpu=0 load=256
        wakee prev=2 load=1024
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 2
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,2)=1, idle_cpu(prev=2)=1, sync=0, nr_running(0)=1
                   why:  RFC: a normal wakeup keeps prev when it is idle (and cache-affine: this is the affine domain)
              3. wake_affine -> CPU 2
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 2
                   read: idle_cpu(2)=1
                   why:  the target is idle
              CPUs probed: 2
              => CPU 2 (SameCpu from prev), IPI, leaves C1, waker cost 1030 ns
              after: p->recent_used_cpu=2, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
    );
}

// Seed 000 as posted, wake_affine_idle(): the noirq case keeps `return true` in a
// function that now returns a CPU, so an interrupt on idle CPU 0 sharing prev's
// (CPU 3's) cache makes CPU 1 the target; CPU 1 is idle, the task goes there.
#[test]
fn wake_affine_prev_rfc_return_true_is_cpu_1() {
    check(
        r#"
        machine 1x1x4x1
        kernel v4.15+wake-affine-noirq+wake-affine-prev-rfc
        cpu 3 busy
        waker irq cpu=0
        wakee prev=3
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 3, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 1
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,3)=1, idle_cpu(prev=3)=0, sync=0, nr_running(0)=0
                   why:  RFC as posted: an interrupt wakeup sharing prev's cache returns `true`, which is CPU 1
              3. wake_affine -> CPU 1
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 1
                   read: idle_cpu(1)=1
                   why:  the target is idle
              CPUs probed: 1
              => CPU 1 (SameLlc from prev), IPI, leaves C1, waker cost 1030 ns
              after: p->recent_used_cpu=3
        "#]],
    );
}

// wake-affine-prev-rfc (seed 000 as posted, RFC 2/4), wake_affine_idle(): an interrupt
// on idle CPU 0 wakes a task of LLC 1. Off (noirq): no pull across caches, prev's LLC
// is scanned. On: "prefer migration if it's an interrupt", pulled to CPU 0 again.
#[test]
fn switch_wake_affine_prev_rfc() {
    check_switch(
        "wake-affine-prev-rfc",
        r#"
        machine 1x2x2x1
        kernel v4.15+wake-affine-noirq
        cpu 2 busy
        waker irq cpu=0
        wakee prev=2 load=1024
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> false
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=0
                   why:  this CPU is idle but does not share cache with prev: an interrupt does not pull across LLCs
              3. wake_affine_weight -> no opinion
                   read: this_load=0, prev_load=1024, task_load=1024, imbalance_pct=125, this_eff=102400, prev_eff=0
                   why:  prev is less loaded
              4. wake_affine -> prev CPU 2
                   why:  no rule moved the wakeup: stay at prev
              5. select_idle_cpu: SIS_PROP -> nr=3906
                   read: avg_idle=1953, avg_scan_cost=0, llc_weight=2
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 3
                   read: nr=3906
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 2 2 3
              => CPU 3 (SameLlc from prev), queued on wake list, IPI, leaves C1, waker cost 1050 ns
              after: this_sd->avg_scan_cost 0 -> 25
              after: p->recent_used_cpu=2
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by interrupt on CPU 0 (prev CPU 2, not sync)
              1. wake_wide -> 0
                   read: current (swapper/0) flips=1, wakee flips=0, llc_size=2
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=1, cpus_share_cache(0,2)=0, idle_cpu(prev=2)=0, sync=0, nr_running(0)=0
                   why:  RFC: prefer migration for an interrupt: the data is cache hot on the CPU taking it
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling (v4.15) -> CPU 0
                   read: idle_cpu(0)=1
                   why:  the target is idle
              CPUs probed: 0
              => CPU 0 (CrossLlc from prev), waker cost 560 ns
              after: p->recent_used_cpu=2
        "#]],
    );
}

// newidle-skip-pending (e5e678e4fea2), v5.13 newidle_balance(): a wakeup is queued for
// this CPU; on, return before balancing; off, balance the domains first.
#[test]
fn switch_newidle_skip_pending() {
    check_switch(
        "newidle-skip-pending",
        r#"
        machine 1x1x4x1
        kernel v5.13
        cpu 0 busy queued=1
        cpu 2 busy ttwu_pending
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v5.13-newidle-skip-pending): avg_idle=1000000 rd->overload=1 ttwu_pending=1 max_newidle_lb_cost=[0]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 newidle_lb_mc=1 newidle_pulled=1
              => switches to cpu0.q1 at +3500 ns
              after: idle_stamp=0 max_newidle_lb_cost=[1640] nr_running=[1, 0, 1, 0]
        "#]],
        expect![[r#"
            newidle on CPU 2 (v5.13+newidle-skip-pending): avg_idle=1000000 rd->overload=1 ttwu_pending=1 max_newidle_lb_cost=[0]
              counters: context_switches=1 newidle_calls=1 newidle_skipped_pending=1
              => switches to idle at +870 ns
              after: idle_stamp=0 max_newidle_lb_cost=[0] nr_running=[2, 0, 0, 0]
        "#]],
    );
}

// recent-used-prev (89aafd67f28c), v5.14 select_idle_sibling(): recent_used_cpu 3 is
// busy. Off: p->recent_used_cpu stays 3 and select_task_rq_fair() sets the waker's
// recent_used_cpu (2) = this CPU (0). On: p->recent_used_cpu = prev, the waker's
// stays 2. The next wakeup's recent_used_cpu check reads these.
#[test]
fn switch_recent_used_prev() {
    check_switch(
        "recent-used-prev",
        r#"
        machine 1x1x4x1
        kernel v5.14
        cpu 0,1,3 busy
        waker task cpu=0 recent=2
        wakee prev=1 recent=3
        sync
        "#,
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling: recent_used_cpu -> no
                   read: p->recent_used_cpu=3, cpus_share_cache(3,0)=1, idle_cpu(3)=0
                   why:  recently used CPU not usable
              5. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 3 0 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1140 ns
              after: this_sd->avg_scan_cost 0 -> 8
              after: wake_avg_idle(0) 500000 -> 499930
              after: sis_recent_hit +0, sis_recent_miss +1
              after: p->recent_used_cpu=3, waker->recent_used_cpu=0, waker->wakee_flips=0
        "#]],
        expect![[r#"
            wakeup #0 at 1000.000 ms: wakee woken by waker on CPU 0 (prev CPU 1, sync)
              1. wake_wide -> 0
                   read: current (waker) flips=0, wakee flips=0, llc_size=4
                   why:  few partners: an affine wakeup may pull the wakee to the waker
              2. wake_affine_idle -> CPU 0
                   read: idle_cpu(this=0)=0, cpus_share_cache(0,1)=1, idle_cpu(prev=1)=0, sync=1, nr_running(0)=1
                   why:  sync wakeup and the waker is alone on this CPU: take its place
              3. wake_affine -> CPU 0
                   why:  target for select_idle_sibling
              4. select_idle_sibling: recent_used_cpu -> no
                   read: p->recent_used_cpu=3, cpus_share_cache(3,0)=1, idle_cpu(3)=0
                   why:  recently used CPU not usable
              5. select_idle_cpu: SIS_PROP -> nr=2000000
                   read: avg_idle=500000, avg_scan_cost=0, llc_weight=4
                   why:  scan depth proportional to expected idle time over scan cost
              6. select_idle_cpu -> CPU 2
                   read: nr=2000000
                   why:  first idle CPU found scanning the LLC
              CPUs probed: 0 1 3 0 1 2
              => CPU 2 (SameLlc from prev), IPI, leaves C1, waker cost 1140 ns
              after: this_sd->avg_scan_cost 0 -> 8
              after: wake_avg_idle(0) 500000 -> 499930
              after: sis_recent_hit +0, sis_recent_miss +1
              after: p->recent_used_cpu=1, waker->recent_used_cpu=2, waker->wakee_flips=0
        "#]],
    );
}

// shared-runq-overload (Nayak RFC patch 3), SHARED_RUNQ pop: CPU 0's queued task sits
// in shard 0 whose overload flag is clear. On: the pop skips it; off: pulls it.
#[test]
fn switch_shared_runq_overload() {
    check_switch(
        "shared-runq-overload",
        r#"
        machine 1x1x4x1
        kernel v6.5+SHARED_RUNQ
        shard_size 2
        cpu 0 busy queued=1
        cpu 2 busy avg_idle=300000 max_newidle_lb_cost=400000
        llc 0 overload=0,0
        newidle cpu=2
        "#,
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ-shared-runq-overload): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[400000]
              shards before (! = overload): 0.0[cpu0.q1] 0.1[]
              counters: context_switches=1 migrations=1 migrations_balance=1 migrations_llc=1 newidle_calls=1 shared_runq_pops=1 shared_runq_pulled=1
              => switches to cpu0.q1 at +2820 ns
              after: idle_stamp=0 max_newidle_lb_cost=[400000] nr_running=[1, 0, 1, 0]
              shards after: 0.0[] 0.1[]
        "#]],
        expect![[r#"
            newidle on CPU 2 (v6.5+SHARED_RUNQ+shared-runq-overload): avg_idle=300000 rd->overload=1 ttwu_pending=0 max_newidle_lb_cost=[400000]
              shards before (! = overload): 0.0[cpu0.q1] 0.1[]
              counters: context_switches=1 newidle_calls=1 newidle_gate_cost=1
              => switches to idle at +1150 ns
              after: idle_stamp=1000000000 max_newidle_lb_cost=[400000] nr_running=[2, 0, 0, 0]
              shards after: 0.0[cpu0.q1] 0.1[]
        "#]],
    );
}

// ---- the case table covers every switch ---------------------------------------------

/// Fails when a switch of `Switch::ALL` has no `check_switch` case in this file.
#[test]
fn every_switch_has_a_case() {
    let src = include_str!("scenarios.rs");
    let mut covered = Vec::new();
    let parts = src
        .split("check_switch(")
        .skip(1)
        .chain(src.split("check_cfs_switch(").skip(1))
        .chain(src.split("check_preempt_switch(").skip(1))
        .chain(src.split("check_inert_switch(").skip(1));
    for part in parts {
        let name = part.trim_start().trim_start_matches('"');
        let name = &name[..name.find('"').unwrap_or(0)];
        if let Some(sw) = Switch::parse(name) {
            covered.push(sw);
        }
    }
    let missing: Vec<&str> = Switch::ALL.iter().filter(|s| !covered.contains(s)).map(|s| s.name()).collect();
    assert!(missing.is_empty(), "switches without a scenario case: {missing:?}");
}

// ---- the fair class's pick and preemption (CFS before v6.6, EEVDF from v6.6) -------

/// Runs one single-CPU pick/preemption scenario (`schedsim::scenario::run_cfs`).
fn check_cfs(spec: &str, want: Expect) {
    let got = schedsim::scenario::run_cfs(spec).unwrap_or_else(|e| panic!("scenario: {e}\n{spec}"));
    want.assert_eq(&got);
}

/// A wakee that slept 0.3 ms of lag ahead: v6.6's place_entity() puts it at V minus
/// its lag scaled by (load + w) / load = 2 (0.6 ms), its deadline a slice later is
/// before curr's, it is eligible, so check_preempt_wakeup()'s pick_eevdf() == pse
/// preempts. v6.5 keeps its vruntime (above min_vruntime - sched_latency / 2) and
/// wakeup_preempt_entity() finds it less than wakeup_gran (1 ms) behind curr.
const LAG_WAKEE: &str = "
    kernel VERSION
    min_vruntime 1000000
    curr vruntime=1200000 deadline=1900000
    wakee vruntime=900000 vlag=300000
";

#[test]
fn eevdf_wakee_with_lag_and_earlier_deadline_preempts_v66() {
    check_cfs(
        &LAG_WAKEE.replace("VERSION", "v6.6"),
        expect![[r#"
            v6.6 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
              curr   vruntime=1200000 deadline=1900000 eligible
              pick_eevdf: curr
            enqueue wakee (vlag 300000): vruntime=600000 deadline=1350000
            check_preempt_curr: need_resched=1
            after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
              curr   vruntime=1200000 deadline=1900000 not eligible
              wakee  vruntime=600000 deadline=1350000 eligible
              pick_eevdf: wakee
        "#]],
    );
}

#[test]
fn wakeup_gran_keeps_curr_for_the_same_wakee_v65() {
    check_cfs(
        &LAG_WAKEE.replace("VERSION", "v6.5"),
        expect![[r#"
            v6.5 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000
              curr   vruntime=1200000
            enqueue wakee: vruntime=900000
            check_preempt_curr: need_resched=0
            after: min_vruntime=1000000
              curr   vruntime=1200000
              wakee  vruntime=900000
        "#]],
    );
}

/// The other way round: a wakee that slept long. v6.5 credits it half a latency period
/// below min_vruntime (3 ms), more than wakeup_gran behind curr: preempt. v6.6 places
/// it by its lag at sleep, 0 here: at V, so its deadline is a slice after V, later than
/// the one curr is working towards: pick_eevdf() keeps curr. (On a tie curr would stay
/// too: `eevdf_a_deadline_tie_keeps_curr_v66`.)
const LONG_SLEEPER: &str = "
    kernel VERSION
    min_vruntime 10000000
    curr vruntime=10000000 deadline=10500000
    wakee vruntime=2000000 vlag=0
";

#[test]
fn long_sleeper_preempts_by_sleeper_credit_v65() {
    check_cfs(
        &LONG_SLEEPER.replace("VERSION", "v6.5"),
        expect![[r#"
            v6.5 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=10000000
              curr   vruntime=10000000
            enqueue wakee: vruntime=7000000
            check_preempt_curr: need_resched=1
            after: min_vruntime=10000000
              curr   vruntime=10000000
              wakee  vruntime=7000000
        "#]],
    );
}

#[test]
fn long_sleeper_without_lag_does_not_preempt_v66() {
    check_cfs(
        &LONG_SLEEPER.replace("VERSION", "v6.6"),
        expect![[r#"
            v6.6 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=10000000 V=10000000 (avg_vruntime=0 avg_load=1024)
              curr   vruntime=10000000 deadline=10500000 eligible
              pick_eevdf: curr
            enqueue wakee (vlag 0): vruntime=10000000 deadline=10750000
            check_preempt_curr: need_resched=0
            after: min_vruntime=10000000 V=10000000 (avg_vruntime=0 avg_load=2048)
              curr   vruntime=10000000 deadline=10500000 eligible
              wakee  vruntime=10000000 deadline=10750000 eligible
              pick_eevdf: curr
        "#]],
    );
}

/// RUN_TO_PARITY (63304558ba5d, v6.6): the wakee is eligible with an earlier deadline
/// than curr, and curr is still eligible. Picked with its current deadline
/// (`protected`), curr keeps the CPU; once its stash no longer matches (it got a new
/// request since), the wakee preempts.
const PARITY: &str = "
    kernel v6.6
    min_vruntime 5000000
    curr vruntime=5000000 deadline=5100000 PROTECTED
    queued b vruntime=6000000 deadline=6750000
    wakee vruntime=4200000 vlag=800000
";

#[test]
fn eevdf_run_to_parity_keeps_an_eligible_curr_v66() {
    check_cfs(
        &PARITY.replace("PROTECTED", "protected"),
        expect![[r#"
            v6.6 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=5000000 V=5500000 (avg_vruntime=1024000000 avg_load=2048)
              curr   vruntime=5000000 deadline=5100000 eligible
              b      vruntime=6000000 deadline=6750000 not eligible
              pick_eevdf: curr
            enqueue wakee (vlag 800000): vruntime=4300000 deadline=5050000
            check_preempt_curr: need_resched=0
            after: min_vruntime=5000000 V=5100000 (avg_vruntime=307200000 avg_load=3072)
              curr   vruntime=5000000 deadline=5100000 eligible
              b      vruntime=6000000 deadline=6750000 not eligible
              wakee  vruntime=4300000 deadline=5050000 eligible
              pick_eevdf: curr
        "#]],
    );
}

#[test]
fn eevdf_without_parity_the_earlier_deadline_preempts_v66() {
    check_cfs(
        &PARITY.replace("PROTECTED", ""),
        expect![[r#"
            v6.6 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=5000000 V=5500000 (avg_vruntime=1024000000 avg_load=2048)
              curr   vruntime=5000000 deadline=5100000 eligible
              b      vruntime=6000000 deadline=6750000 not eligible
              pick_eevdf: curr
            enqueue wakee (vlag 800000): vruntime=4300000 deadline=5050000
            check_preempt_curr: need_resched=1
            after: min_vruntime=5000000 V=5100000 (avg_vruntime=307200000 avg_load=3072)
              curr   vruntime=5000000 deadline=5100000 eligible
              b      vruntime=6000000 deadline=6750000 not eligible
              wakee  vruntime=4300000 deadline=5050000 eligible
              pick_eevdf: wakee
        "#]],
    );
}

/// A tie of deadlines: v6.6's __pick_eevdf() (b01db23d5923) starts from best = curr
/// and takes a queued entity only with a strictly earlier deadline, so curr, eligible
/// and no longer protected by RUN_TO_PARITY, keeps the CPU. The wakee slept with lag
/// 0.2 ms: placed 0.3 ms (x 3/2) before V, its deadline a slice (0.75 ms) later is
/// curr's; V is then curr's vruntime, so both are eligible.
#[test]
fn eevdf_a_deadline_tie_keeps_curr_v66() {
    check_cfs(
        "
        kernel v6.6
        min_vruntime 1000000
        curr vruntime=1000000 deadline=1550000
        queued b vruntime=1200000 deadline=1950000
        wakee vlag=200000
        ",
        expect![[r#"
            v6.6 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1100000 (avg_vruntime=204800000 avg_load=2048)
              curr   vruntime=1000000 deadline=1550000 eligible
              b      vruntime=1200000 deadline=1950000 not eligible
              pick_eevdf: curr
            enqueue wakee (vlag 200000): vruntime=800000 deadline=1550000
            check_preempt_curr: need_resched=0
            after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=3072)
              curr   vruntime=1000000 deadline=1550000 eligible
              b      vruntime=1200000 deadline=1950000 not eligible
              wakee  vruntime=800000 deadline=1550000 eligible
              pick_eevdf: curr
        "#]],
    );
}

/// curr ran alone past its deadline when the wakeup comes. enqueue_entity()'s
/// update_curr() runs before the wakee counts (nr_running 1), so update_deadline()
/// gives curr its next request without a reschedule, and check_preempt_wakeup()'s own
/// update_curr() has nothing left to charge: the pick decides, and the wakee, placed
/// after V by its negative lag, is not eligible. curr keeps the CPU.
#[test]
fn eevdf_slice_used_alone_renews_quietly_at_enqueue_v66() {
    check_cfs(
        "
        kernel v6.6
        min_vruntime 1000000
        curr vruntime=1000000 deadline=1500000 ran=600000
        wakee vlag=-100000
        ",
        expect![[r#"
            v6.6 on one CPU, curr ran 600000 ns not yet charged
            before: min_vruntime=1000000 V=1600000 (avg_vruntime=614400000 avg_load=1024)
              curr   vruntime=1600000 deadline=1500000 eligible
              pick_eevdf: curr
            enqueue wakee (vlag -100000): vruntime=1800000 deadline=2550000
            check_preempt_curr: need_resched=0
            after: min_vruntime=1600000 V=1700000 (avg_vruntime=204800000 avg_load=2048)
              curr   vruntime=1600000 deadline=2350000 eligible
              wakee  vruntime=1800000 deadline=2550000 not eligible
              pick_eevdf: curr
        "#]],
    );
}

/// v6.8's deadline-sorted tree (2227a957e1d5): curr replaces the leftmost eligible
/// entity only with a strictly earlier deadline, so the tie that kept curr in v6.6
/// (`eevdf_a_deadline_tie_keeps_curr_v66`) goes to the wakee from v6.8 on.
#[test]
fn eevdf_a_deadline_tie_goes_to_the_wakee_v612() {
    check_cfs(
        "
        kernel v6.12
        min_vruntime 1000000
        curr vruntime=1000000 deadline=1550000
        queued b vruntime=1200000 deadline=1950000
        wakee vlag=200000
        ",
        expect![[r#"
            v6.12 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1100000 (avg_vruntime=204800000 avg_load=2048)
              curr   vruntime=1000000 deadline=1550000 eligible
              b      vruntime=1200000 deadline=1950000 not eligible
              pick_eevdf: curr
            enqueue wakee (vlag 200000): vruntime=800000 deadline=1550000
            check_preempt_curr: need_resched=1
            after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=3072)
              curr   vruntime=1000000 deadline=1550000 eligible
              b      vruntime=1200000 deadline=1950000 not eligible
              wakee  vruntime=800000 deadline=1550000 eligible
              pick_eevdf: wakee
        "#]],
    );
}

/// v6.15's base slice (2ae891b82695): 0.70 ms, so v6.18 places the lagging wakee of
/// `eevdf_wakee_with_lag_and_earlier_deadline_preempts_v66` with its deadline 0.70 ms
/// after its vruntime (one CPU: no 1 + ilog2(ncpus) factor).
#[test]
fn eevdf_base_slice_is_0_70_ms_v618() {
    check_cfs(
        &LAG_WAKEE.replace("VERSION", "v6.18"),
        expect![[r#"
            v6.18 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
              curr   vruntime=1200000 deadline=1900000 eligible
              pick_eevdf: curr
            enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
            check_preempt_curr: need_resched=1
            after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
              curr   vruntime=1200000 deadline=1900000 not eligible
              wakee  vruntime=600000 deadline=1300000 eligible
              pick_eevdf: wakee
        "#]],
    );
}

/// DELAY_DEQUEUE (v6.12, 152e11f6df29): curr goes to sleep 0.15 ms past V (not
/// eligible), so it stays queued as sched_delayed, its vruntime still in V; the pick
/// is b. v6.6 dequeues it with its lag.
const INELIGIBLE_SLEEPER: &str = "
    kernel VERSION
    min_vruntime 1000000
    curr vruntime=1300000 deadline=2050000
    queued b vruntime=1000000 deadline=1750000
    block
";

#[test]
fn eevdf_an_ineligible_sleeper_is_delayed_v612() {
    check_cfs(
        &INELIGIBLE_SLEEPER.replace("VERSION", "v6.12"),
        expect![[r#"
            v6.12 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1150000 (avg_vruntime=307200000 avg_load=2048)
              curr   vruntime=1300000 deadline=2050000 not eligible
              b      vruntime=1000000 deadline=1750000 eligible
              pick_eevdf: b
            curr sleeps: delayed (not eligible), stays queued
            pick_next_entity: b
            after: min_vruntime=1000000 V=1150000 (avg_vruntime=307200000 avg_load=2048)
              curr   vruntime=1300000 deadline=2050000 not eligible delayed
              b      vruntime=1000000 deadline=1750000 eligible
              pick_eevdf: b
        "#]],
    );
}

#[test]
fn eevdf_an_ineligible_sleeper_is_dequeued_with_its_lag_v66() {
    check_cfs(
        &INELIGIBLE_SLEEPER.replace("VERSION", "v6.6"),
        expect![[r#"
            v6.6 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1150000 (avg_vruntime=307200000 avg_load=2048)
              curr   vruntime=1300000 deadline=2050000 not eligible
              b      vruntime=1000000 deadline=1750000 eligible
              pick_eevdf: b
            curr sleeps: dequeued, vlag=-150000
            pick_next_entity: b
            after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=1024)
              curr   vruntime=1300000 deadline=2050000 not eligible
              b      vruntime=1000000 deadline=1750000 eligible
              pick_eevdf: b
        "#]],
    );
}

/// pick_next_entity() (v6.12) picks the delayed d (eligible, earliest deadline once
/// curr has gone to sleep): its dequeue is finished, its lag (positive by then) is
/// clipped to 0 by DELAY_ZERO, and the CPU picks again: b.
#[test]
fn eevdf_picking_a_delayed_task_dequeues_it_with_zero_lag_v612() {
    check_cfs(
        "
        kernel v6.12
        min_vruntime 1000000
        curr vruntime=1000000 deadline=1750000
        queued b vruntime=1200000 deadline=1950000
        queued d vruntime=1100000 deadline=1800000 delayed
        block
        ",
        expect![[r#"
            v6.12 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1100000 (avg_vruntime=307200000 avg_load=3072)
              curr   vruntime=1000000 deadline=1750000 eligible
              b      vruntime=1200000 deadline=1950000 not eligible
              d      vruntime=1100000 deadline=1800000 eligible delayed
              pick_eevdf: curr
            curr sleeps: dequeued, vlag=100000
            picked delayed d: dequeued, vlag=0
            pick_next_entity: b
            after: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
              curr   vruntime=1000000 deadline=1750000 eligible
              b      vruntime=1200000 deadline=1950000 eligible
              pick_eevdf: b
        "#]],
    );
}

/// The last runnable task goes to sleep behind a delayed one: curr is not eligible,
/// so it is delayed too; the pick takes d (eligible), finishes its dequeue, then takes
/// curr itself, a delayed entity still on the runqueue (the kernel's cfs_rq->curr with
/// on_rq set), and finishes that: nothing is left, the CPU goes idle.
#[test]
fn eevdf_the_last_sleeper_behind_a_delayed_task_leaves_nothing_queued_v612() {
    check_cfs(
        "
        kernel v6.12
        min_vruntime 1000000
        curr vruntime=1300000 deadline=2050000
        queued d vruntime=1000000 deadline=1750000 delayed
        block
        ",
        expect![[r#"
            v6.12 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1150000 (avg_vruntime=307200000 avg_load=2048)
              curr   vruntime=1300000 deadline=2050000 not eligible
              d      vruntime=1000000 deadline=1750000 eligible delayed
              pick_eevdf: d
            curr sleeps: delayed (not eligible), stays queued
            picked delayed d: dequeued, vlag=0
            picked delayed curr: dequeued, vlag=0
            pick_next_entity: none
            after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=0)
              curr   vruntime=1300000 deadline=2050000 eligible
              pick_eevdf: none
        "#]],
    );
}

/// ttwu_runnable() of a delayed task (v6.12): requeue_delayed_entity() with DELAY_ZERO.
/// d has burnt off its negative lag (V is past its vruntime): placed again at V
/// without it (curr's vruntime) with lag 0 and a new deadline a slice on; curr is
/// protected by RUN_TO_PARITY, no preemption.
#[test]
fn eevdf_waking_a_delayed_task_that_caught_up_places_it_at_v_v612() {
    check_cfs(
        "
        kernel v6.12
        min_vruntime 900000
        curr vruntime=1000000 deadline=1500000 protected
        queued d vruntime=900000 deadline=1600000 delayed
        wake d
        ",
        expect![[r#"
            v6.12 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=900000 V=950000 (avg_vruntime=102400000 avg_load=2048)
              curr   vruntime=1000000 deadline=1500000 not eligible
              d      vruntime=900000 deadline=1600000 eligible delayed
              pick_eevdf: d
            ttwu_runnable d (vlag 0): vruntime=1000000 deadline=1750000
            check_preempt_curr: need_resched=0
            after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=2048)
              curr   vruntime=1000000 deadline=1500000 eligible
              d      vruntime=1000000 deadline=1750000 eligible
              pick_eevdf: curr
        "#]],
    );
}

/// The same wakeup of a delayed task still behind V: it keeps its vruntime and
/// deadline, is not eligible, and curr (not protected) stays.
#[test]
fn eevdf_waking_a_delayed_task_still_behind_keeps_its_place_v612() {
    check_cfs(
        "
        kernel v6.12
        min_vruntime 1000000
        curr vruntime=1000000 deadline=1500000
        queued d vruntime=1200000 deadline=1950000 delayed
        wake d
        ",
        expect![[r#"
            v6.12 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1100000 (avg_vruntime=204800000 avg_load=2048)
              curr   vruntime=1000000 deadline=1500000 eligible
              d      vruntime=1200000 deadline=1950000 not eligible delayed
              pick_eevdf: curr
            ttwu_runnable d (vlag -100000): vruntime=1200000 deadline=1950000
            check_preempt_curr: need_resched=0
            after: min_vruntime=1000000 V=1100000 (avg_vruntime=204800000 avg_load=2048)
              curr   vruntime=1000000 deadline=1500000 eligible
              d      vruntime=1200000 deadline=1950000 not eligible
              pick_eevdf: curr
        "#]],
    );
}

/// update_deadline() (v6.6): at the tick curr has run past its deadline, so it gets a
/// new request a slice later and the CPU reschedules (two others are runnable).
/// pick_eevdf() then skips b, whose deadline is the earliest but whose vruntime is
/// above V (not eligible), for c. v6.5's check_preempt_tick() gives curr
/// sched_latency / nr_running = 2 ms, of which it has used 0.8 ms: no reschedule.
const SLICE_USED: &str = "
    kernel VERSION
    min_vruntime 1000000
    curr vruntime=1000000 deadline=1750000 ran=800000
    queued b vruntime=2000000 deadline=2100000
    queued c vruntime=1100000 deadline=2400000
    tick
";

#[test]
fn eevdf_slice_used_reschedules_and_skips_an_ineligible_earlier_deadline_v66() {
    check_cfs(
        &SLICE_USED.replace("VERSION", "v6.6"),
        expect![[r#"
            v6.6 on one CPU, curr ran 800000 ns not yet charged
            before: min_vruntime=1000000 V=1633333 (avg_vruntime=1945600000 avg_load=3072)
              curr   vruntime=1800000 deadline=1750000 not eligible
              b      vruntime=2000000 deadline=2100000 not eligible
              c      vruntime=1100000 deadline=2400000 eligible
              pick_eevdf: c
            tick: need_resched=1
            after: min_vruntime=1100000 V=1633333 (avg_vruntime=1638400000 avg_load=3072)
              curr   vruntime=1800000 deadline=2550000 not eligible
              b      vruntime=2000000 deadline=2100000 not eligible
              c      vruntime=1100000 deadline=2400000 eligible
              pick_eevdf: c
        "#]],
    );
}

#[test]
fn check_preempt_tick_within_the_ideal_slice_v65() {
    check_cfs(
        &SLICE_USED.replace("VERSION", "v6.5"),
        expect![[r#"
            v6.5 on one CPU, curr ran 800000 ns not yet charged
            before: min_vruntime=1000000
              curr   vruntime=1000000
              b      vruntime=2000000
              c      vruntime=1100000
            tick: need_resched=0
            after: min_vruntime=1100000
              curr   vruntime=1800000
              b      vruntime=2000000
              c      vruntime=1100000
        "#]],
    );
}

/// v6.6 place_entity() for a new task (ENQUEUE_INITIAL, PLACE_DEADLINE_INITIAL): no
/// lag, at V, with half a slice to its deadline; and a sleeper with negative lag goes
/// after V by its lag scaled by (load + w) / load = 3 / 2.
#[test]
fn eevdf_place_entity_fork_half_slice_and_negative_lag_v66() {
    let base = "
        kernel v6.6
        min_vruntime 1000000
        curr vruntime=1000000 deadline=1750000 protected
        queued b vruntime=1300000 deadline=2050000
    ";
    check_cfs(
        &format!("{base}\nwakee new\n"),
        expect![[r#"
            v6.6 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1150000 (avg_vruntime=307200000 avg_load=2048)
              curr   vruntime=1000000 deadline=1750000 eligible
              b      vruntime=1300000 deadline=2050000 not eligible
              pick_eevdf: curr
            enqueue wakee (vlag 0, new): vruntime=1150000 deadline=1525000
            check_preempt_curr: need_resched=0
            after: min_vruntime=1000000 V=1150000 (avg_vruntime=460800000 avg_load=3072)
              curr   vruntime=1000000 deadline=1750000 eligible
              b      vruntime=1300000 deadline=2050000 not eligible
              wakee  vruntime=1150000 deadline=1525000 eligible
              pick_eevdf: curr
        "#]],
    );
    check_cfs(
        &format!("{base}\nwakee vlag=-200000\n"),
        expect![[r#"
            v6.6 on one CPU, curr ran 0 ns not yet charged
            before: min_vruntime=1000000 V=1150000 (avg_vruntime=307200000 avg_load=2048)
              curr   vruntime=1000000 deadline=1750000 eligible
              b      vruntime=1300000 deadline=2050000 not eligible
              pick_eevdf: curr
            enqueue wakee (vlag -200000): vruntime=1450000 deadline=2200000
            check_preempt_curr: need_resched=0
            after: min_vruntime=1000000 V=1250000 (avg_vruntime=768000000 avg_load=3072)
              curr   vruntime=1000000 deadline=1750000 eligible
              b      vruntime=1300000 deadline=2050000 not eligible
              wakee  vruntime=1450000 deadline=2200000 not eligible
              pick_eevdf: curr
        "#]],
    );
}

// ---- preemption models and today's sched features as switches ---------------------

/// `spec`'s kernel line with `extra` appended (`+SWITCH`).
fn with_switch(spec: &str, extra: &str) -> String {
    spec.lines()
        .map(|l| {
            if l.trim_start().starts_with("kernel ") {
                format!("{}{extra}\n", l.trim_end())
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// A CFS scenario without and with `+SWITCH` (`-SWITCH` for one on by default).
fn check_cfs_switch(switch: &str, spec: &str, off: Expect, on: Expect) {
    let (got_off, got_on) = run_off_on(schedsim::scenario::run_cfs, switch, spec);
    off.assert_eq(&got_off);
    on.assert_eq(&got_on);
    assert_ne!(got_off, got_on, "switch {switch} changes nothing in this scenario");
}

/// A CFS scenario under the default model (`full`; for `preempt-full` itself,
/// `none`) and under `+SWITCH`.
fn check_preempt_switch(switch: &str, spec: &str, base: Expect, with: Expect) {
    let sw = Switch::parse(switch).unwrap_or_else(|| panic!("unknown switch {switch}"));
    let a = if sw == Switch::PreemptFull { with_switch(spec, "+preempt-none") } else { spec.to_string() };
    let b = with_switch(spec, &format!("+{}", sw.name()));
    let got_a = schedsim::scenario::run_cfs(&a).unwrap_or_else(|e| panic!("scenario: {e}\n{a}"));
    let got_b = schedsim::scenario::run_cfs(&b).unwrap_or_else(|e| panic!("scenario: {e}\n{b}"));
    base.assert_eq(&got_a);
    with.assert_eq(&got_b);
    assert_ne!(got_a, got_b, "switch {switch} changes nothing in this scenario");
}

/// A switch the model has no code for changes nothing (and says so in `presets`).
fn check_inert_switch(switch: &str, spec: &str) {
    let sw = Switch::parse(switch).unwrap_or_else(|| panic!("unknown switch {switch}"));
    assert!(sw.inert() && sw.explain().contains("no effect here"), "{switch} is not marked inert");
    let (got_off, got_on) = run_off_on(schedsim::scenario::run_cfs, switch, spec);
    assert_eq!(got_off, got_on, "inert switch {switch} changed the scenario");
}

/// A waker in its own system call has just woken a task that wins the wakeup
/// preemption test (LAG_WAKEE's, on v6.18). `full` preempts it there
/// (`preempt_enable()` after the wakeup's locks); `none` and `voluntary` let it finish
/// its system call (no `cond_resched()` point after a pipe's or socket's wakeup,
/// `pipe_write()`, `unix_stream_sendmsg()`) and preempt at its return to user mode;
/// `lazy` asks lazily (`resched_curr_lazy()`), and the next tick (`sched_tick()`)
/// makes it a full reschedule, taken in the kernel.
const WAKER_IN_SYSCALL: &str = "
    kernel v6.18
    min_vruntime 1000000
    curr vruntime=1200000 deadline=1900000 syscall
    wakee vruntime=900000 vlag=300000
    then_tick
";

#[test]
fn preempt_none_defers_to_the_return_to_user_mode() {
    check_preempt_switch(
        "preempt-none",
        WAKER_IN_SYSCALL,
        expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1
        after the wakeup (full model, curr in syscall): curr is preempted there
        after the next tick (full model, curr in syscall): curr is preempted there
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]],
        expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1
        after the wakeup (none model, curr in syscall): curr runs on; the reschedule waits for its block or its return to user mode
        after the next tick (none model, curr in syscall): curr runs on; the reschedule waits for its block or its return to user mode
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]],
    );
}

#[test]
fn preempt_voluntary_defers_too_without_a_might_resched_point() {
    check_preempt_switch(
        "preempt-voluntary",
        WAKER_IN_SYSCALL,
        expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1
        after the wakeup (full model, curr in syscall): curr is preempted there
        after the next tick (full model, curr in syscall): curr is preempted there
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]],
        expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1
        after the wakeup (voluntary model, curr in syscall): curr runs on; the reschedule waits for its block or its return to user mode
        after the next tick (voluntary model, curr in syscall): curr runs on; the reschedule waits for its block or its return to user mode
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]],
    );
}

#[test]
fn preempt_full_preempts_in_the_kernel() {
    check_preempt_switch(
        "preempt-full",
        WAKER_IN_SYSCALL,
        expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1
        after the wakeup (none model, curr in syscall): curr runs on; the reschedule waits for its block or its return to user mode
        after the next tick (none model, curr in syscall): curr runs on; the reschedule waits for its block or its return to user mode
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]],
        expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1
        after the wakeup (full model, curr in syscall): curr is preempted there
        after the next tick (full model, curr in syscall): curr is preempted there
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]],
    );
}

#[test]
fn preempt_lazy_waits_for_the_tick_in_the_kernel() {
    check_preempt_switch(
        "preempt-lazy",
        WAKER_IN_SYSCALL,
        expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1
        after the wakeup (full model, curr in syscall): curr is preempted there
        after the next tick (full model, curr in syscall): curr is preempted there
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]],
        expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1 (lazy)
        after the wakeup (lazy model, curr in syscall): curr runs on; the reschedule waits for its block or its return to user mode
        after the next tick (lazy model, curr in syscall): curr is preempted there
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]],
    );
}

/// A kernel thread never returns to user mode: under `none` its wakee waits until it
/// blocks; interrupted user code (no `syscall`, no `kthread`) returns to user mode at
/// the interrupt's exit and is preempted under every model.
#[test]
fn preempt_none_never_preempts_a_kernel_thread_in_the_kernel() {
    let spec = WAKER_IN_SYSCALL.replace("syscall", "kthread").replace("    then_tick\n", "");
    let with_none = with_switch(&spec, "+preempt-none");
    expect![[r#"
        v6.18 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1300000
        check_preempt_curr: need_resched=1
        after the wakeup (none model, curr in kthread): curr runs on; the reschedule waits for its block or its return to user mode
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1300000 eligible
          pick_eevdf: wakee
    "#]].assert_eq(&schedsim::scenario::run_cfs(&with_none).unwrap());
}

/// WAKEUP_PREEMPTION off: the wakee that would preempt (LAG_WAKEE on v6.6) waits.
#[test]
fn wakeup_preemption_switch() {
    check_cfs_switch(
        "WAKEUP_PREEMPTION",
        &LAG_WAKEE.replace("VERSION", "v6.6"),
        expect![[r#"
        v6.6 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1350000
        check_preempt_curr: need_resched=0
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1350000 eligible
          pick_eevdf: wakee
    "#]],
        expect![[r#"
        v6.6 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1350000
        check_preempt_curr: need_resched=1
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1350000 eligible
          pick_eevdf: wakee
    "#]],
    );
}

/// PLACE_LAG off: the wakee is placed at V, its deadline a slice later is after
/// curr's: no preemption; on, LAG_WAKEE's 0.6 ms ahead of V.
#[test]
fn place_lag_switch() {
    check_cfs_switch(
        "PLACE_LAG",
        &LAG_WAKEE.replace("VERSION", "v6.6"),
        expect![[r#"
        v6.6 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=1200000 deadline=1950000
        check_preempt_curr: need_resched=0
        after: min_vruntime=1200000 V=1200000 (avg_vruntime=0 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 eligible
          wakee  vruntime=1200000 deadline=1950000 eligible
          pick_eevdf: curr
    "#]],
        expect![[r#"
        v6.6 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1200000 (avg_vruntime=204800000 avg_load=1024)
          curr   vruntime=1200000 deadline=1900000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 300000): vruntime=600000 deadline=1350000
        check_preempt_curr: need_resched=1
        after: min_vruntime=1000000 V=900000 (avg_vruntime=-204800000 avg_load=2048)
          curr   vruntime=1200000 deadline=1900000 not eligible
          wakee  vruntime=600000 deadline=1350000 eligible
          pick_eevdf: wakee
    "#]],
    );
}

/// PLACE_DEADLINE_INITIAL: a new task's first request is half a slice (ENQUEUE_INITIAL).
#[test]
fn place_deadline_initial_switch() {
    let spec = "
        kernel v6.6
        min_vruntime 1000000
        curr vruntime=1000000 deadline=1500000
        wakee vruntime=1000000 new
    ";
    check_cfs_switch(
        "PLACE_DEADLINE_INITIAL",
        spec,
        expect![[r#"
        v6.6 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=1024)
          curr   vruntime=1000000 deadline=1500000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 0, new): vruntime=1000000 deadline=1750000
        check_preempt_curr: need_resched=0
        after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=2048)
          curr   vruntime=1000000 deadline=1500000 eligible
          wakee  vruntime=1000000 deadline=1750000 eligible
          pick_eevdf: curr
    "#]],
        expect![[r#"
        v6.6 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=1024)
          curr   vruntime=1000000 deadline=1500000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 0, new): vruntime=1000000 deadline=1375000
        check_preempt_curr: need_resched=1
        after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=2048)
          curr   vruntime=1000000 deadline=1500000 eligible
          wakee  vruntime=1000000 deadline=1375000 eligible
          pick_eevdf: wakee
    "#]],
    );
}

/// RUN_TO_PARITY: curr, eligible and protected (picked with this deadline), keeps the
/// CPU although the wakee's deadline is earlier; without it the earlier deadline wins.
#[test]
fn run_to_parity_switch() {
    let spec = "
        kernel v6.6
        min_vruntime 1000000
        curr vruntime=1000000 deadline=3000000 protected
        wakee vruntime=1000000 vlag=0
    ";
    check_cfs_switch(
        "RUN_TO_PARITY",
        spec,
        expect![[r#"
        v6.6 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=1024)
          curr   vruntime=1000000 deadline=3000000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 0): vruntime=1000000 deadline=1750000
        check_preempt_curr: need_resched=1
        after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=2048)
          curr   vruntime=1000000 deadline=3000000 eligible
          wakee  vruntime=1000000 deadline=1750000 eligible
          pick_eevdf: wakee
    "#]],
        expect![[r#"
        v6.6 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=1024)
          curr   vruntime=1000000 deadline=3000000 eligible
          pick_eevdf: curr
        enqueue wakee (vlag 0): vruntime=1000000 deadline=1750000
        check_preempt_curr: need_resched=0
        after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=2048)
          curr   vruntime=1000000 deadline=3000000 eligible
          wakee  vruntime=1000000 deadline=1750000 eligible
          pick_eevdf: curr
    "#]],
    );
}

/// DELAY_DEQUEUE: curr, not eligible, goes to sleep: it stays queued (sched_delayed)
/// to burn off its negative lag; without the feature it leaves at once.
#[test]
fn delay_dequeue_switch() {
    let spec = "
        kernel v6.12
        min_vruntime 1000000
        curr vruntime=1600000 deadline=2000000
        queued b vruntime=1000000 deadline=1750000
        block
    ";
    check_cfs_switch(
        "DELAY_DEQUEUE",
        spec,
        expect![[r#"
        v6.12 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1300000 (avg_vruntime=614400000 avg_load=2048)
          curr   vruntime=1600000 deadline=2000000 not eligible
          b      vruntime=1000000 deadline=1750000 eligible
          pick_eevdf: b
        curr sleeps: dequeued, vlag=-300000
        pick_next_entity: b
        after: min_vruntime=1000000 V=1000000 (avg_vruntime=0 avg_load=1024)
          curr   vruntime=1600000 deadline=2000000 not eligible
          b      vruntime=1000000 deadline=1750000 eligible
          pick_eevdf: b
    "#]],
        expect![[r#"
        v6.12 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1300000 (avg_vruntime=614400000 avg_load=2048)
          curr   vruntime=1600000 deadline=2000000 not eligible
          b      vruntime=1000000 deadline=1750000 eligible
          pick_eevdf: b
        curr sleeps: delayed (not eligible), stays queued
        pick_next_entity: b
        after: min_vruntime=1000000 V=1300000 (avg_vruntime=614400000 avg_load=2048)
          curr   vruntime=1600000 deadline=2000000 not eligible delayed
          b      vruntime=1000000 deadline=1750000 eligible
          pick_eevdf: b
    "#]],
    );
}

/// DELAY_ZERO: a delayed task woken with positive lag is placed again at V with zero
/// lag; without it it keeps its vruntime and deadline.
#[test]
fn delay_zero_switch() {
    let spec = "
        kernel v6.12
        min_vruntime 1000000
        curr vruntime=2000000 deadline=2500000
        queued d vruntime=1000000 deadline=1200000 delayed
        wake d
    ";
    check_cfs_switch(
        "DELAY_ZERO",
        spec,
        expect![[r#"
        v6.12 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1500000 (avg_vruntime=1024000000 avg_load=2048)
          curr   vruntime=2000000 deadline=2500000 not eligible
          d      vruntime=1000000 deadline=1200000 eligible delayed
          pick_eevdf: d
        ttwu_runnable d (vlag 0): vruntime=1000000 deadline=1200000
        check_preempt_curr: need_resched=1
        after: min_vruntime=1000000 V=1500000 (avg_vruntime=1024000000 avg_load=2048)
          curr   vruntime=2000000 deadline=2500000 not eligible
          d      vruntime=1000000 deadline=1200000 eligible
          pick_eevdf: d
    "#]],
        expect![[r#"
        v6.12 on one CPU, curr ran 0 ns not yet charged
        before: min_vruntime=1000000 V=1500000 (avg_vruntime=1024000000 avg_load=2048)
          curr   vruntime=2000000 deadline=2500000 not eligible
          d      vruntime=1000000 deadline=1200000 eligible delayed
          pick_eevdf: d
        ttwu_runnable d (vlag 0): vruntime=2000000 deadline=2750000
        check_preempt_curr: need_resched=0
        after: min_vruntime=2000000 V=2000000 (avg_vruntime=0 avg_load=2048)
          curr   vruntime=2000000 deadline=2500000 eligible
          d      vruntime=2000000 deadline=2750000 eligible
          pick_eevdf: curr
    "#]],
    );
}

#[test]
fn inert_switches_change_nothing() {
    let spec = LAG_WAKEE.replace("VERSION", "v6.12");
    check_inert_switch("PREEMPT_SHORT", &spec);
    check_inert_switch("NEXT_BUDDY", &spec);
    check_inert_switch("PLACE_REL_DEADLINE", &spec);
}
