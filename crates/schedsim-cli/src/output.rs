//! Writing results: to stdout, or to `--out FILE`. A closed pipe (`schedsim presets |
//! head`) ends the program quietly instead of panicking inside `println!`.

use crate::error::CliError;
use std::io::Write;
use std::path::PathBuf;

/// Prints to stdout, treating a closed pipe as success.
pub fn print_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::failure(format!("cannot write to standard output: {e}"))),
    }
}

/// Where the result goes. Opening `--out` is checked before any simulation runs, so a
/// bad path fails at once rather than after a long run.
pub struct Destination {
    path: Option<PathBuf>,
    /// The file did not exist before: remove it again if nothing gets written.
    created: bool,
}

impl Destination {
    pub fn open(out: Option<&str>) -> Result<Destination, CliError> {
        let Some(p) = out else {
            return Ok(Destination { path: None, created: false });
        };
        if p.is_empty() {
            return Err(CliError::input("--out: needs a file name"));
        }
        let path = PathBuf::from(p);
        if path.is_dir() {
            return Err(CliError::input(format!("--out: {p} is a directory")));
        }
        let existed = path.exists();
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| CliError::input(format!("--out: cannot write {p}: {e}")))?;
        Ok(Destination { path: Some(path), created: !existed })
    }

    pub fn write(mut self, text: &str) -> Result<(), CliError> {
        match self.path.take() {
            None => print_stdout(text),
            Some(p) => std::fs::write(&p, text)
                .map_err(|e| CliError::failure(format!("--out: cannot write {}: {e}", p.display()))),
        }
    }
}

impl Drop for Destination {
    fn drop(&mut self) {
        // Still holding the path means write() was never reached (an error came first).
        if let Some(p) = &self.path {
            if self.created {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}
