//! The classroom gallery: one guided experiment per seed patch.

use crate::model::gallery::{guides, EEVDF_GUIDE, EXERCISE, REPLAY_GUIDE};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GalleryProps {
    /// Loads the named built-in experiment; `true` runs it at once.
    pub on_load: Callback<(String, bool)>,
    /// Imports the replay card's bundled trace (and runs its sweep).
    #[prop_or_default]
    pub on_replay: Callback<()>,
    /// Loads the exercise (`gallery::exercise_experiment`).
    #[prop_or_default]
    pub on_exercise: Callback<()>,
    /// Loads and runs the EEVDF card's experiment (`gallery::eevdf_experiment`).
    #[prop_or_default]
    pub on_eevdf: Callback<()>,
}

#[function_component(Gallery)]
pub fn gallery(p: &GalleryProps) -> Html {
    let cards = guides().into_iter().map(|g| {
        let run = {
            let on_load = p.on_load.clone();
            let name = g.preset.to_string();
            Callback::from(move |_| on_load.emit((name.clone(), true)))
        };
        let load = {
            let on_load = p.on_load.clone();
            let name = g.preset.to_string();
            Callback::from(move |_| on_load.emit((name.clone(), false)))
        };
        let desc = schedsim::presets::presets().into_iter().find(|x| x.name == g.preset).map(|x| x.description).unwrap_or("");
        html! {
            <article class="guide" data-preset={g.preset}>
                <h3>{ g.title }</h3>
                <p class="byline">{ g.byline }{ " · switch " }<code>{ g.switch.name() }</code>
                    if let Some(f) = g.switch.seed_file() {
                        { " · " }<a href={format!("seeds/{f}")} target="_blank" rel="noopener">{ "the patch mail" }</a>
                    }
                </p>
                <p class="setup">{ desc }</p>
                <h4>{ "What the patch changes" }</h4>
                <p>{ g.changes }</p>
                <h4>{ "What to look for" }</h4>
                <p>{ g.look_for }</p>
                <p class="reported"><strong>{ "The mail reports: " }</strong>{ g.reported }</p>
                <div class="guide-actions">
                    <button type="button" class="primary" onclick={run} aria-label={format!("Run {}", g.preset)}>{ "Run it" }</button>
                    <button type="button" onclick={load}>{ "Load without running" }</button>
                </div>
            </article>
        }
    }).collect::<Html>();
    html! {
        <section class="gallery" aria-labelledby="gallery-h">
            <h2 id="gallery-h">{ "Classroom: one guided experiment per seed patch" }</h2>
            <p class="lead">{ "Each card runs the built-in sweep that reproduces the patch mail's setting, with the patch off (kernel A) and on (kernel B). Results appear under Sweep; press Live to watch single wakeups." }</p>
            <div class="guides">
                <article class="guide" data-preset="eevdf" id="guide-eevdf">
                    <h3>{ EEVDF_GUIDE.title }</h3>
                    <p class="byline">{ EEVDF_GUIDE.byline }</p>
                    <p class="setup">{ EEVDF_GUIDE.setup }</p>
                    <h4>{ "What changed" }</h4>
                    <p>{ EEVDF_GUIDE.changes }</p>
                    <h4>{ "What to look for" }</h4>
                    <p>{ EEVDF_GUIDE.look_for }</p>
                    <div class="guide-actions">
                        <button type="button" class="primary" id="guide-eevdf-run" onclick={p.on_eevdf.reform(|_: MouseEvent| ())}
                            aria-label="Run eevdf">{ "Run it" }</button>
                    </div>
                </article>
                { cards }
                <article class="guide" data-preset="replay" id="guide-replay">
                    <h3>{ REPLAY_GUIDE.title }</h3>
                    <p class="byline">{ "workload " }<code>{ "replay" }</code>{ " · " }
                        <a href={REPLAY_GUIDE.url} download={REPLAY_GUIDE.file}>{ REPLAY_GUIDE.file }</a></p>
                    <h4>{ "What replay does" }</h4>
                    <p>{ REPLAY_GUIDE.what }</p>
                    <h4>{ "What to look for" }</h4>
                    <p>{ REPLAY_GUIDE.look_for }</p>
                    <div class="guide-actions">
                        <button type="button" class="primary" id="guide-replay-run" onclick={p.on_replay.reform(|_: MouseEvent| ())}
                            aria-label="Replay make.perf.txt.gz">{ "Replay it" }</button>
                    </div>
                </article>
                <article class="guide" data-preset="exercise" id="guide-exercise">
                    <h3>{ EXERCISE.title }</h3>
                    <p class="byline">{ "kernel C: your policy script · " }
                        <a href={format!("seeds/{}", schedsim::Switch::SisPrevIdle.seed_file().unwrap_or_default())} target="_blank" rel="noopener">{ "the patch mail" }</a></p>
                    <h4>{ "The task" }</h4>
                    <p>{ EXERCISE.task }</p>
                    <h4>{ "What to look for" }</h4>
                    <p>{ EXERCISE.look_for }</p>
                    <div class="guide-actions">
                        <button type="button" class="primary" id="guide-exercise-start" onclick={p.on_exercise.reform(|_: MouseEvent| ())}>
                            { "Start the exercise" }</button>
                    </div>
                </article>
            </div>
        </section>
    }
}
