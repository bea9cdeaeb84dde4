//! Compiling a policy script's hook functions into the tree `fast` runs
//! (`state::policy_code`): each statement and expression of Rhai's syntax tree either
//! becomes a node of its own, with its variables resolved to the scope slots they will
//! have and its helper or `kernel::NAME` calls bound to the helper, or is kept as Rhai's
//! node to be handed back to Rhai. Which helpers a call can be bound to, and the types
//! each takes, are the tables here, as `engine::register_helpers` and
//! `engine::kernel_module` register them.

use rhai::{ASTFlags, AccessMode, Expr, FnCallExpr, ImmutableString, Position, Stmt, Token, AST};

use crate::state::policy_code::{Arg, Args, Bin, Compiled, Ex, Func, Helper, St, P};

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
