//! Live mode: the work rate of every kernel over simulated time (MB/s for workloads that
//! move bytes, thousands of operations per second otherwise).

use super::{e2s, frame, legend_line, time_chart, titled, ChartResult, ChartTheme, Legend};
use crate::model::live::LivePoint;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Rate between consecutive points; bytes if any kernel moved bytes, else operations.
pub fn rates(series: &[Vec<LivePoint>]) -> (Vec<Vec<(f64, f64)>>, &'static str) {
    let bytes = series.iter().flatten().any(|p| p.bytes > 0);
    let out = series
        .iter()
        .map(|s| {
            s.windows(2)
                .filter(|w| w[1].t_ns > w[0].t_ns)
                .map(|w| {
                    let dt_s = (w[1].t_ns - w[0].t_ns) as f64 / 1e9;
                    let v = if bytes {
                        (w[1].bytes - w[0].bytes) as f64 / 1e6 / dt_s
                    } else {
                        (w[1].ops - w[0].ops) as f64 / 1e3 / dt_s
                    };
                    (w[1].t_ns as f64 / 1e6, v)
                })
                .collect()
        })
        .collect();
    (out, if bytes { "MB/s" } else { "k ops/s" })
}

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
    let (rates, unit) = rates(series);
    let t_max = series.iter().flatten().map(|p| p.t_ns as f64 / 1e6).fold(0f64, f64::max);
    let top = rates.iter().flatten().map(|p| p.1).fold(0f64, f64::max);
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let area = titled(root, &format!("Work rate over simulated time ({unit})"), th, 1.1)?;
    let mut chart = time_chart(&area, t_max, top, unit, th)?;
    let mut legend = Legend::new();
    for (i, s) in rates.iter().enumerate() {
        let color = th.color(i);
        chart
            .draw_series(LineSeries::new(s.iter().copied(), color.stroke_width(th.px(width(i, series.len())))))
            .map_err(e2s)?;
        legend.add(names.get(i).cloned().unwrap_or_default(), legend_line(th, color));
    }
    legend.draw(&chart, th, SeriesLabelPosition::LowerRight)
}
