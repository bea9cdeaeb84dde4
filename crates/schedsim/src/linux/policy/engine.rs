//! The script engine: a Rhai `Engine` with no clock, no `eval`, no module import, no
//! output, bounded in operations, call depth, string and array sizes, and the helpers
//! a policy reads the machine through (registered here, run in [`super::helpers`]).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rhai::{Dynamic, Engine, EvalAltResult, Module, Position};

use super::helpers::{self as h, TaskRef};
use crate::facts::policy::{
    ARRAY_MAX, CALL_LEVELS_MAX, CALL_OPS_MAX, HOOKS, POLICY_SOURCE_MAX, STRING_MAX, WF_SYNC, WF_TTWU,
};
use crate::state::policy::Policy;

type R<T> = Result<T, Box<EvalAltResult>>;

/// `LINE:COLUMN: message`, or the message alone when Rhai gave no position.
pub(crate) fn at(pos: Position, msg: &str) -> String {
    match (pos.line(), pos.position()) {
        (Some(l), Some(c)) => format!("line {l}:{c}: {msg}"),
        (Some(l), None) => format!("line {l}: {msg}"),
        _ => msg.to_string(),
    }
}

/// One line for a Rhai error of the script's `name`: the innermost error (inside the
/// script's own function calls) at the innermost line and column Rhai gave, else at
/// the function's definition.
pub(crate) fn describe(e: &EvalAltResult, source: &str, name: &str) -> String {
    let mut pos = Position::NONE;
    let mut err = e;
    loop {
        if !err.position().is_none() {
            pos = err.position();
        }
        match err {
            EvalAltResult::ErrorInFunctionCall(.., inner, _) | EvalAltResult::ErrorInModule(_, inner, _) => err = inner,
            _ => break,
        }
    }
    if pos.is_none() {
        let (l, c) = fn_line(source, name);
        pos = Position::new(l as u16, c as u16);
    }
    let mut msg = match err {
        EvalAltResult::ErrorTooManyOperations(_) => {
            format!("the call made more than {CALL_OPS_MAX} operations (the per-call budget)")
        }
        EvalAltResult::ErrorTerminated(..) => {
            format!("the run's policy budget of {} operations is spent", crate::facts::policy::run_ops_max())
        }
        EvalAltResult::ErrorStackOverflow(_) => {
            format!("calls nested deeper than {CALL_LEVELS_MAX} levels (recursion?)")
        }
        other => other.to_string(),
    };
    if let Some(i) = msg.find(" (line ") {
        msg.truncate(i);
    }
    if let Some(i) = msg.find('\n') {
        msg.truncate(i);
    }
    let msg = msg.strip_prefix("Runtime error: ").unwrap_or(&msg);
    at(pos, msg)
}

/// Compiles `source`: the engine with its helpers, the script, and which of the
/// wakeup path's functions it defines. An error is one line with the script's line and
/// column.
pub(crate) fn compile(source: &str) -> Result<Policy, String> {
    if source.len() > POLICY_SOURCE_MAX {
        return Err(format!("the script has {} bytes, more than {POLICY_SOURCE_MAX}", source.len()));
    }
    let ops = Rc::new(Cell::new(0u64));
    let ops_left = Rc::new(Cell::new(0u64));
    let engine = engine(ops.clone(), ops_left.clone());
    let ast = engine.compile(source).map_err(|e| at(e.1, &e.0.to_string()))?;
    let mut hooks = 0;
    for f in ast.iter_functions() {
        let Some(&(name, n, bit)) = HOOKS.iter().find(|h| h.0 == f.name) else { continue };
        if f.params.len() != n {
            let (l, c) = fn_line(source, name);
            return Err(format!(
                "line {l}:{c}: {name} takes {n} parameters as the kernel's does, here {}",
                f.params.len()
            ));
        }
        hooks |= bit;
    }
    if hooks == 0 {
        return Err(format!("the script defines none of {}: it would change nothing", HOOKS.map(|h| h.0).join(", ")));
    }
    let scope = Default::default();
    // Rhai resolves a call by its name and argument types against the engine's
    // functions and the script's own (`fn` of this AST first). Neither changes during a
    // run (no `import`, no `eval`, the AST is fixed once compiled), so a resolution
    // cached at one call holds at every later one: the caches live as long as the
    // engine and the AST they were made with, all three in one `Policy`.
    let call = RefCell::new(rhai::CallState::new(&engine));
    let fast = (!crate::facts::policy::interpret_only())
        .then(|| crate::state::policy_code::Compiled::new(&ast, &HOOKS.map(|h| h.0)));
    Ok(Policy { engine, ast, hooks, source: source.to_string(), ops, ops_left, scope, call, fast })
}

/// Line and column (1-based) of `fn NAME` in the script, for errors of a function's
/// answer, which Rhai gives no position.
pub(crate) fn fn_line(source: &str, name: &str) -> (usize, usize) {
    let pat = format!("fn {name}");
    for (i, l) in source.lines().enumerate() {
        if let Some(c) = l.find(&pat) {
            return (i + 1, c + 1);
        }
    }
    (1, 1)
}

fn engine(ops: Rc<Cell<u64>>, ops_left: Rc<Cell<u64>>) -> Engine {
    let mut e = Engine::new();
    e.set_max_operations(CALL_OPS_MAX)
        .set_max_call_levels(CALL_LEVELS_MAX)
        .set_max_expr_depths(64, 32)
        .set_max_string_size(STRING_MAX)
        .set_max_array_size(ARRAY_MAX)
        .set_max_map_size(ARRAY_MAX)
        .set_max_variables(256)
        .set_max_functions(64)
        .set_max_modules(0)
        .set_strict_variables(true)
        .set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new())
        .disable_symbol("eval")
        .disable_symbol("import")
        .disable_symbol("export");
    e.on_print(|_| {});
    e.on_debug(|_, _, _| {});
    // `fast::Run::tick` makes the same test without calling this.
    e.on_progress(move |n| {
        ops.set(n);
        (n > ops_left.get()).then(budget_token)
    });
    register_task(&mut e);
    register_helpers(&mut e);
    e.register_static_module("kernel", kernel_module().into());
    e
}

