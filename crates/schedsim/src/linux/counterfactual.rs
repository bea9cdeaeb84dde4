//! The A/B diff's question, asked from inside `ttwu_place`: what would kernel B do
//! with this wakeup? B's own decision code runs on a copy of the whole simulation, so
//! nothing it writes reaches A's run.

use crate::linux::wakeup::Wakeup;
use crate::state::Sim;

impl Sim {
    /// Asks kernel B what it would do with this wakeup, on a copy of the simulation;
    /// called by `ttwu_place` before A decides, while A's trace of it is open.
    pub(crate) fn diff_counterfactual(&mut self, w: Wakeup, cost: u64) {
        let Some(mut cf) = self.diff.take() else { return };
        // What B cannot touch, or only grows, stays out of the copy.
        let traces = std::mem::take(&mut self.traces);
        let rec = self.rec.take();
        let moments = std::mem::take(&mut self.wasted_moments);
        let mut b = self.clone();
        self.traces = traces;
        self.rec = rec;
        self.wasted_moments = moments;
        b.cfg = cf.cfg;
        // A's policy script is A's: B is the kernel B names, with B's script if it
        // has one (kept here between wakeups: its stream and budget go on).
        #[cfg(feature = "policy")]
        {
            b.policy = self.diff_policy.take();
            b.hooks = b.policy.as_ref().map_or(0, |r| r.policy.hooks);
        }
        b.doms = cf.doms.clone();
        b.ttwu_place(w, cost);
        #[cfg(feature = "policy")]
        {
            self.diff_policy = b.policy.take();
        }
        if let Some(e) = b.error.take() {
            // B's script failed (its line and budget are in `e`): the diff fails with it.
            self.fail(format!("kernel B: {e}"));
        }
        if let Some(t) = b.traces.pop() {
            cf.pending.push_back((t, self.cpu_views()));
        }
        self.diff = Some(cf);
    }
}
