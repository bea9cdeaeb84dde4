//! Running a policy script's functions compiled (by `compile`) into a tree: the
//! same operations Rhai's evaluator performs, in the same order and counted the same
//! (one per statement and per expression, one per literal or by-reference argument,
//! one per native call), with each variable resolved to its scope slot and each call of
//! a helper or of `kernel::NAME` bound to the helper, with no function lookup by name
//! and argument types. Anything else (method calls, indexing, the script's own
//! functions, `switch`, op-assignments, values of other types at an operator or a
//! helper) is handed back to Rhai at that node with the same state and scope, so a
//! compiled call gives what Rhai's own would: the same answer, the same helper reads,
//! the same operation count and the same error at the same line
//! (`tests/policy_fuzz.rs`: `compiled_and_interpreted_scripts_agree`).
//!
//! Why: Rhai's evaluator resolves every call by name and argument types at run time;
//! for the templates that is most of a script's cost (README, "Policy scripts").

use rhai::{AccessMode, CallState, Dynamic, Engine, EvalAltResult, FnCallExpr, Position, Scope, AST};

use super::helpers::{self as h, TaskRef};
use crate::state::policy_code::{Arg, Args, Bin, Compiled, Ex, Func, Helper, St, P};

type R<T> = Result<T, Box<EvalAltResult>>;

/// How a statement or block ended early.
enum Flow {
    Err(Box<EvalAltResult>),
    Break(Dynamic),
    Continue,
    Return(Dynamic),
}

impl From<Box<EvalAltResult>> for Flow {
    fn from(e: Box<EvalAltResult>) -> Self {
        match *e {
            EvalAltResult::LoopBreak(true, v, _) => Flow::Break(v),
            EvalAltResult::LoopBreak(false, ..) => Flow::Continue,
            EvalAltResult::Return(v, _) => Flow::Return(v),
            _ => Flow::Err(e),
        }
    }
}

type F<T> = Result<T, Flow>;

use Helper as Hp;

fn matches(p: &[P], args: &[&Dynamic]) -> bool {
    p.len() == args.len()
        && p.iter().zip(args).all(|(p, a)| match p {
            P::Int => a.is_int(),
            P::Bool => a.is_bool(),
            P::Str => a.is_string(),
            P::Task => a.is::<TaskRef>(),
        })
}

fn task(d: &Dynamic) -> TaskRef {
    d.read_lock::<TaskRef>().map_or(TaskRef(u32::MAX), |t| *t)
}

fn int(d: &Dynamic) -> i64 {
    d.as_int().unwrap_or(0)
}

