//! A kernel column's policy script (feature `policy`, [`crate::facts::policy`]): the
//! wakeup path calls it where the script defines `select_task_rq_fair`, `wake_wide`,
//! `wake_affine` or `select_idle_sibling` (one test of `Sim::hooks` each), and each
//! call becomes a step of the decision trace: the function, every helper read and its
//! value, the answer, and the script's `trace("…")` text as the why. A script that
//! fails (a runtime error, a budget spent, an answer that is not a CPU the task may
//! run on) fails the run with one line, and the wakeup in progress takes the kernel's
//! own answer so that the state stays whole until the loop stops.

mod compile;
pub(crate) mod engine;
pub(crate) mod fast;
pub(crate) mod helpers;

use std::rc::Rc;

use rhai::{CallFnOptions, Dynamic};

use crate::facts::policy::{HOOK_SELECT_IDLE_SIBLING, HOOK_SELECT_TASK_RQ, HOOK_WAKE_AFFINE, HOOK_WAKE_WIDE};
use crate::facts::rng::Pcg64;
use crate::facts::trace::Step;
use crate::linux::wakeup::{Current, Wakeup};
use crate::state::policy::{Policy, PolicyRun};
use crate::state::{CpuId, Sim};
use helpers::{task_arg, Ctx, TaskRef};

/// The stream of `prandom_u32()` beside the simulation's own (`0x5eed`).
const POLICY_STREAM: u64 = 0x5c_2197;

/// What one script call gave.
struct Answer {
    value: Dynamic,
    reads: Vec<String>,
    why: String,
}

impl Sim {
    /// Compiles `source` and lets it place this run's wakeups.
    pub(crate) fn attach_policy(&mut self, source: &str) -> Result<(), String> {
        let run = self.policy_run(source)?;
        self.hooks = run.policy.hooks;
        self.policy = Some(run);
        Ok(())
    }

    /// Compiles `source` as the A/B diff's kernel B, asked at each traced wakeup
    /// (`diff_counterfactual`).
    pub(crate) fn attach_diff_policy(&mut self, source: &str) -> Result<(), String> {
        self.diff_policy = Some(self.policy_run(source)?);
        Ok(())
    }

    /// `source` compiled, with this run's state of it: its random stream from the
    /// run's seed and the whole run's operation budget.
    fn policy_run(&self, source: &str) -> Result<Box<PolicyRun>, String> {
        Ok(Box::new(PolicyRun {
            policy: Rc::new(engine::compile(source)?),
            rng: Pcg64::new(self.opts.seed, POLICY_STREAM),
            ops_left: crate::facts::policy::run_ops_max(),
            trace_bytes_left: crate::facts::policy::TRACE_TEXT_RUN_MAX,
        }))
    }

    /// Calls the script's `name` for the wakeup `w`; `None` when it failed (the run
    /// fails with the script's line; the caller takes the kernel's answer). `args` are
    /// the function's, but for the first, `p`, left `()`: the task of `w`, made here
    /// (a compiled call writes it into the value its last call left, not a new one).
    fn policy_call(
        &mut self,
        hook: u8,
        name: &str,
        w: &Wakeup,
        current: (Current, u32),
        cost: &mut u64,
        args: &mut [Dynamic],
    ) -> Option<Answer> {
        let run = self.policy.as_ref()?;
        let policy: Rc<Policy> = run.policy.clone();
        policy.ops_left.set(run.ops_left);
        policy.ops.set(0);
        let hooks = std::mem::replace(&mut self.hooks, 0);
        let ctx = Ctx {
            sim: self as *mut Sim,
            w: *w,
            hook,
            current: current.0,
            flips: current.1,
            cost: *cost,
            budget: policy.ops_left.clone(),
            charged: 0,
            tracing: self.tracing(),
            reads: Vec::new(),
            why: String::new(),
        };
        let (r, ctx) = helpers::enter(ctx, || {
            let opts = CallFnOptions::new().eval_ast(false).rewind_scope(true);
            let mut scope = policy.scope.borrow_mut();
            let mut call = policy.call.borrow_mut();
            let r = match policy.fast.as_ref().and_then(|c| Some((c, c.get(name, args.len())?))) {
                Some((c, f)) => {
                    let mut run = fast::Run {
                        engine: &policy.engine,
                        state: &mut call,
                        scope: &mut scope,
                        seen: &policy.ops,
                        until: &policy.ops_left,
                        code: c,
                    };
                    run.call(&policy.ast, f, args, TaskRef(w.p.0))
                }
                None => {
                    scope.clear();
                    if let Some(c) = &policy.fast {
                        c.kept.set(usize::MAX);
                    }
                    args[0] = task_arg(w);
                    let r = policy.engine.call_fn_with_state(&mut call, opts, &mut scope, &policy.ast, name, args);
                    scope.clear();
                    r
                }
            };
            r
        });
        self.hooks = hooks;
        *cost = ctx.cost;
        let ops = policy.ops.get().saturating_add(ctx.charged);
        if let Some(run) = self.policy.as_mut() {
            run.ops_left = run.ops_left.saturating_sub(ops);
        }
        crate::facts::policy::count_ops(ops);
        match r {
            Ok(value) => Some(Answer { value, reads: ctx.reads, why: ctx.why }),
            Err(e) => {
                self.policy_fail(&engine::describe(&e, &policy.source, name));
                None
            }
        }
    }

    /// Fails the run with one line and lets no more of the script run.
    #[cold]
    fn policy_fail(&mut self, msg: &str) {
        self.fail(format!("policy script {msg}"));
        self.hooks = 0;
    }

