//! Where the CPU time went: user, system and idle seconds of every kernel, stacked,
//! summed over all client counts and iterations.

use super::{e2s, frame, layout, legend_swatch, style_mesh, titled, Categories, ChartResult, ChartTheme, Legend};
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
    let area = titled(root, "CPU time: user, system and idle (all runs)", th, 1.1)?;
    let y_area = th.room().y_label_area(layout::linear_label_chars(0.0, top));
    let cats = Categories::new(&names, area.dim_in_pixel().0, y_area, th);
    let mut chart = ChartBuilder::on(&area)
        .margin(th.px(10.0))
        .x_label_area_size(cats.area(th))
        .y_label_area_size(y_area)
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)
        .map_err(e2s)?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.disable_x_mesh().x_labels(0).y_desc("CPU seconds").draw().map_err(e2s)?;
    cats.draw(&area, &chart, th)?;
    let swatch = legend_swatch(th);
    // Fixed hues for the parts, so the stack reads the same in every theme.
    let hues = [RGBColor(0, 114, 178), RGBColor(213, 94, 0), th.grid];
    let labels = ["user", "system", "idle"];
    let mut legend = Legend::new();
    for part in 0..3 {
        let color = hues[part];
        chart
            .draw_series(parts.iter().enumerate().map(|(i, p)| {
                let base: f64 = p[..part].iter().sum();
                Rectangle::new([(i as f64 - 0.3, base), (i as f64 + 0.3, base + p[part])], color.filled())
            }))
            .map_err(e2s)?;
        let swatch = swatch.clone();
        legend.add(labels[part], move |p| Rectangle::new(swatch(p), color.filled()));
        // The value beside each segment, if the segment is tall enough to read.
        chart
            .draw_series(parts.iter().enumerate().filter(|(_, p)| p[part] > top * 0.05).map(|(i, p)| {
                let base: f64 = p[..part].iter().sum();
                Text::new(format!("{:.2}", p[part]), (i as f64 + 0.32, base + p[part] / 2.0), th.text(0.9))
            }))
            .map_err(e2s)?;
    }
    legend.draw(&chart, th, SeriesLabelPosition::UpperRight)
}
