//! The classroom: one guided experiment per seed patch, each a built-in preset of the
//! library with what the patch changes and what to look for.

use schedsim::Switch;

/// A guided experiment.
pub struct Guide {
    /// The library preset it runs (`schedsim::presets::experiment`).
    pub preset: &'static str,
    pub title: &'static str,
    /// Author and date of the patch mail.
    pub byline: &'static str,
    pub switch: Switch,
    /// What the patch changes, in a sentence or two.
    pub changes: &'static str,
    /// What to look at in the results.
    pub look_for: &'static str,
    /// The number the patch mail reports.
    pub reported: &'static str,
}

/// Every guide, in seed order.
pub fn guides() -> Vec<Guide> {
    vec![
        Guide {
            preset: "seed001",
            title: "The bouncing cow: take prev when it is idle",
            byline: "Mike Galbraith, January 2013",
            switch: Switch::SisPrevIdle,
            changes: "select_idle_sibling() used to walk the LLC for the first idle group and could move a \
                      freshly woken task off its idle, cache-hot previous CPU. With the patch it checks prev \
                      first: if prev shares the cache with the target and is idle, the task stays there.",
            look_for: "Throughput of the single tbench pair (A against B), and in the migrations chart how many \
                       wakeups moved the task between SMT siblings or cores of the same LLC. In live mode, step \
                       a few wakeups and watch prev and the chosen CPU coincide with the patch on.",
            reported: "1 tbench pair on a 10-core + SMT package: 15.22 MB/s before, 252.01 MB/s after",
        },
        Guide {
            preset: "seed000",
            title: "wake_affine may return prev",
            byline: "Mel Gorman, December 2017 (v4.15-rc3)",
            switch: Switch::WakeAffinePrevRfc,
            changes: "wake_affine() now returns a CPU instead of a yes/no; wake_affine_idle() may answer prev \
                      when prev is idle and cache-affine with the waker, and sync wakeups get their own \
                      wake_affine_sync() check. Both kernels carry RFC 1/4 (an interrupt pulls a task only \
                      to a CPU sharing its cache). As posted, the kept `return true` of that rule now means \
                      CPU 1; the merged form (806486c, v4.16) is the switch wake-affine-prev.",
            look_for: "dbench throughput over the client counts (gains at 2-8 clients and small losses at 16-32 \
                       in the mail) and the System row. The model reproduces the gains at 2 and 8 clients but \
                       not at 4, gains a little at 16, and saves no system time; its dbench also keeps scaling \
                       with clients where the real one levels off near 2,500 MB/s, so compare the two kernels, \
                       not the MB/s with the mail's (docs/seeds.md says why).",
            reported: "dbench4 on ext4: gains at 2-8 clients, small losses at 16-32; system CPU time 5729 s to 5288 s",
        },
        Guide {
            preset: "seed002",
            title: "newidle balance steps aside for a pending wakeup",
            byline: "Rik van Riel, 2021 (v3)",
            switch: Switch::NewidleSkipPending,
            changes: "When a CPU goes idle it runs newidle_balance() to pull work from others. If a wakeup is \
                      already queued for this CPU (ttwu_pending), that search is wasted time: the patch skips it \
                      or stops it early.",
            look_for: "newidle_skipped_pending in the counters at 160 workers (two per CPU), where workers \
                       are often woken while still going to sleep, then the User and System rows. In the model \
                       the skips happen but save little CPU time and no tail latency (docs/seeds.md says why).",
            reported: "memcache-like load: about 2% less CPU, p95/p99 response time 10% better",
        },
        Guide {
            preset: "seed003-pipe",
            title: "recent_used_cpu keeps prev (perf bench pipe)",
            byline: "Mel Gorman, August 2021 (v5.15)",
            switch: Switch::RecentUsedPrev,
            changes: "select_idle_sibling() remembers a recently used CPU per task as a cheap second guess. \
                      Before the patch it stored the new target, which is often the CPU being left; with it, \
                      it stores prev, which is more likely to be idle at the next wakeup.",
            look_for: "The SISRecnt% row of the comparison table (the hit rate of the recent_used_cpu guess) and \
                       the pipe latency. Without the patch the pair never tries the guess here (its \
                       recent_used_cpu is always prev), so the row reads n/a; the mail's 57% is 4 hits in 7 \
                       attempts over the whole run, most likely by other tasks on the box.",
            reported: "recent_used_cpu hit rate, perf bench pipe: 57.14% to 85.32%",
        },
        Guide {
            preset: "seed003-hackbench",
            title: "recent_used_cpu keeps prev (hackbench)",
            byline: "Mel Gorman, August 2021 (v5.15)",
            switch: Switch::RecentUsedPrev,
            changes: "The same patch under hackbench's many senders and receivers, where most wakeups find \
                      busy CPUs.",
            look_for: "SISRecnt% (small in absolute terms, but it rises) and hackbench time (lower is better). \
                       The mail's rates come from mmtests' series (1 to 296 groups, 10,000 loops each); this \
                       preset's short runs (100 loops, up to 8 groups) spend much of their time starting and \
                       finishing, when CPUs idle, so the rate without the patch reads about ten times the mail's \
                       here (about 2% against 0.21%); run 203 groups with 1,000 loops for the mail's steady state.",
            reported: "recent_used_cpu hit rate, hackbench: 0.21% to 6.64%",
        },
        Guide {
            preset: "seed003-tbench",
            title: "recent_used_cpu keeps prev (tbench)",
            byline: "Mel Gorman, August 2021 (v5.15)",
            switch: Switch::RecentUsedPrev,
            changes: "The same patch under tbench's client/server pairs from 1 to 320 pairs on 80 CPUs, mmtests' series for this machine.",
            look_for: "SISRecnt% in the table and the throughput curve as the machine fills. With the patch the \
                       model's overall rate is close to the mail's; without it the model tries the guess only \
                       a few dozen times in millions of wakeups and hits about 30% of them, where the mail \
                       reads about 0%.",
            reported: "recent_used_cpu hit rate, tbench: about 0% to 25.42%",
        },
        Guide {
            preset: "seed004",
            title: "SHARED_RUNQ shards with an overload flag",
            byline: "K Prateek Nayak, RFC 2023",
            switch: Switch::SharedRunqOverload,
            changes: "SHARED_RUNQ lets idle CPUs pull queued tasks from a per-LLC shared runqueue. With 128 \
                      tbench pairs the shards fill with tasks that are already running, and idle CPUs waste \
                      time and lock traffic on them. The patch marks a shard overloaded so idle CPUs skip it.",
            look_for: "Three kernels: tip, SHARED_RUNQ alone and the full series. Throughput of the middle one \
                       drops (by more than a quarter here, by more than half on Nayak's machine); the overload flag \
                       brings it back to within a few percent of tip. Compare the Spin(s) and Migrate rows.",
            reported: "tbench 128 clients: tip 1.00, shared_runq till patch 2 0.41 (-58.81%), full series 1.01",
        },
    ]
}

