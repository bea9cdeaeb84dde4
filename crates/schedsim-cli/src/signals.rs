//! A signal that ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1,
//! SIGUSR2: each one's default action is to end it) removes `--out`'s temporary file
//! first.
//!
//! No dependency: the handler is installed with the C library's `signal()` (which the
//! Rust standard library links on every Unix anyway) and does only what is
//! async-signal-safe: `unlink()` of a path prepared in advance, then `_exit()` with
//! 128 + the signal number, as a shell reports a process killed by it.

#[cfg(unix)]
mod imp {
    use std::ffi::{c_char, c_int, CString};
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// The same numbers on every Unix but SIGUSR1 and SIGUSR2.
    const SIGHUP: c_int = 1;
    const SIGINT: c_int = 2;
    const SIGQUIT: c_int = 3;
    const SIGALRM: c_int = 14;
    const SIGTERM: c_int = 15;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const SIGUSR: [c_int; 2] = [10, 12];
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const SIGUSR: [c_int; 2] = [30, 31];

    extern "C" {
        fn signal(sig: c_int, handler: extern "C" fn(c_int)) -> usize;
        fn unlink(path: *const c_char) -> c_int;
        fn _exit(code: c_int) -> !;
    }

    /// The temporary file to remove, as a leaked C string (null: none).
    static TMP: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());

    extern "C" fn on_signal(sig: c_int) {
        let p = TMP.swap(std::ptr::null_mut(), Ordering::SeqCst);
        // SAFETY: `p` is null or a NUL-terminated string leaked by `remove_on_signal`;
        // unlink and _exit are async-signal-safe.
        unsafe {
            if !p.is_null() {
                unlink(p);
            }
            _exit(128 + sig);
        }
    }

    pub fn remove_on_signal(path: &std::path::Path) {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = CString::new(path.as_os_str().as_bytes()) else { return };
        let old = TMP.swap(c.into_raw(), Ordering::SeqCst);
        if !old.is_null() {
            // SAFETY: `old` came from `CString::into_raw` above and is no longer shared.
            drop(unsafe { CString::from_raw(old) });
        }
        for sig in [SIGHUP, SIGINT, SIGQUIT, SIGALRM, SIGTERM, SIGUSR[0], SIGUSR[1]] {
            // SAFETY: installing a handler that only calls async-signal-safe functions.
            unsafe {
                signal(sig, on_signal);
            }
        }
    }

    pub fn forget() {
        let old = TMP.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !old.is_null() {
            // SAFETY: as in `remove_on_signal`.
            drop(unsafe { CString::from_raw(old) });
        }
    }
}

#[cfg(not(unix))]
mod imp {
    pub fn remove_on_signal(_path: &std::path::Path) {}
    pub fn forget() {}
}

/// Removes `path` if a signal that ends the process arrives before [`forget`].
pub fn remove_on_signal(path: &std::path::Path) {
    imp::remove_on_signal(path)
}

/// The temporary file is gone or renamed: nothing to remove on a signal.
pub fn forget() {
    imp::forget()
}
