//! The model's identity, baked in at build time (`SCHEDSIM_MODEL_SHA256`): the SHA-256
//! of the simulator's source, its policy templates and the vendored Rhai, file by file
//! in path order. A part carries it, and `schedsim merge` refuses parts of two builds
//! whose model differs, since their runs may give other numbers while the version
//! (`schedsim 0.1.0`) stays the same. A digest of the files rather than the git
//! commit: it is the same from a clean clone, a tarball or CI with or without `git`,
//! and a commit that changes no model file keeps it.

use std::path::{Path, PathBuf};

/// What a run's numbers depend on, relative to this crate.
const MODEL: [&str; 4] = ["../schedsim/src", "../schedsim/policies", "../schedsim/Cargo.toml", "../vendor/rhai/src"];

fn files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        if let Ok(rd) = std::fs::read_dir(p) {
            for e in rd.flatten() {
                files(&e.path(), out);
            }
        }
    } else if p.is_file() {
        out.push(p.to_path_buf());
    }
}

fn main() {
    let mut all = Vec::new();
    for root in MODEL {
        println!("cargo:rerun-if-changed={root}");
        files(Path::new(root), &mut all);
    }
    all.sort();
    let mut bytes = Vec::new();
    for f in &all {
        let body = std::fs::read(f).unwrap_or_default();
        // Path and length before the content, so that moving text between files counts.
        bytes.extend_from_slice(f.to_string_lossy().replace('\\', "/").as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&body);
    }
    use sha2::{Digest, Sha256};
    let hex: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=SCHEDSIM_MODEL_SHA256={hex}");
}
