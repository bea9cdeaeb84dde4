//! `schedsim`: the command line of the schedsim wakeup path simulator.
//!
//! Every failure ends here as one line on stderr and exit code 2 (bad input) or 1 (a
//! valid experiment that failed to simulate, or an output error); success is 0.

mod args;
mod bench;
mod commands;
mod diff;
mod error;
mod experiment_args;
mod help;
mod merge;
mod output;
mod part;
mod perfetto;
mod pool;
mod progress;
mod replay;
mod shard;
mod signals;

use error::CliError;

fn main() {
    // A bug must still end as one line that says what to do, not a backtrace dump.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!(
            "{}",
            CliError::failure(format!(
                "internal error{at}: {what} (this is a bug; please report it with the command line)"
            ))
            .line()
        );
    }));
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().unwrap_or_else(|bad| bad.to_string_lossy().into_owned()))
        .collect();
    let code = match std::panic::catch_unwind(|| dispatch(&argv)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            eprintln!("{}", e.line());
            e.code
        }
        Err(_) => 101,
    };
    std::process::exit(code);
}

fn dispatch(argv: &[String]) -> Result<(), CliError> {
    let Some(cmd) = argv.first() else {
        return Err(CliError::input("no command given; try 'schedsim --help'"));
    };
    let rest = &argv[1..];
    match cmd.as_str() {
        "-h" | "--help" => output::print_stdout(&help::main_help()),
        "help" => match rest.first() {
            None => output::print_stdout(&help::main_help()),
            Some(c) => match help::command_help(c) {
                Some(h) => output::print_stdout(&h),
                None => Err(unknown_command(c)),
            },
        },
        "-V" | "--version" | "version" => output::print_stdout(&format!("schedsim {}\n", env!("CARGO_PKG_VERSION"))),
        "presets" => commands::presets(rest),
        "run" => commands::run(rest),
        "show" => commands::show(rest),
        "trace" => commands::trace(rest),
        "diff" => diff::diff(rest),
        "bench" => bench::bench(rest),
        "perfetto" => perfetto::perfetto(rest),
        "replay" => replay::replay(rest),
        "merge" => merge::merge(rest),
        other => Err(unknown_command(other)),
    }
}

fn unknown_command(c: &str) -> CliError {
    CliError::input(format!(
        "unknown command {c:?}; commands are presets, run, merge, show, trace, diff, perfetto, replay, bench, help (try 'schedsim --help')"
    ))
}
