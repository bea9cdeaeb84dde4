//! Writing results: to stdout, or to `--out FILE`.
//!
//! `--out` is atomic: the text goes to a temporary file in the same directory
//! (`tempfile`'s, removed when dropped), which is renamed over FILE once complete, so FILE is either its old self or the whole new
//! output, never a truncated one. The temporary file is made before the simulation
//! starts (so an unwritable directory fails at once) and removed on every exit path,
//! including SIGINT and SIGTERM ([`crate::signals`]). A FILE that exists and is not a
//! regular file (`/dev/stdout`, `/dev/full`, a FIFO) is written in place.
//!
//! A closed standard output (`schedsim run demo | head -c1`) is an error: the command
//! says so on stderr and exits 1, as GNU tools that ignore SIGPIPE do ("write error:
//! Broken pipe"), rather than exiting 0 with its output lost.

use crate::error::CliError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Prints to stdout; a closed pipe or any other write error is a failure (exit 1).
pub fn print_stdout(text: &str) -> Result<(), CliError> {
    if stdout_closed::at_start() {
        return Err(CliError::failure("cannot write to standard output: it was closed when schedsim started"));
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            Err(CliError::failure("cannot write to standard output: the reader closed the pipe (broken pipe)"))
        }
        Err(e) => Err(CliError::failure(format!("cannot write to standard output: {e}"))),
    }
}

enum Target {
    Stdout,
    /// Write to `tmp`, then rename it to `path`.
    Atomic {
        path: PathBuf,
        tmp: tempfile::NamedTempFile,
    },
    /// An existing non-regular file, written in place.
    InPlace(PathBuf),
}

/// Where the result goes. Checked before any simulation runs.
pub struct Destination {
    target: Target,
}

impl Destination {
    pub fn open(out: Option<&str>) -> Result<Destination, CliError> {
        let Some(p) = out else {
            // Found before anything runs, like a bad --out.
            if stdout_closed::at_start() {
                return Err(CliError::failure("cannot write to standard output: it was closed when schedsim started"));
            }
            return Ok(Destination { target: Target::Stdout });
        };
        if p.is_empty() {
            return Err(CliError::input("--out: needs a file name"));
        }
        let path = PathBuf::from(p);
        if path.is_dir() {
            return Err(CliError::input(format!("--out: {p} is a directory")));
        }
        // `DIR/missing/` names a directory: found now, not when the run is done.
        if p.ends_with('/') || p.ends_with(std::path::MAIN_SEPARATOR) {
            return Err(CliError::input(format!("--out: {p} ends with a slash: give a file name")));
        }
        if let Ok(m) = std::fs::metadata(&path) {
            if !m.is_file() {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| CliError::input(format!("--out: cannot write {p}: {e}")))?;
                return Ok(Destination { target: Target::InPlace(path) });
            }
        }
        let name = path.file_name().ok_or_else(|| CliError::input(format!("--out: {p} names no file")))?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{}.schedsim-", name.to_string_lossy()))
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|e| CliError::input(format!("--out: cannot write in {}: {e}", dir.display())))?;
        crate::signals::remove_on_signal(tmp.path());
        Ok(Destination { target: Target::Atomic { path, tmp } })
    }

    pub fn write(mut self, text: &str) -> Result<(), CliError> {
        match std::mem::replace(&mut self.target, Target::Stdout) {
            Target::Stdout => print_stdout(text),
            Target::InPlace(p) => std::fs::OpenOptions::new()
                .write(true)
                .open(&p)
                .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|_| f.flush()))
                .map_err(|e| CliError::failure(format!("--out: cannot write {}: {e}", p.display()))),
            Target::Atomic { path, tmp } => {
                // On an error the temporary file is dropped, which removes it.
                let r = write_then_rename(tmp, &path, text);
                crate::signals::forget();
                r.map_err(|e| CliError::failure(format!("--out: cannot write {}: {e}", path.display())))
            }
        }
    }
}

