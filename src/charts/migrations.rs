//! Wakeup migrations by distance from prev (SMT sibling, same LLC, across LLCs, across
//! nodes), per thousand wakeups, one bar per kernel in each group.

use super::{frame, grouped_bars, titled, ChartResult, ChartTheme};
use plotters::coord::Shift;
use plotters::prelude::*;
use schedsim::Report;

/// The four distances, per 1000 wakeups, of kernel `c`'s totals.
pub fn per_kilo_wakeup(t: &schedsim::metrics::Counters) -> [f64; 4] {
    let w = t.wakeups.max(1) as f64 / 1000.0;
    [
        t.migrations_smt as f64 / w,
        t.migrations_llc as f64 / w,
        t.migrations_cross_llc as f64 / w,
        t.migrations_cross_node as f64 / w,
    ]
}

pub const DISTANCES: [&str; 4] = ["SMT sibling", "same LLC", "cross-LLC", "cross-node"];

pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, r: &Report, th: &ChartTheme) -> ChartResult {
    frame(root, th)?;
    let values: Vec<[f64; 4]> = r.configs.iter().map(|c| per_kilo_wakeup(&c.total())).collect();
    let area = titled(root, "Wakeup migrations by distance from prev, per 1000 wakeups", th, 1.1)?;
    let (chart, _, legend) = grouped_bars(&area, r, th, DISTANCES, "migrations / 1000 wakeups", &values)?;
    legend.draw(&chart, th, SeriesLabelPosition::UpperRight)
}