/// What ends a call whose run has spent its operation budget (`ErrorTerminated`).
pub(crate) fn budget_token() -> Dynamic {
    Dynamic::from("budget")
}

fn register_task(e: &mut Engine) {
    e.register_type_with_name::<TaskRef>("task_struct")
        .register_get("pid", |t: &mut TaskRef| t.0 as i64)
        .register_get("comm", |t: &mut TaskRef| h::task_comm(*t))
        .register_get("cpu", |t: &mut TaskRef| h::task_field(*t, h::Field::Cpu))
        .register_get("recent_used_cpu", |t: &mut TaskRef| h::task_field(*t, h::Field::RecentUsedCpu))
        .register_set("recent_used_cpu", |t: &mut TaskRef, c: i64| h::set_recent_used_cpu(*t, c))
        .register_get("wakee_flips", |t: &mut TaskRef| h::task_field(*t, h::Field::WakeeFlips))
        .register_get("nr_cpus_allowed", |t: &mut TaskRef| h::task_field(*t, h::Field::NrCpusAllowed))
        .register_get("cpus_allowed", |t: &mut TaskRef| h::cpus_allowed(*t))
        .register_fn("==", |a: TaskRef, b: TaskRef| a == b)
        .register_fn("!=", |a: TaskRef, b: TaskRef| a != b)
        .register_fn("to_string", |t: &mut TaskRef| format!("task {}", t.0))
        .register_fn("to_debug", |t: &mut TaskRef| format!("task {}", t.0));
}

fn register_helpers(e: &mut Engine) {
    e.register_fn("idle_cpu", |c: i64| -> R<bool> { h::idle_cpu(c, "idle_cpu") })
        .register_fn("available_idle_cpu", |c: i64| -> R<bool> { h::idle_cpu(c, "available_idle_cpu") })
        .register_fn("cpus_share_cache", |a: i64, b: i64| -> R<bool> { h::cpus_share_cache(a, b) })
        .register_fn("task_cpu", |t: TaskRef| h::task_field(t, h::Field::Cpu))
        .register_fn("cpu_of", |t: TaskRef| h::task_field(t, h::Field::Cpu))
        .register_fn("smp_processor_id", h::this_cpu)
        .register_fn("nr_cpu_ids", h::nr_cpus)
        .register_fn("nr_running", |c: i64| -> R<i64> { h::rq_read(c, h::RqField::NrRunning) })
        .register_fn("cpu_util", |c: i64| -> R<i64> { h::rq_read(c, h::RqField::Util) })
        .register_fn("capacity_of", |c: i64| -> R<i64> { h::rq_read(c, h::RqField::Capacity) })
        .register_fn("is_cpu_allowed", |t: TaskRef, c: i64| -> R<bool> { h::is_cpu_allowed(t, c) })
        .register_fn("llc_cpus", |c: i64| -> R<rhai::Array> { h::span(c, h::Span::Llc) })
        .register_fn("core_cpus", |c: i64| -> R<rhai::Array> { h::span(c, h::Span::Core) })
        .register_fn("node_cpus", |c: i64| -> R<rhai::Array> { h::span(c, h::Span::Node) })
        .register_fn("sched_groups", |c: i64| -> R<rhai::Array> { h::sched_groups(c) })
        .register_fn("sd_llc", |c: i64| -> R<bool> { h::sd_llc(c) })
        .register_fn("sched_smt_active", h::sched_smt_active)
        .register_fn("test_idle_cores", |c: i64| -> R<bool> { h::test_idle_cores(c) })
        .register_fn("current", h::current)
        .register_fn("is_per_cpu_kthread", |t: TaskRef| h::is_per_cpu_kthread(t))
        .register_fn("default_select_cpu", |t: TaskRef, prev: i64, flags: i64| -> R<i64> {
            h::default_select_cpu(t, prev, flags)
        })
        .register_fn("trace", |s: &str| h::trace(s))
        .register_fn("trace", |s: i64| h::trace(&s.to_string()))
        .register_fn("prandom_u32", h::prandom_u32)
        .register_fn("schedstat_inc", |s: &str| -> R<()> { h::schedstat_inc(s) });
}

/// `kernel::NAME`: the modelled kernel's own functions, and the flag values.
fn kernel_module() -> Module {
    let mut m = Module::new();
    m.set_var("WF_SYNC", WF_SYNC);
    m.set_var("WF_TTWU", WF_TTWU);
    m.set_native_fn("select_task_rq_fair", |t: TaskRef, prev: i64, flags: i64| {
        h::kernel_select_task_rq(t, prev, flags)
    });
    m.set_native_fn("wake_wide", |t: TaskRef| h::kernel_wake_wide(t));
    m.set_native_fn("wake_affine", |t: TaskRef, this: i64, prev: i64, sync: bool| {
        h::kernel_wake_affine(t, this, prev, sync)
    });
    m.set_native_fn("select_idle_sibling", |t: TaskRef, prev: i64, target: i64| h::kernel_sis(t, prev, target));
    m.set_native_fn("select_idle_smt", |t: TaskRef, prev: i64| h::kernel_select_idle_smt(t, prev));
    m.set_native_fn("select_idle_cpu", |t: TaskRef, has_idle_core: bool, target: i64| {
        h::kernel_select_idle_cpu(t, has_idle_core, target)
    });
    m
}
