//! Where the CPU time went: user, system and idle seconds of every kernel, stacked,
//! summed over all client counts and iterations.

use super::{category_label, e2s, frame, legend, style_mesh, ChartResult, ChartTheme};
use plotters::coord::Shift;
use plotters::prelude::*;
use schedsim::Report;

pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, r: &Report, th: &ChartTheme) -> ChartResult {
    frame(root, th)?;
    let parts: Vec<[f64; 3]> = r
        .configs
        .iter()
        .map(|c| {
            let t = c.total();
            [t.user_ns as f64 / 1e9, t.system_ns as f64 / 1e9, t.idle_ns as f64 / 1e9]
        })
        .collect();
    let top = parts.iter().map(|p| p.iter().sum::<f64>()).fold(0f64, f64::max);
    let top = if top > 0.0 { top * 1.12 } else { 1.0 };
    let names: Vec<String> = r.configs.iter().map(|c| c.name.clone()).collect();
    let n = names.len();
    let mut chart = ChartBuilder::on(root)
        .caption("CPU time: user, system and idle (all runs)", th.text(1.1))
        .margin(th.px(10.0))
        .x_label_area_size(th.px(44.0))
        .y_label_area_size(th.px(70.0))
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)
        .map_err(e2s)?;
    let fmt = |x: &f64| category_label(*x, &names);
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.disable_x_mesh().x_labels(2 * n + 2).x_label_formatter(&fmt).y_desc("CPU seconds").draw().map_err(e2s)?;
    // Fixed hues for the parts, so the stack reads the same in every theme.
    let hues = [RGBColor(0, 114, 178), RGBColor(213, 94, 0), th.grid];
    let labels = ["user", "system", "idle"];
    for part in 0..3 {
        let color = hues[part];
        chart
            .draw_series(parts.iter().enumerate().map(|(i, p)| {
                let base: f64 = p[..part].iter().sum();
                Rectangle::new([(i as f64 - 0.3, base), (i as f64 + 0.3, base + p[part])], color.filled())
            }))
            .map_err(e2s)?
            .label(labels[part])
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
        // The value beside each segment, if the segment is tall enough to read.
        chart
            .draw_series(parts.iter().enumerate().filter(|(_, p)| p[part] > top * 0.05).map(|(i, p)| {
                let base: f64 = p[..part].iter().sum();
                Text::new(format!("{:.2}", p[part]), (i as f64 + 0.32, base + p[part] / 2.0), th.text(0.85))
            }))
            .map_err(e2s)?;
    }
    legend(&mut chart, th, SeriesLabelPosition::UpperRight)
}
