//! Live mode: migrations of every kernel so far, over simulated time.

use super::{e2s, frame, legend, style_mesh, ChartResult, ChartTheme};
use crate::live_session::LivePoint;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Earlier series are drawn wider, so identical series stay visible under later ones.
fn width(i: usize, n: usize) -> f64 {
    1.5 + 1.5 * (n.saturating_sub(1 + i)) as f64
}

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &[Vec<LivePoint>],
    names: &[String],
    th: &ChartTheme,
) -> ChartResult {
    frame(root, th)?;
    let t_max = series.iter().flatten().map(|p| p.t_ns as f64 / 1e6).fold(0f64, f64::max).max(0.001);
    let top = series.iter().flatten().map(|p| p.migrations as f64).fold(0f64, f64::max);
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let mut chart = ChartBuilder::on(root)
        .caption("Wakeup and balance migrations so far", th.text(1.1))
        .margin(th.px(10.0))
        .x_label_area_size(th.px(40.0))
        .y_label_area_size(th.px(70.0))
        .build_cartesian_2d(0f64..t_max, 0f64..top)
        .map_err(e2s)?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.x_desc("simulated ms").y_desc("migrations").draw().map_err(e2s)?;
    for (i, s) in series.iter().enumerate() {
        let color = th.color(i);
        chart
            .draw_series(LineSeries::new(
                s.iter().map(|p| (p.t_ns as f64 / 1e6, p.migrations as f64)),
                color.stroke_width(th.px(width(i, series.len()))),
            ))
            .map_err(e2s)?
            .label(names.get(i).cloned().unwrap_or_default())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3)));
    }
    legend(&mut chart, th, SeriesLabelPosition::UpperLeft)
}
