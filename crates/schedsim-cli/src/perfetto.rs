//! The `perfetto` command: a run's window as a trace ui.perfetto.dev opens.

use crate::args::parse;
use crate::error::CliError;
use crate::experiment_args::{load, Loaded};
use crate::help::{self, perfetto_flags};
use crate::output::{print_stdout, Destination};

pub fn perfetto(args: &[String]) -> Result<(), CliError> {
    let p = parse("perfetto", &perfetto_flags(), args)?;
    if p.help {
        return print_stdout(&help::command_help("perfetto").unwrap_or_default());
    }
    let target = match p.positionals.as_slice() {
        [] => None,
        [t] => Some(t.as_str()),
        [_, extra, ..] => {
            return Err(CliError::input(format!(
                "perfetto: unexpected argument {extra:?}; give one FILE or PRESET (try 'schedsim perfetto --help')"
            )))
        }
    };
    let kernel = p.number::<usize>("kernel-index")?.unwrap_or(0);
    let iteration = p.number::<u32>("iteration")?.unwrap_or(0);
    let from_ms = p.number::<u64>("from-ms")?.unwrap_or(0);
    let dest = Destination::open(p.get("out"))?;
    let Loaded { exp, .. } = load(target, &p)?;
    let to_ms = p.number::<u64>("to-ms")?.unwrap_or(exp.duration_ms);
    if from_ms >= exp.duration_ms {
        return Err(CliError::input(format!(
            "--from-ms: {from_ms} is at or past the end of the run, which lasts {} ms (--duration-ms)",
            exp.duration_ms
        )));
    }
    if to_ms > exp.duration_ms {
        return Err(CliError::input(format!(
            "--to-ms: {to_ms} is past the end of the run, which lasts {} ms (--duration-ms)",
            exp.duration_ms
        )));
    }
    if from_ms >= to_ms {
        let msg = if from_ms == to_ms {
            format!("--from-ms and --to-ms are both {from_ms}: the window is empty")
        } else {
            format!("--from-ms: {from_ms} is after --to-ms {to_ms}")
        };
        return Err(CliError::input(msg));
    }
    crate::commands::check_run_choice(&exp, kernel, iteration)?;
    let t = exp
        .perfetto_window(
            kernel,
            exp.clients[0],
            iteration,
            from_ms.saturating_mul(1_000_000),
            to_ms.saturating_mul(1_000_000),
        )
        .map_err(|e| CliError::failure(e.to_string()))?;
    let (clipped_at_ns, wakeups, migrations) = (t.clipped_at_ns, t.wakeups(), t.migrations());
    // Streamed to the destination: a window of the 500,000-event bound is about 100 MB
    // of JSON, which need not be held. Written first: the success line must not appear
    // when writing fails.
    let events = dest.write_with(|w| {
        let n = t.write_json(w)?;
        w.write_all(b"\n")?;
        Ok(n)
    })?;
    if let Some(at) = clipped_at_ns {
        eprintln!(
            "schedsim: the window holds more than {} trace events; recorded up to {:.3} ms only \
             (narrow it with --from-ms/--to-ms)",
            schedsim::recording::RECORD_EVENTS_MAX,
            at as f64 / 1e6
        );
    }
    // The window's own wakeups and migrations, those the file holds: the run's counters
    // count after the warm-up only, so they said 0 for a window inside it (a replay's,
    // whose trace can end before the warm-up does).
    eprintln!(
        "schedsim: {events} trace events, {wakeups} wakeups and {migrations} migrations in the window; open the \
         file in ui.perfetto.dev"
    );
    Ok(())
}
