//! The CLI's one error type: a message for a single stderr line and the exit code.

/// Exit code for bad input (command line, experiment file, preset name).
pub const EXIT_INPUT: i32 = 2;
/// Exit code for a valid experiment whose simulation failed, or an I/O failure.
pub const EXIT_FAILURE: i32 = 1;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    pub code: i32,
    pub msg: String,
}

impl CliError {
    pub fn input(msg: impl Into<String>) -> CliError {
        CliError { code: EXIT_INPUT, msg: msg.into() }
    }

    pub fn failure(msg: impl Into<String>) -> CliError {
        CliError { code: EXIT_FAILURE, msg: msg.into() }
    }

    /// The line printed on stderr: `schedsim: ` and the message folded onto one line.
    pub fn line(&self) -> String {
        let mut folded = String::with_capacity(self.msg.len());
        for (i, part) in self.msg.lines().map(str::trim).filter(|l| !l.is_empty()).enumerate() {
            if i > 0 {
                folded.push_str("; ");
            }
            folded.push_str(part);
        }
        // Whatever the user typed is echoed between double quotes: cut each such span.
        format!("schedsim: {}", schedsim::input::clip_quoted_by(&folded, &['"']))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn line_is_one_line() {
        let e = super::CliError::input("a\n  b\n\nc");
        assert_eq!(e.line(), "schedsim: a; b; c");
        let e = super::CliError::input(format!("x {:?} y", "k".repeat(100_000)));
        assert!(e.line().len() < 100 && e.line().ends_with("…\" y"), "{}", e.line());
    }
}
