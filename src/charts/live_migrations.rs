//! Live mode: migrations of every kernel so far, over simulated time.

use super::{e2s, frame, legend_line, time_chart, titled, ChartResult, ChartTheme, Legend};
use crate::model::live::LivePoint;
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
    let t_max = series.iter().flatten().map(|p| p.t_ns as f64 / 1e6).fold(0f64, f64::max);
    let top = series.iter().flatten().map(|p| p.migrations as f64).fold(0f64, f64::max);
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let area = titled(root, "Wakeup and balance migrations so far", th, 1.1)?;
    let mut chart = time_chart(&area, t_max, top, "migrations", th)?;
    let mut legend = Legend::new();
    for (i, s) in series.iter().enumerate() {
        let color = th.color(i);
        chart
            .draw_series(LineSeries::new(
                s.iter().map(|p| (p.t_ns as f64 / 1e6, p.migrations as f64)),
                color.stroke_width(th.px(width(i, series.len()))),
            ))
            .map_err(e2s)?;
        legend.add(names.get(i).cloned().unwrap_or_default(), legend_line(th, color));
    }
    legend.draw(&chart, th, SeriesLabelPosition::UpperLeft)
}
