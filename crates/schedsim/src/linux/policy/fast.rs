//! A policy script's functions compiled once into a tree the policy runs directly: the
//! same operations Rhai's evaluator performs, in the same order and counted the same
//! (one per statement and per expression, one per literal or by-reference argument,
//! one per native call), with each variable resolved to its scope slot and each call of
//! a helper or of `kernel::NAME` bound to the helper, with no function lookup by name
//! and argument types. Anything else (method calls, indexing, the script's own
//! functions, `switch`, op-assignments, values of other types at an operator or a
//! helper) is handed back to Rhai at that node with the same state and scope, so a
//! compiled call gives what Rhai's own would: the same answer, the same helper reads,
//! the same operation count and the same error at the same line
//! (`tests/policy.rs`: `compiled_and_interpreted_scripts_agree`).
//!
//! Why: Rhai's evaluator resolves every call by name and argument types at run time;
//! for the templates that is most of a script's cost (README, "Policy scripts").

use rhai::{
    ASTFlags, AccessMode, CallState, Dynamic, Engine, EvalAltResult, Expr, FnCallExpr, ImmutableString, Position,
    Scope, Stmt, Token, AST,
};

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

/// The helpers of `engine::register_helpers` a call can be bound to: name, parameters.
const HELPERS: &[(&str, &[P], Helper)] = &[
    ("idle_cpu", &[P::Int], Hp::IdleCpu),
    ("available_idle_cpu", &[P::Int], Hp::AvailableIdleCpu),
    ("cpus_share_cache", &[P::Int, P::Int], Hp::CpusShareCache),
    ("task_cpu", &[P::Task], Hp::TaskCpu),
    ("cpu_of", &[P::Task], Hp::TaskCpu),
    ("smp_processor_id", &[], Hp::SmpProcessorId),
    ("nr_cpu_ids", &[], Hp::NrCpuIds),
    ("nr_running", &[P::Int], Hp::Rq(0)),
    ("cpu_util", &[P::Int], Hp::Rq(1)),
    ("capacity_of", &[P::Int], Hp::Rq(2)),
    ("is_cpu_allowed", &[P::Task, P::Int], Hp::IsCpuAllowed),
    ("llc_cpus", &[P::Int], Hp::Span(0)),
    ("core_cpus", &[P::Int], Hp::Span(1)),
    ("node_cpus", &[P::Int], Hp::Span(2)),
    ("sched_groups", &[P::Int], Hp::SchedGroups),
    ("sd_llc", &[P::Int], Hp::SdLlc),
    ("sched_smt_active", &[], Hp::SchedSmtActive),
    ("test_idle_cores", &[P::Int], Hp::TestIdleCores),
    ("current", &[], Hp::Current),
    ("is_per_cpu_kthread", &[P::Task], Hp::IsPerCpuKthread),
    ("default_select_cpu", &[P::Task, P::Int, P::Int], Hp::DefaultSelectCpu),
    ("trace", &[P::Str], Hp::TraceStr),
    ("trace", &[P::Int], Hp::TraceInt),
    ("prandom_u32", &[], Hp::PrandomU32),
    ("schedstat_inc", &[P::Str], Hp::SchedstatInc),
];

/// `kernel::NAME` (`engine::kernel_module`).
const KERNEL: &[(&str, &[P], Helper)] = &[
    ("select_task_rq_fair", &[P::Task, P::Int, P::Int], Hp::KernelSelectTaskRq),
    ("wake_wide", &[P::Task], Hp::KernelWakeWide),
    ("wake_affine", &[P::Task, P::Int, P::Int, P::Bool], Hp::KernelWakeAffine),
    ("select_idle_sibling", &[P::Task, P::Int, P::Int], Hp::KernelSis),
    ("select_idle_smt", &[P::Task, P::Int], Hp::KernelSelectIdleSmt),
    ("select_idle_cpu", &[P::Task, P::Bool, P::Int], Hp::KernelSelectIdleCpu),
];

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

struct Compiler<'a> {
    /// Names of the scope's variables, as the compiled code will have pushed them.
    names: Vec<ImmutableString>,
    /// Script functions (name, parameters), which a call of that name reaches before
    /// any helper.
    script_fns: &'a [(ImmutableString, usize)],
}

