//! Checking a policy script ([`crate::facts::policy`]) before a run: the compile the
//! run itself does, for the CLI's and the page's "does it compile" (the page keeps Run
//! disabled while it does not).

/// Compiles `source` as a kernel column's policy: `Err` is one line with the script's
/// line and column.
#[cfg(feature = "policy")]
pub fn check_policy(source: &str) -> Result<(), String> {
    crate::linux::policy::engine::compile(source).map(|_| ())
}

/// Without the `policy` feature no script runs.
#[cfg(not(feature = "policy"))]
pub fn check_policy(_source: &str) -> Result<(), String> {
    Err("this build of schedsim runs no policy scripts (the `policy` feature is off)".into())
}