    /// A CPU answer of the script's `name`: an integer, on the machine, allowed for
    /// the task; else the run fails naming the function.
    fn policy_cpu(&mut self, name: &str, w: &Wakeup, a: Answer) -> Option<u32> {
        let n = self.map.nr_cpus() as i64;
        let err = match a.value.as_int() {
            Err(t) => Some(format!("returned {}, not a CPU number", if t == "()" { "nothing" } else { t })),
            Ok(c) if !(0..n).contains(&c) => {
                Some(format!("returned CPU {c}, not on the machine (CPUs 0 to {})", n - 1))
            }
            Ok(c) if !self.allowed(w.p.0, c as u32) => {
                Some(format!("returned CPU {c}, outside the task's allowed CPUs"))
            }
            Ok(_) => None,
        };
        if let Some(e) = err {
            let policy = self.policy.as_ref()?.policy.clone();
            let (l, c) = engine::fn_line(&policy.source, name);
            self.policy_fail(&format!("line {l}:{c}: {name} {e}"));
            return None;
        }
        let c = a.value.as_int().unwrap_or(0) as u32;
        self.policy_step(name, a.reads, || format!("CPU {c}"), a.why);
        Some(c)
    }

    /// The call's step of the decision trace; nothing is formatted when no trace is kept.
    fn policy_step(&mut self, name: &str, read: Vec<String>, result: impl FnOnce() -> String, why: String) {
        self.step(|_| Step { function: format!("{name} (script)"), read, result: result(), why });
    }

    /// The script's `select_task_rq_fair(p, prev_cpu, wake_flags)`.
    #[cold]
    #[inline(never)]
    pub(crate) fn policy_select_task_rq(&mut self, w: &Wakeup, cost: &mut u64) -> u32 {
        let name = "select_task_rq_fair";
        let flags = crate::facts::policy::WF_TTWU | if w.sync { crate::facts::policy::WF_SYNC } else { 0 };
        let args = &mut [Dynamic::UNIT, Dynamic::from_int(w.prev.0 as i64), Dynamic::from_int(flags)];
        let current = (Current::Idle(w.this.0), 0);
        if let Some(c) = self.policy_call(HOOK_SELECT_TASK_RQ, name, w, current, cost, args) {
            if let Some(c) = self.policy_cpu(name, w, c) {
                return c;
            }
        }
        self.select_task_rq_in::<false>(w, cost)
    }

    /// [`Sim::select_task_rq`] of a kernel column with a script.
    #[cold]
    #[inline(never)]
    pub(crate) fn select_task_rq_scripted(&mut self, w: &Wakeup, cost: &mut u64) -> u32 {
        self.select_task_rq_in::<true>(w, cost)
    }

    /// The script's `wake_wide(p)`: true (or non-zero) is wide. On a failure, the
    /// kernel's.
    #[cold]
    #[inline(never)]
    pub(crate) fn policy_wake_wide(&mut self, w: &Wakeup, current: Current, flips: u32, cost: &mut u64) -> bool {
        let name = "wake_wide";
        let answer = self.policy_call(HOOK_WAKE_WIDE, name, w, (current, flips), cost, &mut [Dynamic::UNIT]);
        let wide = answer.and_then(|a| {
            let wide = match (a.value.as_bool(), a.value.as_int()) {
                (Ok(b), _) => b,
                (_, Ok(i)) => i != 0,
                _ => {
                    let policy = self.policy.as_ref()?.policy.clone();
                    let (l, c) = engine::fn_line(&policy.source, name);
                    let t = a.value.type_name();
                    self.policy_fail(&format!("line {l}:{c}: wake_wide returned {t}, not true or false"));
                    return None;
                }
            };
            self.policy_step(name, a.reads, || if wide { "1 (wide)".into() } else { "0".into() }, a.why);
            Some(wide)
        });
        match wide {
            Some(wide) => {
                self.m.wake_wide += wide as u64;
                wide
            }
            None => self.wake_wide(w, current, flips),
        }
    }

    /// The script's `wake_affine(p, this_cpu, prev_cpu, sync)`, asked where the
    /// kernel asks its own (a wake-affine domain spans both CPUs and they differ): the
    /// target for `select_idle_sibling`. On a failure, the kernel's.
    #[cold]
    #[inline(never)]
    pub(crate) fn policy_wake_affine(&mut self, depth: usize, w: &Wakeup, cost: &mut u64) -> u32 {
        let name = "wake_affine";
        let args = &mut [
            Dynamic::UNIT,
            Dynamic::from_int(w.this.0 as i64),
            Dynamic::from_int(w.prev.0 as i64),
            Dynamic::from_bool(w.sync),
        ];
        let answer = self.policy_call(HOOK_WAKE_AFFINE, name, w, (Current::Idle(w.this.0), 0), cost, args);
        match answer.and_then(|a| self.policy_cpu(name, w, a)) {
            Some(c) => {
                self.m.affine_attempts += 1;
                self.m.affine_moves += (c != w.prev.0) as u64;
                c
            }
            None => self.wake_affine(depth, w),
        }
    }

    /// The script's `select_idle_sibling(p, prev, target)`.
    #[cold]
    #[inline(never)]
    pub(crate) fn policy_select_idle_sibling(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> u32 {
        let name = "select_idle_sibling";
        let args = &mut [Dynamic::UNIT, Dynamic::from_int(w.prev.0 as i64), Dynamic::from_int(target.0 as i64)];
        let current = (Current::Idle(w.this.0), 0);
        if let Some(a) = self.policy_call(HOOK_SELECT_IDLE_SIBLING, name, w, current, cost, args) {
            if let Some(c) = self.policy_cpu(name, w, a) {
                return c;
            }
        }
        self.sis_forms(w, target, cost)
    }
}