/// The classroom's replay card: a real trace bundled with the page (a same-origin
/// static file, `index.html` copies it), imported when the card is opened.
pub struct ReplayGuide {
    pub title: &'static str,
    /// The bundled file, relative to the page.
    pub url: &'static str,
    pub file: &'static str,
    pub what: &'static str,
    pub look_for: &'static str,
}

pub const REPLAY_GUIDE: ReplayGuide = ReplayGuide {
    title: "Replay a real trace: make -j2 on a 2-CPU machine",
    url: "traces/make.perf.txt.gz",
    file: "make.perf.txt.gz",
    what: "A scheduler trace (perf sched record, then perf script) of half a second of a parallel build of a small C \
           project on a 2-CPU virtual machine: 101 tasks, 37 forks and 440 wakeups. Replay turns each traced task into \
           a program of the model's own steps (run the CPU time it ran, wake the task it woke, block until woken) and \
           lets the modelled kernel choose where and when they run.",
    look_for: "The table under the results: the traced machine's wakeups, migrations and run delays (observed) beside \
               each kernel's replay of the same tasks (simulated), and how often the model put a woken task on the \
               CPU the machine did. The machine was not idle (another job's linker is the top waker), so the \
               observed column includes that load; the replay does not.",
};

/// The classroom's exercise: write a placement that fixes seed 001's problem. Kernel A
/// is v3.8 (the bouncing cow), B the patch's own result (`sis-prev-idle`), C the
/// student's script on v3.8, starting from the kernel's own choice
/// (`policy_editor::STARTER`); the comparison shows C beside B.
pub struct Exercise {
    pub title: &'static str,
    pub task: &'static str,
    pub look_for: &'static str,
}

