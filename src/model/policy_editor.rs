//! The kernel card's policy-script editor, its pure part: where a compiler or run error
//! points in the script (`line L:C: …`, as the library writes it), the editor's line
//! count and the template menu (the library's `TEMPLATES`); how much of a permalink a
//! script takes is the link format's to say (`permalink::link_note`). The component is
//! `web::components::policy_editor`; the compile check runs in the script worker
//! (`proto::Request::CheckPolicy`).

use schedsim::policy::{Template, TEMPLATES};

/// Wait this long after the last keystroke before committing the text and compiling it.
pub const CHECK_DEBOUNCE_MS: i32 = 350;

/// The script a new "policy script" starts from: the kernel's own choice, one line to
/// change.
pub const STARTER: &str = "// The kernel's own choice; change what you want to try.\n\
fn select_idle_sibling(p, prev, target) {\n    kernel::select_idle_sibling(p, prev, target)\n}\n";

/// (line, column), 1-based, of the first `line L[:C]` in an error message: the
/// compiler's (`line 2:9: …`), a run's (`policy script line 3:5: …`) or validation's
/// (`field kernels[1].policy: line 1: …`). The column is 0 when the message gives none.
pub fn error_position(message: &str) -> Option<(usize, usize)> {
    let mut rest = message;
    while let Some(i) = rest.find("line ") {
        rest = &rest[i + 5..];
        let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
        let n = digits(rest);
        let Ok(line) = rest[..n].parse::<usize>() else { continue };
        if line == 0 {
            continue;
        }
        let after = &rest[n..];
        let col = after.strip_prefix(':').and_then(|s| s[..digits(s)].parse::<usize>().ok()).unwrap_or(0);
        return Some((line, col));
    }
    None
}

/// Lines the editor's gutter numbers: the script's, and the empty last line after a
/// final newline, at least one.
pub fn line_count(source: &str) -> usize {
    source.split('\n').count().max(1)
}

/// The fewest lines the script editor shows: room to write beside the starter's five.
pub const EDITOR_ROWS_MIN: usize = 12;

/// The script editor's height in lines: the text and an empty line to type on, and at
/// least [`EDITOR_ROWS_MIN`]; it grows with the text (the page scrolls it past 70% of
/// the screen's height).
pub fn editor_rows(source: &str) -> usize {
    (line_count(source) + 1).max(EDITOR_ROWS_MIN)
}

/// The template menu's entries: (value, label, script).
pub fn templates() -> impl Iterator<Item = (&'static str, String, &'static str)> {
    TEMPLATES.iter().map(|t: &Template| (t.0, format!("{} — {}", t.0, t.1), t.2))
}

/// Why a live session of `exp` cannot start in this build, if a kernel has a script and
/// this build has no engine: the session says so rather than step the kernel
/// unscripted. The page runs live mode in a simulation worker of the experiment's kind
/// (`proto::Engine::of`), so a scripted experiment's session is in the script worker,
/// which has the engine; this refusal is for any build that does not.
pub fn live_refusal(exp: &schedsim::Experiment) -> Option<String> {
    let scripted: Vec<String> = exp
        .kernels
        .iter()
        .enumerate()
        .filter(|(_, k)| k.policy.is_some())
        .map(|(i, k)| format!("kernel {} ({})", crate::model::kernels::letter(i), k.name))
        .collect();
    if scripted.is_empty() || schedsim::POLICY_ENGINE {
        return None;
    }
    Some(format!(
        "This build of the simulator has no policy-script engine, and {} has a script: \
         live mode runs it in the script worker, which has one.",
        scripted.join(" and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_points_at_its_line_and_column() {
        assert_eq!(error_position("line 2:9: Expecting an expression"), Some((2, 9)));
        assert_eq!(error_position("policy script line 3:5: select_idle_sibling returned nothing"), Some((3, 5)));
        assert_eq!(error_position("field kernels[1].policy: line 12: bad"), Some((12, 0)));
        assert_eq!(error_position("the script defines none of select_task_rq_fair"), None);
        assert_eq!(error_position("a pipeline 0 then line 4:1: x"), Some((4, 1)));
    }

    #[test]
    fn the_gutter_numbers_every_line() {
        assert_eq!(line_count(""), 1);
        assert_eq!(line_count("a"), 1);
        assert_eq!(line_count("a\nb\n"), 3);
    }

    #[test]
    fn every_template_is_in_the_menu() {
        let t: Vec<_> = templates().collect();
        assert_eq!(t.len(), TEMPLATES.len());
        assert!(t.iter().any(|(v, _, _)| *v == "sis-v5.15") && t.iter().any(|(v, _, _)| *v == "seed001-v3.8"));
    }

    #[test]
    fn the_editor_grows_with_its_text() {
        assert_eq!(editor_rows(STARTER), EDITOR_ROWS_MIN);
        let long = "x\n".repeat(30);
        assert_eq!(editor_rows(&long), 32);
    }

    #[test]
    fn a_build_without_the_engine_refuses_a_scripted_live_session() {
        let mut e = schedsim::presets::experiment("seed001").unwrap();
        assert_eq!(live_refusal(&e), None);
        e.kernels[1].policy = Some(STARTER.into());
        let key = crate::model::live::LiveKey { experiment: e.clone(), kernel: 0, clients: 0, iteration: 0 };
        match (live_refusal(&e), crate::model::live::LiveSession::new(key)) {
            // This crate's own build has no engine (a workspace build may unify it on).
            (Some(why), Err(e)) => {
                assert!(why.contains("kernel B (prev-idle) has a script"), "{why}");
                assert_eq!(e, why);
            }
            (None, Ok(_)) => assert!(schedsim::check_policy(STARTER).is_ok()),
            (why, s) => panic!("{why:?} but the session {}", if s.is_ok() { "started" } else { "failed" }),
        }
    }
}
