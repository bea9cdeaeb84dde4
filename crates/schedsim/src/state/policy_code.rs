//! A policy script's functions compiled (feature `policy`): the tree that
//! `linux::policy::fast` makes of a script's hook functions and runs, as the policy
//! holds it. Each node keeps the positions at which Rhai's evaluator counts its
//! operations, and what it hands back to Rhai (`Rhai` nodes) is Rhai's own syntax tree.

use rhai::{AccessMode, Dynamic, Expr, FnCallExpr, ImmutableString, Position, Stmt};

/// A helper a script calls by name, bound at compile time.
#[derive(Clone, Copy)]
pub(crate) enum Helper {
    IdleCpu,
    AvailableIdleCpu,
    CpusShareCache,
    TaskCpu,
    SmpProcessorId,
    NrCpuIds,
    Rq(u8),
    IsCpuAllowed,
    Span(u8),
    SchedGroups,
    SdLlc,
    SchedSmtActive,
    TestIdleCores,
    Current,
    IsPerCpuKthread,
    DefaultSelectCpu,
    TraceStr,
    TraceInt,
    PrandomU32,
    SchedstatInc,
    KernelSelectTaskRq,
    KernelWakeWide,
    KernelWakeAffine,
    KernelSis,
    KernelSelectIdleSmt,
    KernelSelectIdleCpu,
}

/// The type a helper's parameter takes.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum P {
    Int,
    Bool,
    Str,
    Task,
}

/// An argument as `get_arg_value` takes it: a literal (one operation at its start), or
/// an expression.
pub(crate) enum Arg {
    Literal(Position, Dynamic),
    Ex(Ex),
}

/// A call's arguments: Rhai passes a first argument that is a variable by reference,
/// counting one operation at it before the others are evaluated.
pub(crate) struct Args {
    pub(crate) first_var: Option<(Position, usize)>,
    pub(crate) rest: Vec<Arg>,
    /// Every argument after the first is a literal or a variable: all are read where
    /// they are, none copied.
    pub(crate) simple: bool,
}

pub(crate) enum Bin {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Other,
}

pub(crate) enum Ex {
    /// Handed back to Rhai.
    Rhai(Box<Expr>),
    Const(Position, Dynamic),
    Local(Position, usize),
    And(Position, Vec<Ex>),
    Or(Position, Vec<Ex>),
    Not(Position, Box<FnCallExpr>, Box<Arg>),
    Neg(Position, Box<FnCallExpr>, Box<Arg>),
    Unary(Position, Box<FnCallExpr>, Box<Arg>),
    Binary(Position, Box<FnCallExpr>, Bin, Box<[Arg; 2]>),
    Helper(Position, Box<FnCallExpr>, &'static [P], Helper, Args),
    Kernel(Position, Box<FnCallExpr>, &'static [P], Helper, Args),
}

impl Ex {
    /// The position `eval_expr` counts the operation at.
    pub(crate) fn pos(&self) -> Position {
        match self {
            Ex::Rhai(e) => e.position(),
            Ex::Const(p, _)
            | Ex::Local(p, _)
            | Ex::And(p, _)
            | Ex::Or(p, _)
            | Ex::Not(p, ..)
            | Ex::Neg(p, ..)
            | Ex::Unary(p, ..)
            | Ex::Binary(p, ..)
            | Ex::Helper(p, ..)
            | Ex::Kernel(p, ..) => *p,
        }
    }
}

pub(crate) enum St {
    /// Handed back to Rhai.
    Rhai(Box<Stmt>),
    Noop(Position),
    Expr(Position, Ex),
    Call(Position, Ex),
    Block(Position, Vec<St>),
    Let {
        pos: Position,
        name: ImmutableString,
        init: Ex,
        access: AccessMode,
    },
    Assign {
        pos: Position,
        lhs: Position,
        name: ImmutableString,
        slot: usize,
        rhs: Ex,
    },
    If {
        pos: Position,
        cond: Ex,
        then: Vec<St>,
        other: Vec<St>,
    },
    Loop {
        pos: Position,
        body: Vec<St>,
        body_pos: Position,
    },
    While {
        pos: Position,
        cond: Ex,
        body: Vec<St>,
    },
    For {
        pos: Position,
        var: ImmutableString,
        var_pos: Position,
        iter: Ex,
        iter_start: Position,
        body: Vec<St>,
        body_pos: Position,
    },
    Break(Position, bool, Option<Ex>),
    Return(Position, Option<Ex>),
}

/// One compiled function of the script.
pub(crate) struct Func {
    /// Its place in [`Compiled`].
    pub(crate) id: usize,
    pub(crate) name: ImmutableString,
    pub(crate) params: Vec<ImmutableString>,
    pub(crate) body: Vec<St>,
}

/// The script's functions that the wakeup path calls, compiled.
pub(crate) struct Compiled {
    pub(crate) fns: Vec<Func>,
    /// `linux::policy::engine::budget_token()`, made once.
    pub(crate) token: Dynamic,
    /// Which function's parameters the policy's scope holds between calls
    /// (`usize::MAX`: none; the scope is emptied when the interpreter runs a call).
    pub(crate) kept: std::cell::Cell<usize>,
}
