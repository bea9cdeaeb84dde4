//! Checking a policy script ([`crate::facts::policy`]) before a run: the compile the
//! run itself does, for the CLI's and the page's "does it compile" (the page keeps Run
//! disabled while it does not).

/// Compiles `source` as a kernel column's policy: `Err` is one line with the script's
/// line and column.
#[cfg(feature = "policy")]
pub fn check_policy(source: &str) -> Result<(), String> {
    crate::linux::policy::engine::compile(source).map(|_| ())
}

/// Whether this build runs policy scripts (the `policy` feature, which a workspace build
/// may unify on for a crate that did not ask for it).
pub const POLICY_ENGINE: bool = cfg!(feature = "policy");

/// What a build without the `policy` feature says of a script it is asked to run or
/// compile.
pub const NO_ENGINE: &str = "this build of schedsim runs no policy scripts (the `policy` feature is off)";

/// Without the `policy` feature no script runs.
#[cfg(not(feature = "policy"))]
pub fn check_policy(_source: &str) -> Result<(), String> {
    Err(NO_ENGINE.into())
}

/// What an experiment's validation checks of a script: with the engine, that it
/// compiles ([`check_policy`]); without it (the page's own WebAssembly, which hands a
/// script kernel's runs to its script worker), only its size, so that such an
/// experiment can be edited, linked and sent to a build that runs it. A run of it in a
/// build without the engine fails with [`NO_ENGINE`], never runs the kernel unscripted.
pub(crate) fn validate_policy(source: &str) -> Result<(), String> {
    if POLICY_ENGINE {
        return check_policy(source);
    }
    let max = crate::facts::policy::POLICY_SOURCE_MAX;
    if source.len() > max {
        return Err(format!("the script has {} bytes, more than {max}", source.len()));
    }
    Ok(())
}