pub const EXERCISE: Exercise = Exercise {
    title: "Exercise: write a placement that fixes seed 001's problem",
    task: "On v3.8, select_idle_sibling() walks the LLC for a wholly idle group and moves a woken tbench task off \
           its idle, cache-hot previous CPU (the bouncing cow). Kernel C is yours: a policy script on v3.8 that starts \
           as the kernel's own select_idle_sibling. Change it so the task stops bouncing, then Run. Kernel B is the \
           patch Mike Galbraith merged (e0a79f529d5b, v3.9), so your result sits beside the patch's own.",
    look_for: "Throughput and migrations of C against A and B. The template seed001-v3.8 is the patch written as a \
               script: with it, C's results are B's byte for byte. The helpers idle_cpu(), cpus_share_cache() and \
               trace() are enough for a fix; the decision trace (schedsim trace, the Diff view) shows each call.",
};

/// The classroom's EEVDF card: what v6.6 changed against v6.5, and what v6.12's delayed
/// dequeue changed after it, on the 2-CPU box the bundled traces were recorded on.
pub struct EevdfGuide {
    pub title: &'static str,
    pub byline: &'static str,
    pub setup: &'static str,
    pub changes: &'static str,
    pub look_for: &'static str,
}

pub const EEVDF_GUIDE: EevdfGuide = EevdfGuide {
    title: "EEVDF: v6.6 replaces CFS's pick and wakeup preemption",
    byline: "Peter Zijlstra, 2023 (147f3efaa241, v6.6) · delayed dequeue 152e11f6df29, v6.12",
    setup: "perf bench sched messaging with pipes (hackbench -p), 500 loops, 1 and 2 groups of 20 senders and \
            20 receivers, on kvm-2 (2 CPUs): A v6.5 (CFS), B v6.6 (EEVDF), C v6.12 (EEVDF with delayed dequeue), \
            D v6.12 with DELAY_DEQUEUE off, E v6.6 with RUN_TO_PARITY off.",
    changes: "CFS (to v6.5) runs the task with the least vruntime and lets a wakee preempt only when its vruntime \
              is a wakeup granularity behind. EEVDF (v6.6) gives each task a lag (what it is owed) and a virtual \
              deadline (a slice after its eligible time), runs the eligible task with the earliest deadline, and \
              preempts at a wakeup when the wakee is that pick; RUN_TO_PARITY lets the current task finish its \
              slice first. v6.12 keeps a task that sleeps while not eligible queued (delayed dequeue) until it is \
              picked or woken, so its lag is not forgotten, and wakes it by a requeue on its own CPU.",
    look_for: "The time each kernel takes for the same messages (Amean, lower is better) and the Wakeups row. \
               Measured when the card was written: v6.6 took 41% less time than v6.5 with 1 group and 24% less with \
               2, with two fifths of the wakeups (88,634 against 224,911): under CFS a woken receiver waits for the \
               sender's slice and both sleep again and again; under EEVDF it runs at once when it is the pick and \
               finds more messages per wakeup. v6.12, with delayed dequeue, lands beside v6.6 (35% and 29% less \
               time than v6.5, 85,862 wakeups). The model's run of the real box's benchmark (2,000 loops, \
               docs/ground-truth.md) says the same: v6.5 1.64 s, v6.6 0.74 s. The two switches, as the kernel has \
               them (sched features): D, v6.12 without DELAY_DEQUEUE, gives v6.6's numbers exactly (41% and 24% \
               less time than v6.5, 88,634 wakeups), so delayed dequeue is all v6.12 changes here. E, v6.6 without \
               RUN_TO_PARITY, preempts the current task whenever a wakee is the pick: 12% less time than v6.5 with \
               1 group and with 2, 155,902 wakeups and 109,511 preemptions against v6.6's 31,477, so letting the \
               current task finish its slice is most of EEVDF's gain here.",
};

