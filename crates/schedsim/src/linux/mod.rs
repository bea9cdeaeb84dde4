//! Floor 3, the modelled kernel: `schedule()` and the context switch, idle entry and
//! exit, `try_to_wake_up` and CPU selection, `select_idle_sibling`, load balancing and
//! the shared runqueue, each as `impl Sim` blocks over the state of floor 2. Its files
//! call each other as `core.c`, `fair.c` and `idle.c` do; nothing here runs the event
//! loop, and nothing outside it decides where a task goes.

pub(crate) mod balance;
pub(crate) mod counterfactual;
pub(crate) mod eevdf;
pub(crate) mod enqueue;
pub(crate) mod idle;
pub(crate) mod irq;
#[cfg(feature = "policy")]
pub(crate) mod policy;
pub(crate) mod preempt;
pub(crate) mod sched;
pub(crate) mod shared_runq;
pub(crate) mod sis;
pub(crate) mod tick;
pub(crate) mod wakeup;