impl Destination {
    /// Like [`Destination::write`], but `f` writes the output piece by piece to a
    /// buffered writer, so a large output (a Perfetto trace) is never held whole. An
    /// error of `f` or of the writer leaves `--out`'s FILE as it was.
    pub fn write_with<T>(mut self, f: impl FnOnce(&mut dyn Write) -> std::io::Result<T>) -> Result<T, CliError> {
        const BUF_BYTES: usize = 1 << 16;
        match std::mem::replace(&mut self.target, Target::Stdout) {
            Target::Stdout => {
                if stdout_closed::at_start() {
                    return Err(CliError::failure(
                        "cannot write to standard output: it was closed when schedsim started",
                    ));
                }
                let mut out = std::io::BufWriter::with_capacity(BUF_BYTES, std::io::stdout().lock());
                match f(&mut out).and_then(|v| out.flush().map(|_| v)) {
                    Ok(v) => Ok(v),
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(CliError::failure(
                        "cannot write to standard output: the reader closed the pipe (broken pipe)",
                    )),
                    Err(e) => Err(CliError::failure(format!("cannot write to standard output: {e}"))),
                }
            }
            Target::InPlace(p) => std::fs::OpenOptions::new()
                .write(true)
                .open(&p)
                .and_then(|file| {
                    let mut out = std::io::BufWriter::with_capacity(BUF_BYTES, file);
                    let v = f(&mut out)?;
                    out.flush()?;
                    Ok(v)
                })
                .map_err(|e| CliError::failure(format!("--out: cannot write {}: {e}", p.display()))),
            Target::Atomic { path, mut tmp } => {
                let r = (|| -> std::io::Result<T> {
                    let mut out = std::io::BufWriter::with_capacity(BUF_BYTES, tmp.as_file_mut());
                    let v = f(&mut out)?;
                    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
                    tmp.persist(&path).map_err(|e| e.error)?;
                    Ok(v)
                })();
                crate::signals::forget();
                r.map_err(|e| CliError::failure(format!("--out: cannot write {}: {e}", path.display())))
            }
        }
    }
}

fn write_then_rename(mut tmp: tempfile::NamedTempFile, path: &Path, text: &str) -> std::io::Result<()> {
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map(|_| ()).map_err(|e| e.error)
}

impl Drop for Destination {
    fn drop(&mut self) {
        // Still holding the temporary file means write() was never reached; it goes
        // with the target (tempfile removes it).
        if let Target::Atomic { .. } = &self.target {
            crate::signals::forget();
        }
    }
}

/// Whether file descriptor 1 was closed when the process started (as in
/// `schedsim show demo >&-`). Rust's runtime opens `/dev/null` on a closed standard descriptor before
/// `main` runs (on Linux, `sanitize_standard_fds`), after which every write "succeeds";
/// so the descriptor is looked at earlier, by a function in `.init_array`, which the
/// loader runs before the runtime's start-up.
mod stdout_closed {
    use std::sync::atomic::{AtomicBool, Ordering};

    static CLOSED: AtomicBool = AtomicBool::new(false);

    pub fn at_start() -> bool {
        CLOSED.load(Ordering::Relaxed)
    }

    #[cfg(target_os = "linux")]
    mod probe {
        extern "C" {
            fn fcntl(fd: i32, cmd: i32, ...) -> i32;
        }
        /// `F_GETFD` fails with EBADF on a closed descriptor.
        const F_GETFD: i32 = 1;

        extern "C" fn probe() {
            // SAFETY: fcntl(F_GETFD) only reads the descriptor's flags.
            if unsafe { fcntl(1, F_GETFD) } == -1 {
                super::CLOSED.store(true, super::Ordering::Relaxed);
            }
        }

        #[used]
        #[link_section = ".init_array"]
        static PROBE: extern "C" fn() = probe;
    }
}