/// The EEVDF card's experiment ([`EEVDF_GUIDE`]).
pub fn eevdf_experiment() -> schedsim::Experiment {
    let json = r#"{"kind":"hackbench","loops":500,"pipe":true}"#;
    let mut e = schedsim::presets::experiment("seed003-hackbench").expect("seed003-hackbench is a preset");
    e.name = "eevdf".into();
    e.machine =
        schedsim::experiment::MachineSpec { preset: Some("kvm-2".into()), topology: None, costs: None, preempt: None };
    e.workload = serde_json::from_str(json).expect("the card's workload is valid");
    e.clients = vec![1, 2];
    e.duration_ms = 2000;
    e.warmup_ms = 0;
    use schedsim::{KernelSpec, KernelVersion as V, Switch};
    e.kernels = [V::V6_5, V::V6_6, V::V6_12].iter().map(|v| KernelSpec::new(v.name(), *v)).collect();
    // Each of today's two EEVDF switches off in a column of its own, named by the page's
    // own rule ("v6.12-DELAY_DEQUEUE"), so the card shows what each changes.
    for (v, sw) in [(V::V6_12, Switch::DelayDequeue), (V::V6_6, Switch::RunToParity)] {
        let mut k = KernelSpec::new("", v).with(sw, false);
        k.name = crate::model::kernels::auto_name(&k);
        e.kernels.push(k);
    }
    e
}

/// The exercise's experiment: seed 001's sweep with kernel C, the student's script.
pub fn exercise_experiment() -> schedsim::Experiment {
    let mut e = schedsim::presets::experiment("seed001").expect("seed001 is a preset");
    let mut yours = schedsim::KernelSpec::new("yours", schedsim::KernelVersion::V3_8);
    yours.policy = Some(crate::model::policy_editor::STARTER.to_string());
    e.kernels.push(yours);
    e.name = "seed001-exercise".into();
    e
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_exercise_sets_the_patch_beside_the_students_script() {
        let e = super::exercise_experiment();
        e.validate().unwrap();
        assert_eq!(e.kernels.len(), 3);
        assert_eq!(e.kernels[1].overrides.get(&schedsim::Switch::SisPrevIdle), Some(&true), "B is the patch");
        assert!(e.kernels[0].policy.is_none() && e.kernels[1].policy.is_none());
        assert_eq!(
            (e.kernels[2].preset, e.kernels[2].policy.as_deref()),
            (e.kernels[0].preset, Some(crate::model::policy_editor::STARTER))
        );
    }

    #[test]
    fn the_eevdf_card_sets_cfs_beside_eevdf() {
        let e = super::eevdf_experiment();
        e.validate().unwrap();
        let versions: Vec<&str> = e.kernels.iter().map(|k| k.preset.name()).collect();
        assert_eq!(versions, ["v6.5", "v6.6", "v6.12", "v6.12", "v6.6"]);
        let names: Vec<&str> = e.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names[3..], ["v6.12-DELAY_DEQUEUE", "v6.6-RUN_TO_PARITY"]);
        assert_eq!(e.workload.name(), "hackbench");
        assert_eq!(e.machine.preset.as_deref(), Some("kvm-2"));
    }

    #[test]
    fn every_guide_names_a_real_preset_and_patch() {
        let guides = super::guides();
        for g in &guides {
            let e = schedsim::presets::experiment(g.preset).unwrap_or_else(|| panic!("{} is not a preset", g.preset));
            assert!(e.kernels.iter().any(|k| k.overrides.contains_key(&g.switch)), "{}", g.preset);
            assert!(g.switch.seed_file().is_some());
        }
        // One guide per seed file, at least.
        let mut seeds: Vec<_> = guides.iter().filter_map(|g| g.switch.seed_file()).collect();
        seeds.dedup();
        assert_eq!(seeds.len(), 5);
    }
}
