//! The note beside a switch that cannot change a run of its kernel: the library's
//! `Switch::reach` (the release its code came with, the switch that decides first, or
//! the commit that already does what it adds), shown where the switch is set.

use schedsim::kernel::KernelConfig;
use schedsim::reach::Reach;
use schedsim::Switch;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SwitchReachProps {
    pub switch: Switch,
    /// The kernel as it runs (its version and every switch's value).
    pub cfg: KernelConfig,
}

/// Nothing when the switch acts; otherwise one line, `never` (no run can differ) or
/// `partly` (only the wakeups it names can).
#[function_component(SwitchReach)]
pub fn switch_reach(p: &SwitchReachProps) -> Html {
    let (class, text) = match p.switch.reach(&p.cfg) {
        Reach::Acts => return Html::default(),
        Reach::Never(why) => ("never", why),
        Reach::Partly(why) => ("partly", format!("acts only in part: {why}")),
    };
    html! { <span class={classes!("sw-reach", class)} role="note">{ text }</span> }
}
