//! A chart card: the chart drawn on a canvas for the width it is shown at, in device
//! pixels (sharp, and its text at its CSS size on a phone and on a projector alike),
//! with SVG and PNG export of the same drawing. Errors are shown in the card, never
//! thrown.

use crate::charts::{self, ChartResult, ChartTheme, HEIGHT_PX, WIDTH_PX};
use crate::model::live::LivePoint;
use crate::state::SweepResult;
use crate::web::components::canvas_text::MeasuredCanvas;
use crate::web::dom;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveChart {
    Throughput,
    Migrations,
}

/// What a card draws.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartSpec {
    Report { name: &'static str, result: Rc<SweepResult>, point: usize },
    Live { which: LiveChart, series: Rc<Vec<Vec<LivePoint>>>, names: Rc<Vec<String>> },
}

impl ChartSpec {
    fn stem(&self) -> String {
        match self {
            ChartSpec::Report { name, result, .. } => {
                format!("{}-{name}", crate::model::fmt::export_stem(&result.report.experiment))
            }
            ChartSpec::Live { which, .. } => {
                format!("schedsim-live-{}", if *which == LiveChart::Throughput { "throughput" } else { "migrations" })
            }
        }
    }

    /// Size in CSS pixels.
    pub fn size(&self) -> (u32, u32) {
        match self {
            ChartSpec::Report { name, .. } => charts::report_chart_size(name),
            ChartSpec::Live { .. } => (WIDTH_PX, HEIGHT_PX),
        }
    }

    pub fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &ChartTheme) -> ChartResult {
        match self {
            ChartSpec::Report { name, result, point } => {
                charts::draw_report_chart(name, root, &result.report, *point, th)
            }
            ChartSpec::Live { which: LiveChart::Throughput, series, names } => {
                charts::live_throughput::draw(root, series, names, th)
            }
            ChartSpec::Live { which: LiveChart::Migrations, series, names } => {
                charts::live_migrations::draw(root, series, names, th)
            }
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub spec: ChartSpec,
    pub theme: ChartTheme,
    /// Short name for labels and test hooks.
    pub id: AttrValue,
    #[prop_or_default]
    pub exports: bool,
}

fn draw_canvas(canvas: &HtmlCanvasElement, spec: &ChartSpec, theme: &ChartTheme, size: (u32, u32)) -> ChartResult {
    let dpr = dom::device_pixel_ratio();
    let (cw, ch) = size;
    let (w, h) = ((cw as f64 * dpr) as u32, (ch as f64 * dpr) as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let backend = MeasuredCanvas::new(canvas).ok_or("chart: the canvas has no 2D context")?;
    let root = backend.into_drawing_area();
    let th = ChartTheme { scale: dpr, ..theme.clone() };
    spec.draw(&root, &th)?;
    root.present().map_err(|e| format!("chart: {e}"))
}

#[function_component(ChartCard)]
pub fn chart_card(p: &ChartProps) -> Html {
    let canvas = use_node_ref();
    let error = use_state(|| None::<String>);
    // The canvas' width on the page, CSS pixels, as the layout changes it (a window
    // resized, presenter mode's one chart per row).
    let shown_w = use_state_eq(|| None::<u32>);
    {
        let (canvas, shown_w) = (canvas.clone(), shown_w.clone());
        use_effect_with((), move |_| {
            let watch = canvas.cast::<web_sys::Element>().and_then(|el| {
                dom::watch_width(&el, Callback::from(move |w: f64| shown_w.set(Some(w.round() as u32))))
            });
            move || drop(watch)
        });
    }
    // The room between the sticky bars, CSS pixels, as the layout gives it (read after
    // layout by `dom::watch_room`, never during this render).
    let room = use_state_eq(|| None::<u32>);
    {
        let room = room.clone();
        use_effect_with((), move |_| {
            let watch = dom::watch_room(Callback::from(move |r: f64| room.set(Some(r.round().max(0.0) as u32))));
            move || drop(watch)
        });
    }
    let size = charts::fit_size(p.spec.size(), shown_w.map(f64::from), room.map_or_else(dom::inner_height, f64::from));
    // Which drawing is the latest: a draw asked for before a newer one is skipped.
    let generation = use_mut_ref(|| 0u64);
    {
        let canvas = canvas.clone();
        let error = error.clone();
        use_effect_with((p.spec.clone(), p.theme.clone(), size), move |(spec, theme, size)| {
            let mine = {
                let mut g = generation.borrow_mut();
                *g += 1;
                *g
            };
            // Each chart draws in a task of its own, after the page's render has been
            // laid out and painted: a sweep's redraw of four charts is then short tasks
            // on the main thread, not one long one, input is handled between them, and
            // Plotters' text measures (a DOM span each) find the layout clean.
            let (spec, theme, size) = (spec.clone(), theme.clone(), *size);
            dom::after_paint(move || {
                if *generation.borrow() != mine {
                    return;
                }
                let r = match canvas.cast::<HtmlCanvasElement>() {
                    Some(c) => {
                        let r = draw_canvas(&c, &spec, &theme, size);
                        let _ = c.set_attribute("data-drawn", if r.is_ok() { "true" } else { "false" });
                        r
                    }
                    None => Err("chart: the canvas is missing from the page".into()),
                };
                error.set(r.err());
            });
        });
    }
    let on_svg = {
        let spec = p.spec.clone();
        let theme = p.theme.clone();
        let error = error.clone();
        Callback::from(move |_| {
            let r = charts::to_svg_sized(size, |a| spec.draw(a, &theme))
                .and_then(|svg| dom::download_text(&format!("{}.svg", spec.stem()), "image/svg+xml", &svg));
            if let Err(e) = r {
                error.set(Some(e));
            }
        })
    };
    let on_png = {
        let spec = p.spec.clone();
        let canvas = canvas.clone();
        let error = error.clone();
        Callback::from(move |_| {
            let r = canvas
                .cast::<HtmlCanvasElement>()
                .ok_or_else(|| "chart: the canvas is missing".to_string())
                .and_then(|c| c.to_data_url_with_type("image/png").map_err(dom::js_err))
                .and_then(|url| dom::download_url(&format!("{}.png", spec.stem()), &url));
            if let Err(e) = r {
                error.set(Some(e));
            }
        })
    };
    let (cw, ch) = size;
    html! {
        <figure class="chart" data-chart={p.id.clone()}>
            <canvas ref={canvas} width={cw.to_string()} height={ch.to_string()}
                role="img" aria-label={format!("{} chart", p.id)}></canvas>
            if let Some(e) = &*error {
                <p class="chart-error" role="alert">{ e.clone() }</p>
            }
            if p.exports {
                <figcaption>
                    <button type="button" class="tool" onclick={on_svg} aria-label={format!("Export the {} chart as SVG", p.id)}>{ "SVG" }</button>
                    <button type="button" class="tool" onclick={on_png} aria-label={format!("Export the {} chart as PNG", p.id)}>{ "PNG" }</button>
                </figcaption>
            }
        </figure>
    }
}
