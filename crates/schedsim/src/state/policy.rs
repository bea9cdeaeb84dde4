//! The policy script a kernel column carries (feature `policy`), as a run holds it:
//! the compiled script, which of the wakeup path's functions it defines, and the run's
//! own state of it (its random stream and what is left of its operation budget). The
//! engine and its helpers are the kernel model's (`linux::policy`); this floor only
//! holds them.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::facts::rng::Pcg64;

/// A compiled script. Shared (`Rc`) by the copies of a run the A/B diff makes, which
/// is why the counters the engine's progress callback reads are cells that each call
/// sets before it starts.
pub(crate) struct Policy {
    pub engine: rhai::Engine,
    pub ast: rhai::AST,
    /// The `facts::policy::HOOK_*` bits of the functions the script defines.
    pub hooks: u8,
    /// The script's text, to find the line of a function's definition.
    pub source: String,
    /// Operations the current call has made (set by the progress callback).
    pub ops: Rc<Cell<u64>>,
    /// Operations the run has left when the current call started.
    pub ops_left: Rc<Cell<u64>>,
    /// The one scope every call runs in, empty between calls: its buffers are kept
    /// rather than allocated for each call.
    pub scope: RefCell<rhai::Scope<'static>>,
    /// Rhai's runtime state and function-resolution caches, kept from one call to the
    /// next (`rhai::CallState`, patch 1 of the vendored Rhai's five).
    pub call: RefCell<rhai::CallState>,
    /// The functions the wakeup path calls, compiled (`linux::policy::fast`); `None`
    /// runs them in Rhai's own evaluator (`facts::policy::interpret_only`).
    pub fast: Option<crate::state::policy_code::Compiled>,
}

/// A run's policy: the script and the run's own state of it.
#[derive(Clone)]
pub(crate) struct PolicyRun {
    pub policy: Rc<Policy>,
    /// `prandom_u32()`'s stream: from the run's seed, apart from the simulation's own
    /// stream so that a script's draws move no arrival.
    pub rng: Pcg64,
    /// What is left of the run's operation budget.
    pub ops_left: u64,
    /// What is left of the run's `trace()` text (`facts::policy::TRACE_TEXT_RUN_MAX`).
    pub trace_bytes_left: usize,
}
