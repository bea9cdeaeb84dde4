//! A signal that ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1,
//! SIGUSR2: each one's default action is to end it) removes `--out`'s temporary file
//! first: `signal-hook` hands the signal to a thread of ours (no work in the handler
//! itself), which removes the file and exits with 128 + the signal number, as a shell
//! reports a process killed by it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary file to remove, if any.
static TMP: Mutex<Option<PathBuf>> = Mutex::new(None);

fn tmp() -> std::sync::MutexGuard<'static, Option<PathBuf>> {
    TMP.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes `path` if a signal that ends the process arrives before [`forget`].
pub fn remove_on_signal(path: &Path) {
    *tmp() = Some(path.to_path_buf());
    #[cfg(unix)]
    {
        static INSTALLED: std::sync::Once = std::sync::Once::new();
        INSTALLED.call_once(|| {
            use signal_hook::consts::signal::{SIGALRM, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};
            let Ok(mut signals) =
                signal_hook::iterator::Signals::new([SIGHUP, SIGINT, SIGQUIT, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2])
            else {
                return;
            };
            std::thread::spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    if let Some(p) = tmp().take() {
                        let _ = std::fs::remove_file(p);
                    }
                    std::process::exit(128 + sig);
                }
            });
        });
    }
}

/// The temporary file is gone or renamed: nothing to remove on a signal.
pub fn forget() {
    *tmp() = None;
}