impl Helper {
    /// Runs the helper on arguments of its types (checked by [`matches`]).
    fn call(self, a: &[&Dynamic]) -> R<Dynamic> {
        Ok(match self {
            Hp::IdleCpu => h::idle_cpu(int(a[0]), "idle_cpu")?.into(),
            Hp::AvailableIdleCpu => h::idle_cpu(int(a[0]), "available_idle_cpu")?.into(),
            Hp::CpusShareCache => h::cpus_share_cache(int(a[0]), int(a[1]))?.into(),
            Hp::TaskCpu => h::task_field(task(a[0]), h::Field::Cpu).into(),
            Hp::SmpProcessorId => h::this_cpu().into(),
            Hp::NrCpuIds => h::nr_cpus().into(),
            Hp::Rq(f) => {
                let f = match f {
                    0 => h::RqField::NrRunning,
                    1 => h::RqField::Util,
                    _ => h::RqField::Capacity,
                };
                h::rq_read(int(a[0]), f)?.into()
            }
            Hp::IsCpuAllowed => h::is_cpu_allowed(task(a[0]), int(a[1]))?.into(),
            Hp::Span(s) => {
                let s = match s {
                    0 => h::Span::Llc,
                    1 => h::Span::Core,
                    _ => h::Span::Node,
                };
                Dynamic::from_array(h::span(int(a[0]), s)?)
            }
            Hp::SchedGroups => Dynamic::from_array(h::sched_groups(int(a[0]))?),
            Hp::SdLlc => h::sd_llc(int(a[0]))?.into(),
            Hp::SchedSmtActive => h::sched_smt_active().into(),
            Hp::TestIdleCores => h::test_idle_cores(int(a[0]))?.into(),
            Hp::Current => h::current(),
            Hp::IsPerCpuKthread => h::is_per_cpu_kthread(task(a[0])).into(),
            Hp::DefaultSelectCpu => h::default_select_cpu(task(a[0]), int(a[1]), int(a[2]))?.into(),
            Hp::TraceStr => {
                h::trace(&a[0].clone().into_immutable_string().unwrap_or_default());
                Dynamic::UNIT
            }
            Hp::TraceInt => {
                h::trace(&int(a[0]).to_string());
                Dynamic::UNIT
            }
            Hp::PrandomU32 => h::prandom_u32().into(),
            Hp::SchedstatInc => {
                h::schedstat_inc(&a[0].clone().into_immutable_string().unwrap_or_default())?;
                Dynamic::UNIT
            }
            Hp::KernelSelectTaskRq => h::kernel_select_task_rq(task(a[0]), int(a[1]), int(a[2]))?.into(),
            Hp::KernelWakeWide => h::kernel_wake_wide(task(a[0]))?.into(),
            Hp::KernelWakeAffine => {
                h::kernel_wake_affine(task(a[0]), int(a[1]), int(a[2]), a[3].as_bool().unwrap_or(false))?.into()
            }
            Hp::KernelSis => h::kernel_sis(task(a[0]), int(a[1]), int(a[2]))?.into(),
            Hp::KernelSelectIdleSmt => h::kernel_select_idle_smt(task(a[0]), int(a[1]))?.into(),
            Hp::KernelSelectIdleCpu => {
                h::kernel_select_idle_cpu(task(a[0]), a[1].as_bool().unwrap_or(false), int(a[2]))?.into()
            }
        })
    }
}

/// Runs compiled code with Rhai's state of the call.
pub(crate) struct Run<'a> {
    pub engine: &'a Engine,
    pub state: &'a mut CallState,
    pub scope: &'a mut Scope<'static>,
    /// The engine's progress callback, made here rather than called
    /// (`engine::engine`): the count it records, the run's operations left when the
    /// call began, what ends a call past them.
    pub seen: &'a std::cell::Cell<u64>,
    /// The run's operations left when the call began, less what helpers charged since
    /// (shared with the engine's progress callback, `Policy::ops_left`).
    pub until: &'a std::cell::Cell<u64>,
    /// The script compiled (its budget token, which function's parameters the scope keeps).
    pub code: &'a Compiled,
}

