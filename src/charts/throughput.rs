//! Throughput (or time) against client count, one line per kernel, with ±1 standard
//! deviation bars: the headline of every sweep.

use super::{category_label, e2s, frame, legend, style_mesh, ChartResult, ChartTheme};
use plotters::coord::Shift;
use plotters::prelude::*;
use schedsim::Report;

pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, r: &Report, th: &ChartTheme) -> ChartResult {
    frame(root, th)?;
    let m = &r.metric;
    let names: Vec<String> = r.configs[0].points.iter().map(|p| p.clients.to_string()).collect();
    let n = names.len().max(1);
    let mut top = 0f64;
    for c in &r.configs {
        for p in &c.points {
            let v = p.summary(m) + p.stddev();
            if v.is_finite() {
                top = top.max(v);
            }
        }
    }
    let top = if top > 0.0 { top * 1.12 } else { 1.0 };
    let summary = if m.higher_is_better { "Hmean" } else { "Amean" };
    let better = if m.higher_is_better { "higher is better" } else { "lower is better" };
    let mut chart = ChartBuilder::on(root)
        .caption(format!("{} {} ({}), ±1 stddev, {}", summary, m.name, m.unit, better), th.text(1.1))
        .margin(th.px(10.0))
        .x_label_area_size(th.px(44.0))
        .y_label_area_size(th.px(70.0))
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)
        .map_err(e2s)?;
    let fmt = |x: &f64| category_label(*x, &names);
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.x_labels(2 * n + 2)
        .x_label_formatter(&fmt)
        .x_desc(r.experiment.workload.clients_meaning())
        .y_desc(format!("{} ({})", m.name, m.unit))
        .draw()
        .map_err(e2s)?;
    let k = r.configs.len() as f64;
    for (ci, c) in r.configs.iter().enumerate() {
        let color = th.color(ci);
        // Spread the kernels a little around each category so error bars do not overlap.
        let off = if k > 1.0 { (ci as f64 - (k - 1.0) / 2.0) * 0.12 } else { 0.0 };
        let pts: Vec<(f64, f64, f64)> =
            c.points.iter().enumerate().map(|(i, p)| (i as f64 + off, p.summary(m), p.stddev())).collect();
        chart
            .draw_series(LineSeries::new(pts.iter().map(|&(x, y, _)| (x, y)), color.stroke_width(th.px(2.0))))
            .map_err(e2s)?
            .label(format!("{} ({})", c.name, c.label))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3)));
        chart.draw_series(pts.iter().map(|&(x, y, _)| Circle::new((x, y), th.px(4.0), color.filled()))).map_err(e2s)?;
        // Caps a few pixels wide whatever the number of categories.
        let w = 0.012 * n as f64;
        for &(x, y, sd) in &pts {
            if sd > 0.0 && sd.is_finite() {
                let (lo, hi) = ((y - sd).max(0.0), y + sd);
                let st = color.stroke_width(th.px(1.5));
                chart
                    .draw_series([
                        PathElement::new(vec![(x, lo), (x, hi)], st),
                        PathElement::new(vec![(x - w, lo), (x + w, lo)], st),
                        PathElement::new(vec![(x - w, hi), (x + w, hi)], st),
                    ])
                    .map_err(e2s)?;
            }
        }
    }
    let pos = if m.higher_is_better { SeriesLabelPosition::LowerRight } else { SeriesLabelPosition::UpperLeft };
    legend(&mut chart, th, pos)
}
