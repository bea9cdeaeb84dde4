//! Kernel B of the A/B diff, carried by kernel A's simulation while it runs, and B's
//! answers so far: the plain data that `linux::counterfactual` fills in and
//! `api::diff` pairs with A's decisions.

use crate::facts::domains::Domains;
use crate::facts::kernel::KernelConfig;
use crate::facts::trace::WakeupTrace;
use crate::facts::views::CpuView;
use std::collections::VecDeque;
use std::sync::Arc;

/// Kernel B, carried by A's simulation while it runs, and B's answers so far.
#[derive(Clone)]
pub(crate) struct Counterfactual {
    pub cfg: KernelConfig,
    pub doms: Arc<Domains>,
    /// B's traces with the CPUs as they were, in wakeup order, until paired with A's.
    pub pending: VecDeque<(WakeupTrace, Vec<CpuView>)>,
}