impl Run<'_> {
    #[inline(always)]
    fn tick(&mut self, pos: Position) -> R<()> {
        self.engine.count_operation_until(self.state, pos, self.until.get(), &self.code.token, self.seen)
    }

    /// Calls `f` with `args`, as `call_script_fn` runs a script function called from
    /// outside (`Engine::call_fn_with_state`).
    /// `args` has `()` for the first parameter, `p`, which is `task`.
    pub(crate) fn call(&mut self, ast: &AST, f: &Func, args: &mut [Dynamic], task: TaskRef) -> R<Dynamic> {
        let lib = self.engine.enter_call(self.state, ast);
        let r = self.tick(Position::NONE).and_then(|_| {
            if f.body.is_empty() {
                return Ok(Dynamic::UNIT);
            }
            // The parameters are the scope's first entries, kept from one call of `f`
            // to the next (with the values each call gives them): the scope is the
            // same as if they were pushed anew.
            let n = f.params.len();
            if self.code.kept.get() == f.id && self.scope.len() == n {
                let slot = self.scope.slot_mut(0);
                match slot.write_lock::<TaskRef>() {
                    Some(mut t) => *t = task,
                    None => self.scope.assign_slot(0, Dynamic::from(task)),
                }
                for (i, v) in args.iter_mut().enumerate().skip(1) {
                    self.scope.assign_slot(i, std::mem::take(v));
                }
            } else {
                self.scope.rewind(0);
                args[0] = Dynamic::from(task);
                for (name, v) in f.params.iter().zip(args.iter_mut()) {
                    self.scope.push_access(name.clone(), AccessMode::ReadWrite, std::mem::take(v));
                }
                self.code.kept.set(f.id);
            }
            let r = match self.block(&f.body) {
                Ok(v) => Ok(v),
                Err(Flow::Return(v)) => Ok(v),
                // A system exception (a budget or size limit) keeps the position that
                // raised it, as the vendored Rhai's `call_script_fn` does (its patch 5).
                Err(Flow::Err(e)) => match *e {
                    EvalAltResult::Exit(v, _) => Ok(v),
                    _ => Err(e),
                },
                // `break` outside a loop does not parse.
                Err(Flow::Break(_) | Flow::Continue) => Ok(Dynamic::UNIT),
            };
            self.scope.rewind(n);
            r
        });
        self.engine.leave_call(self.state, lib);
        r
    }

    fn block(&mut self, body: &[St]) -> F<Dynamic> {
        let len = self.scope.len();
        let mut last = Dynamic::UNIT;
        for s in body {
            match self.stmt(s) {
                Ok(v) => last = v,
                Err(f) => {
                    self.scope.rewind(len);
                    return Err(f);
                }
            }
        }
        self.scope.rewind(len);
        Ok(last)
    }

    /// A loop body's end: `Some` ends the loop with its value.
    fn looped(&mut self, body: &[St]) -> F<Option<Dynamic>> {
        match self.block(body) {
            Ok(_) | Err(Flow::Continue) => Ok(None),
            Err(Flow::Break(v)) => Ok(Some(v)),
            Err(f) => Err(f),
        }
    }

    fn cond(&mut self, e: &Ex) -> F<bool> {
        // A comparison of integers gives its answer without making a value of it.
        if let Ex::Binary(p, call, op, args) = e {
            self.tick(*p)?;
            return match self.binary(*p, call, op, args)? {
                Ok(b) => Ok(b),
                Err(v) => v.as_bool().map_err(|t| Flow::Err(self.engine.type_mismatch("bool", t, *p))),
            };
        }
        let v = self.expr(e)?;
        v.as_bool().map_err(|t| Flow::Err(self.engine.type_mismatch("bool", t, e.pos())))
    }

    /// An operand as `get_arg_value` takes it, given as an integer where it is a
    /// writable one (a value made here need not be), else as the value.
    #[inline]
    fn int_arg(&mut self, a: &Arg) -> F<Result<i64, Dynamic>> {
        let v = match a {
            Arg::Literal(p, v) => {
                self.tick(*p)?;
                return Ok(v.as_int().map_err(|_| v.clone()));
            }
            Arg::Ex(Ex::Local(p, s)) => {
                self.tick(*p)?;
                let d = self.scope.slot_mut(*s);
                return Ok(match d.as_int() {
                    Ok(i) if !d.is_read_only() => Ok(i),
                    _ => Err(d.clone()),
                });
            }
            Arg::Ex(e) => self.expr(e)?,
        };
        Ok(match v.as_int() {
            Ok(i) if !v.is_read_only() => Ok(i),
            _ => Err(v),
        })
    }

    /// A binary operator (`eval_fn_call_expr`'s operator path, after its own
    /// operation): a comparison's answer as `Ok`, any other value as `Err`.
    fn binary(&mut self, p: Position, call: &FnCallExpr, op: &Bin, args: &[Arg; 2]) -> F<Result<bool, Dynamic>> {
        let l = self.int_arg(&args[0])?;
        let r = self.int_arg(&args[1])?;
        if let (Ok(a), Ok(b)) = (&l, &r) {
            let (a, b) = (*a, *b);
            let v = match op {
                Bin::Eq => return Ok(Ok(a == b)),
                Bin::Ne => return Ok(Ok(a != b)),
                Bin::Lt => return Ok(Ok(a < b)),
                Bin::Le => return Ok(Ok(a <= b)),
                Bin::Gt => return Ok(Ok(a > b)),
                Bin::Ge => return Ok(Ok(a >= b)),
                Bin::Add => a.checked_add(b),
                Bin::Sub => a.checked_sub(b),
                Bin::Mul => a.checked_mul(b),
                Bin::Other => None,
            };
            if let Some(v) = v {
                return Ok(Err(v.into()));
            }
        }
        let l = l.map_or_else(|d| d, Dynamic::from_int);
        let r = r.map_or_else(|d| d, Dynamic::from_int);
        if let (Ok(a), Ok(b)) = (l.as_bool(), r.as_bool()) {
            match op {
                Bin::Eq => return Ok(Ok(a == b)),
                Bin::Ne => return Ok(Ok(a != b)),
                _ => {}
            }
        }
        Ok(Err(self.engine.operator_with_state(self.state, call, &mut [l, r], p)?))
    }

    fn stmt(&mut self, s: &St) -> F<Dynamic> {
        match s {
            St::Rhai(s) => self.engine.eval_stmt_with_state(self.state, self.scope, s).map_err(Flow::from),
            St::Noop(p) => {
                self.tick(*p)?;
                Ok(Dynamic::UNIT)
            }
            St::Expr(p, e) | St::Call(p, e) => {
                self.tick(*p)?;
                if let St::Call(..) = s {
                    self.call_expr(e)
                } else {
                    self.expr(e)
                }
            }
            St::Block(p, b) => {
                self.tick(*p)?;
                if b.is_empty() {
                    return Ok(Dynamic::UNIT);
                }
                self.block(b)
            }
            St::Let { pos, name, init, access } => {
                self.tick(*pos)?;
                if self.scope.len() >= self.engine.max_variables() {
                    return Err(Flow::Err(EvalAltResult::ErrorTooManyVariables(*pos).into()));
                }
                let v = self.expr(init)?;
                self.scope.push_access(name.clone(), *access, v);
                Ok(Dynamic::UNIT)
            }
            St::Assign { pos, lhs, name, slot, rhs } => {
                self.tick(*pos)?;
                let v = self.expr(rhs)?;
                self.tick(*lhs)?;
                if self.scope.slot_mut(*slot).is_read_only() {
                    return Err(Flow::Err(EvalAltResult::ErrorAssignmentToConstant(name.to_string(), *lhs).into()));
                }
                self.scope.assign_slot(*slot, v);
                Ok(Dynamic::UNIT)
            }
            St::If { pos, cond, then, other } => {
                self.tick(*pos)?;
                let c = self.cond(cond)?;
                if c && !then.is_empty() {
                    self.block(then)
                } else if !c && !other.is_empty() {
                    self.block(other)
                } else {
                    Ok(Dynamic::UNIT)
                }
            }
            St::Loop { pos, body, body_pos } => {
                self.tick(*pos)?;
                if body.is_empty() {
                    loop {
                        self.tick(*body_pos)?;
                    }
                }
                loop {
                    if let Some(v) = self.looped(body)? {
                        return Ok(v);
                    }
                }
            }
            St::While { pos, cond, body } => {
                self.tick(*pos)?;
                loop {
                    if !self.cond(cond)? {
                        return Ok(Dynamic::UNIT);
                    }
                    if body.is_empty() {
                        continue;
                    }
                    if let Some(v) = self.looped(body)? {
                        return Ok(v);
                    }
                }
            }
            St::For { pos, var, var_pos, iter, iter_start, body, body_pos } => {
                self.tick(*pos)?;
                if self.scope.len() >= self.engine.max_variables() {
                    return Err(Flow::Err(EvalAltResult::ErrorTooManyVariables(*var_pos).into()));
                }
                let obj = self.expr(iter)?;
                let iter_pos = iter.pos();
                let len = self.scope.len();
                // An array's items as the standard package's iterator gives them
                // (`set_iterable::<Array>`: each moved out in turn), without boxing an
                // iterator; any other type through the engine's own lookup.
                let r = if obj.is_array() {
                    let items = obj.into_array().unwrap_or_default();
                    self.scope.push_access(var.clone(), AccessMode::ReadWrite, Dynamic::UNIT);
                    self.for_items(items.into_iter().map(Ok), len, iter_pos, body, *body_pos)
                } else {
                    let Some(items) = self.engine.iterate_with_state(self.state, obj) else {
                        return Err(Flow::Err(EvalAltResult::ErrorFor(*iter_start).into()));
                    };
                    self.scope.push_access(var.clone(), AccessMode::ReadWrite, Dynamic::UNIT);
                    self.for_items(items, len, iter_pos, body, *body_pos)
                };
                self.scope.rewind(len);
                r
            }
            St::Break(p, is_break, e) => {
                self.tick(*p)?;
                let v = match e {
                    Some(e) => self.expr(e)?,
                    None => Dynamic::UNIT,
                };
                Err(if *is_break { Flow::Break(v) } else { Flow::Continue })
            }
            St::Return(p, e) => {
                self.tick(*p)?;
                let v = match e {
                    Some(e) => self.expr(e)?,
                    None => Dynamic::UNIT,
                };
                Err(Flow::Return(v))
            }
        }
    }

    /// A helper's (or `kernel::NAME`'s) call: its arguments as `make_function_call`
    /// (or `make_qualified_function_call`) evaluates them, then [`bound_call`]. A first
    /// argument that is a variable is read where it is, not copied; so are the others
    /// when all are literals or variables (`Args::simple`), after their operations.
    #[inline(always)]
    fn helper_call(
        &mut self,
        p: Position,
        call: &FnCallExpr,
        params: &'static [P],
        helper: Helper,
        args: &Args,
        kernel: bool,
    ) -> F<Dynamic> {
        if let Some((vp, _)) = args.first_var {
            self.tick(vp)?;
        }
        let mut rest: rhai::StaticVec<Dynamic> = rhai::StaticVec::new();
        for a in &args.rest {
            match a {
                Arg::Literal(lp, _) if args.simple => self.tick(*lp)?,
                Arg::Ex(e) if args.simple => self.tick(e.pos())?,
                a => {
                    let v = self.arg(a)?;
                    rest.push(v);
                }
            }
        }
        let unit = Dynamic::UNIT;
        // At most 4 (`HELPERS`, `KERNEL`).
        let mut refs: [&Dynamic; 4] = [&unit; 4];
        let mut n = 0;
        if let Some((_, s)) = args.first_var {
            refs[0] = self.scope.slot(s);
            n = 1;
        }
        for (i, a) in args.rest.iter().enumerate() {
            refs[n] = match a {
                _ if !args.simple => &rest[i],
                Arg::Literal(_, v) => v,
                Arg::Ex(Ex::Local(_, s)) => self.scope.slot(*s),
                Arg::Ex(_) => &unit,
            };
            n += 1;
        }
        let budget = (self.until.get(), &self.code.token, self.seen);
        bound_call(self.engine, self.state, budget, p, call, params, helper, &refs[..n], kernel)
    }

    /// A `for` loop's body over `items`, its variable at scope slot `at`.
    fn for_items(
        &mut self,
        items: impl Iterator<Item = R<Dynamic>>,
        at: usize,
        iter_pos: Position,
        body: &[St],
        body_pos: Position,
    ) -> F<Dynamic> {
        if body.is_empty() {
            for _ in items {
                self.tick(body_pos)?;
            }
            return Ok(Dynamic::UNIT);
        }
        for item in items {
            let v = item.map_err(|e| self.engine.error_at(e, iter_pos))?;
            *self.scope.slot_mut(at) = v;
            if let Some(v) = self.looped(body)? {
                return Ok(v);
            }
        }
        Ok(Dynamic::UNIT)
    }

    fn arg(&mut self, a: &Arg) -> F<Dynamic> {
        match a {
            Arg::Literal(p, v) => {
                self.tick(*p)?;
                Ok(v.clone())
            }
            Arg::Ex(e) => self.expr(e),
        }
    }

    /// `eval_expr`: one operation, then the expression.
    fn expr(&mut self, e: &Ex) -> F<Dynamic> {
        if let Ex::Rhai(e) = e {
            return self.engine.eval_expr_with_state(self.state, self.scope, e).map_err(Flow::from);
        }
        self.tick(e.pos())?;
        self.call_expr(e)
    }

    /// An expression past its own operation (a call statement's call has none).
    fn call_expr(&mut self, e: &Ex) -> F<Dynamic> {
        match e {
            Ex::Rhai(e) => self.engine.eval_expr_with_state(self.state, self.scope, e).map_err(Flow::from),
            Ex::Const(_, v) => Ok(v.clone()),
            Ex::Local(_, s) => Ok(self.scope.slot_mut(*s).clone()),
            Ex::And(_, xs) | Ex::Or(_, xs) => {
                let and = matches!(e, Ex::And(..));
                for x in xs {
                    if self.cond(x)? != and {
                        return Ok((!and).into());
                    }
                }
                Ok(and.into())
            }
            Ex::Not(p, call, a) => {
                let v = self.arg(a)?;
                match v.as_bool() {
                    Ok(b) => Ok((!b).into()),
                    Err(_) => Ok(self.engine.operator_with_state(self.state, call, &mut [v], *p)?),
                }
            }
            Ex::Neg(p, call, a) => {
                let v = self.arg(a)?;
                match v.as_int() {
                    Ok(n) => match n.checked_neg() {
                        Some(n) => Ok(n.into()),
                        None => Err(Flow::Err(EvalAltResult::ErrorArithmetic("integer overflow".into(), *p).into())),
                    },
                    Err(_) => Ok(self.engine.operator_with_state(self.state, call, &mut [v], *p)?),
                }
            }
            Ex::Unary(p, call, a) => {
                let v = self.arg(a)?;
                Ok(self.engine.operator_with_state(self.state, call, &mut [v], *p)?)
            }
            Ex::Binary(p, call, op, args) => self.binary(*p, call, op, args).map(|v| v.map_or_else(|d| d, Into::into)),
            Ex::Helper(p, call, params, helper, args) | Ex::Kernel(p, call, params, helper, args) => {
                self.helper_call(*p, call, params, *helper, args, matches!(e, Ex::Kernel(..)))
            }
        }
    }
}

