//! Wakeup migrations by distance from prev (SMT sibling, same LLC, across LLCs, across
//! nodes), per thousand wakeups, one bar per kernel in each group.

use super::{category_label, e2s, frame, legend, style_mesh, ChartResult, ChartTheme};
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
    let top = values.iter().flatten().copied().fold(0f64, f64::max);
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let names: Vec<String> = DISTANCES.iter().map(|s| s.to_string()).collect();
    let n = names.len();
    let mut chart = ChartBuilder::on(root)
        .caption("Wakeup migrations by distance from prev, per 1000 wakeups", th.text(1.1))
        .margin(th.px(10.0))
        .x_label_area_size(th.px(44.0))
        .y_label_area_size(th.px(70.0))
        .build_cartesian_2d(-0.5f64..3.5, 0f64..top)
        .map_err(e2s)?;
    let fmt = |x: &f64| category_label(*x, &names);
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.disable_x_mesh()
        .x_labels(2 * n + 2)
        .x_label_formatter(&fmt)
        .y_desc("migrations / 1000 wakeups")
        .draw()
        .map_err(e2s)?;
    let k = values.len().max(1) as f64;
    let group = 0.8;
    let bw = group / k;
    for (ci, (c, v)) in r.configs.iter().zip(&values).enumerate() {
        let color = th.color(ci);
        chart
            .draw_series(v.iter().enumerate().map(|(i, &y)| {
                let x0 = i as f64 - group / 2.0 + ci as f64 * bw;
                Rectangle::new([(x0 + bw * 0.08, 0.0), (x0 + bw * 0.92, y)], color.filled())
            }))
            .map_err(e2s)?
            .label(schedsim::kernel::name_with_label(&c.name, &c.label))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    legend(&mut chart, th, SeriesLabelPosition::UpperRight)
}