impl Compiled {
    /// Compiles the functions named in `hooks` of `ast`.
    pub(crate) fn new(ast: &AST, hooks: &[&str]) -> Compiled {
        let script_fns: Vec<(ImmutableString, usize)> =
            ast.iter_fn_def().map(|f| (f.name.clone(), f.params.len())).collect();
        let mut fns = Vec::new();
        for f in ast.iter_fn_def() {
            if !hooks.contains(&f.name.as_str()) || f.this_type.is_some() {
                continue;
            }
            #[allow(irrefutable_let_patterns)]
            let rhai::ScriptFuncPayload::Statements(ref body) = f.body
            else {
                continue;
            };
            let mut c = Compiler { names: f.params.iter().cloned().collect(), script_fns: &script_fns };
            let body = c.block(body.statements());
            fns.push(Func { id: fns.len(), name: f.name.clone(), params: f.params.iter().cloned().collect(), body });
        }
        Compiled { fns, token: super::engine::budget_token(), kept: std::cell::Cell::new(usize::MAX) }
    }

    pub(crate) fn get(&self, name: &str, n: usize) -> Option<&Func> {
        self.fns.iter().find(|f| f.name == name && f.params.len() == n)
    }
}

impl Compiler<'_> {
    fn slot(&self, name: &str) -> Option<usize> {
        self.names.iter().rposition(|n| n == name)
    }

    fn block(&mut self, stmts: &[Stmt]) -> Vec<St> {
        let len = self.names.len();
        let out = stmts.iter().map(|s| self.stmt(s)).collect();
        self.names.truncate(len);
        out
    }

    fn stmt(&mut self, s: &Stmt) -> St {
        let pos = s.position();
        let rhai = || St::Rhai(Box::new(s.clone()));
        match s {
            Stmt::Noop(..) => St::Noop(pos),
            Stmt::Expr(e) => St::Expr(pos, self.expr(e)),
            Stmt::FnCall(call, cpos) => match self.call(call, *cpos, &Expr::FnCall(call.clone(), *cpos)) {
                // `eval_stmt` runs a call statement's call without `eval_expr`'s operation.
                Ex::Rhai(_) => rhai(),
                e => St::Call(pos, e),
            },
            Stmt::Block(b) => St::Block(pos, self.block(b.statements())),
            Stmt::Var(x, options, _) if x.2.is_none() && !options.contains(ASTFlags::EXPORTED) => {
                let init = self.expr(&x.1);
                self.names.push(x.0.name.clone());
                let access =
                    if options.contains(ASTFlags::CONSTANT) { AccessMode::ReadOnly } else { AccessMode::ReadWrite };
                St::Let { pos, name: x.0.name.clone(), init, access }
            }
            Stmt::Assignment(x) if !x.0.is_op_assignment() => {
                let Expr::Variable(v, _, lhs_pos) = &x.1.lhs else { return rhai() };
                if !v.2.is_empty() {
                    return rhai();
                }
                let Some(slot) = self.slot(&v.1) else { return rhai() };
                St::Assign { pos, lhs: *lhs_pos, name: v.1.clone(), slot, rhs: self.expr(&x.1.rhs) }
            }
            Stmt::If(x, _) => {
                let cond = self.expr(&x.expr);
                St::If { pos, cond, then: self.block(x.body.statements()), other: self.block(x.branch.statements()) }
            }
            Stmt::While(x, _) if matches!(x.expr, Expr::Unit(..) | Expr::BoolConstant(true, ..)) => {
                St::Loop { pos, body_pos: x.body.position(), body: self.block(x.body.statements()) }
            }
            Stmt::While(x, _) => St::While { pos, cond: self.expr(&x.expr), body: self.block(x.body.statements()) },
            Stmt::For(x, _) if x.1.is_none() => {
                let (var, _, fc) = &**x;
                let iter = self.expr(&fc.expr);
                self.names.push(var.name.clone());
                let body = self.block(fc.body.statements());
                self.names.pop();
                St::For {
                    pos,
                    var: var.name.clone(),
                    var_pos: var.pos,
                    iter,
                    iter_start: fc.expr.start_position(),
                    body,
                    body_pos: fc.body.position(),
                }
            }
            Stmt::BreakLoop(e, options, bpos) => {
                St::Break(*bpos, options.contains(ASTFlags::BREAK), e.as_ref().map(|e| self.expr(e)))
            }
            Stmt::Return(e, options, rpos) if !options.contains(ASTFlags::BREAK) => {
                St::Return(*rpos, e.as_ref().map(|e| self.expr(e)))
            }
            _ => rhai(),
        }
    }

    fn arg(&mut self, e: &Expr) -> Arg {
        match e.get_literal_value(None) {
            Some(v) => Arg::Literal(e.start_position(), v),
            None => Arg::Ex(self.expr(e)),
        }
    }

    fn expr(&mut self, e: &Expr) -> Ex {
        let pos = e.position();
        match e {
            Expr::DynamicConstant(..)
            | Expr::IntegerConstant(..)
            | Expr::CharConstant(..)
            | Expr::StringConstant(..)
            | Expr::BoolConstant(..)
            | Expr::Unit(..) => match e.get_literal_value(None) {
                Some(v) => Ex::Const(pos, v),
                None => Ex::Rhai(Box::new(e.clone())),
            },
            Expr::Variable(v, ..) if v.2.is_empty() => match self.slot(&v.1) {
                Some(s) => Ex::Local(pos, s),
                None => Ex::Rhai(Box::new(e.clone())),
            },
            Expr::And(x, _) => Ex::And(pos, x.iter().map(|e| self.expr(e)).collect()),
            Expr::Or(x, _) => Ex::Or(pos, x.iter().map(|e| self.expr(e)).collect()),
            Expr::FnCall(call, cpos) => self.call(call, *cpos, e),
            _ => Ex::Rhai(Box::new(e.clone())),
        }
    }

    /// Arguments of a call that is not an operator, as `make_function_call` and
    /// `make_qualified_function_call` evaluate them.
    fn args(&mut self, args: &[Expr]) -> Option<Args> {
        let mut first_var = None;
        let mut rest = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if i == 0 {
                if let Expr::Variable(v, _, p) = a {
                    if !v.2.is_empty() {
                        return None;
                    }
                    first_var = Some((*p, self.slot(&v.1)?));
                    continue;
                }
            }
            rest.push(self.arg(a));
        }
        let simple = rest.iter().all(|a| matches!(a, Arg::Literal(..) | Arg::Ex(Ex::Local(..))));
        Some(Args { first_var, rest, simple })
    }

    fn call(&mut self, call: &FnCallExpr, pos: Position, e: &Expr) -> Ex {
        let rhai = || Ex::Rhai(Box::new(e.clone()));
        let n = call.args.len();
        if call.capture_parent_scope {
            return rhai();
        }
        if let Some(op) = &call.op_token {
            if !call.namespace.is_empty() {
                return rhai();
            }
            let boxed = Box::new(call.clone());
            if n == 1 {
                let a = Box::new(self.arg(&call.args[0]));
                return match op {
                    Token::Bang => Ex::Not(pos, boxed, a),
                    Token::Minus | Token::UnaryMinus => Ex::Neg(pos, boxed, a),
                    _ => Ex::Unary(pos, boxed, a),
                };
            }
            if n == 2 {
                let bin = match op {
                    Token::EqualsTo => Bin::Eq,
                    Token::NotEqualsTo => Bin::Ne,
                    Token::LessThan => Bin::Lt,
                    Token::LessThanEqualsTo => Bin::Le,
                    Token::GreaterThan => Bin::Gt,
                    Token::GreaterThanEqualsTo => Bin::Ge,
                    Token::Plus => Bin::Add,
                    Token::Minus => Bin::Sub,
                    Token::Multiply => Bin::Mul,
                    _ => Bin::Other,
                };
                let args = Box::new([self.arg(&call.args[0]), self.arg(&call.args[1])]);
                return Ex::Binary(pos, boxed, bin, args);
            }
            return rhai();
        }
        let table = if call.namespace.is_empty() {
            if self.script_fns.iter().any(|(f, k)| f == &call.name && *k == n) {
                return rhai();
            }
            HELPERS
        } else if call.namespace.path.len() == 1 && call.namespace.path[0].name == "kernel" {
            KERNEL
        } else {
            return rhai();
        };
        let found: Vec<&(&str, &[P], Helper)> =
            table.iter().filter(|(name, p, _)| *name == call.name.as_str() && p.len() == n).collect();
        // One binding per name and arity; `trace` has two (a string, an integer), told
        // apart when called.
        let Some(&&(_, params, helper)) = found.first() else { return rhai() };
        let Some(args) = self.args(&call.args) else { return rhai() };
        let boxed = Box::new(call.clone());
        if table.as_ptr() == KERNEL.as_ptr() {
            Ex::Kernel(pos, boxed, params, helper, args)
        } else {
            Ex::Helper(pos, boxed, params, helper, args)
        }
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
    pub until: u64,
    pub token: &'a Dynamic,
    /// [`Compiled::kept`].
    pub kept: &'a std::cell::Cell<usize>,
}

impl Run<'_> {
    #[inline(always)]
    fn tick(&mut self, pos: Position) -> R<()> {
        self.engine.count_operation_until(self.state, pos, self.until, self.token, self.seen)
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
            if self.kept.get() == f.id && self.scope.len() == n {
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
                self.kept.set(f.id);
            }
            let r = match self.block(&f.body) {
                Ok(v) => Ok(v),
                Err(Flow::Return(v)) => Ok(v),
                Err(Flow::Err(mut e)) => match *e {
                    EvalAltResult::Exit(v, _) => Ok(v),
                    _ if e.is_system_exception() => {
                        e.set_position(Position::NONE);
                        Err(e)
                    }
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
        let budget = (self.until, self.token, self.seen);
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