/// A helper's (or `kernel::NAME`'s) call once its arguments are evaluated, as
/// `exec_native_fn_call` (one operation, the call, the size of what it returned, its
/// error placed at the call) or `exec_qualified_fn_call_raw` (neither) runs it; with
/// arguments of other types, Rhai's own call (which finds what else takes them, or
/// says that nothing does). `trace` is bound by its argument's type.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn bound_call(
    engine: &Engine,
    state: &mut CallState,
    (until, token, seen): (u64, &Dynamic, &std::cell::Cell<u64>),
    p: Position,
    call: &FnCallExpr,
    params: &'static [P],
    helper: Helper,
    vals: &[&Dynamic],
    kernel: bool,
) -> F<Dynamic> {
    let (params, helper) = match helper {
        Hp::TraceStr | Hp::TraceInt if vals.len() == 1 && vals[0].is_int() => (&[P::Int][..], Hp::TraceInt),
        Hp::TraceStr | Hp::TraceInt => (&[P::Str][..], Hp::TraceStr),
        _ => (params, helper),
    };
    if !matches(params, vals) {
        let mut owned: Vec<Dynamic> = vals.iter().map(|v| (*v).clone()).collect();
        return Ok(if kernel {
            engine.qualified_with_state(state, call, &mut owned, p)?
        } else {
            engine.call_with_state(state, call, &mut owned, p)?
        });
    }
    if kernel {
        return Ok(helper.call(vals)?);
    }
    engine.count_operation_until(state, p, until, token, seen)?;
    match helper.call(vals) {
        Ok(v) if v.is_array() => Ok(engine.check_size_with_state(v, p)?),
        Ok(v) => Ok(v),
        Err(e) => Err(Flow::Err(engine.error_at(e, p))),
    }
}
