//! "Run this on a cluster": the command lines that run a page experiment as `N`
//! shards under Slurm, a Kubernetes Indexed Job or GNU parallel and merge the parts,
//! exactly as `docs/cluster/README.md` gives them (a native test reads that file and
//! the manifests), with the experiment's own file name and shard count put in.

/// Shards the page proposes: one per run up to this many (the README's examples use 32).
pub const SHARDS_DEFAULT_MAX: u64 = 32;

/// The shard count proposed for a sweep of `runs` runs: one run per shard up to
/// [`SHARDS_DEFAULT_MAX`] (a shard with no run would write an empty part).
pub fn default_shards(runs: u64) -> u32 {
    runs.clamp(1, SHARDS_DEFAULT_MAX) as u32
}

/// The three ways to run a sweep of `file` (the experiment JSON the page downloads)
/// in `n` shards, each as the lines to paste.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commands {
    pub slurm: String,
    pub kubernetes: String,
    pub parallel: String,
}

/// `file` is used as the shell sees it: the page's file names are `[A-Za-z0-9_-.]` only
/// (`fmt::export_stem`), so it needs no quoting.
pub fn commands(file: &str, n: u32) -> Commands {
    let n = n.max(1);
    Commands {
        slurm: format!(
            "jobid=$(sbatch --parsable --array=1-{n} docs/cluster/slurm.sbatch {file} parts)\n\
             sbatch --dependency=afterok:$jobid --wrap 'schedsim merge parts/part-*.jsonl --out report.txt'"
        ),
        // job.yaml says 32 shards in three places (completions, parallelism and
        // SCHEDSIM_SHARD_COUNT, which must agree); the sed sets all three to N.
        kubernetes: format!(
            "kubectl create configmap schedsim-experiment --from-file=exp.json={file}\n\
             sed -e 's/^\\(  completions\\|  parallelism\\): 32$/\\1: {n}/' -e 's/value: \"32\"/value: \"{n}\"/' \
             docs/cluster/kubernetes/job.yaml | kubectl apply -f -\n\
             kubectl wait --for=condition=complete job/schedsim-shards --timeout=24h\n\
             kubectl apply -f docs/cluster/kubernetes/merge.yaml"
        ),
        parallel: format!(
            "seq {n} | parallel --halt now,fail=1 schedsim run {file} --shard {{}}/{n} --jobs 1 --out parts/part-{{}}.jsonl\n\
             schedsim merge parts/part-*.jsonl"
        ),
    }
}

/// What the panel says about the sweep's size: its runs, the page's estimate (an upper
/// figure, the page's `RunQuestion` uses the same) and what that is per shard.
pub fn summary(runs: u64, page_cpu_ms: u64, n: u32) -> String {
    let n = n.max(1) as u64;
    let per = page_cpu_ms.div_ceil(n);
    format!(
        "{runs} runs; this page estimates at most {} of CPU time here, so about {} per shard over {n} shard{} \
         (a native schedsim is 1.4-1.7 times faster than the page)",
        duration_text(page_cpu_ms),
        duration_text(per),
        if n == 1 { "" } else { "s" }
    )
}

/// "45 s", "12 min", "3.5 h", rounded up.
fn duration_text(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    if s < 120 {
        format!("{s} s")
    } else if s < 120 * 60 {
        format!("{} min", s.div_ceil(60))
    } else {
        let tenths = s.div_ceil(360);
        format!("{}.{} h", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_file(path: &str) -> String {
        std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    // The lines are the README's, with its exp.json and shard counts.
    #[test]
    fn the_commands_are_the_cluster_readmes() {
        let readme = repo_file("docs/cluster/README.md");
        let c = commands("exp.json", 32);
        for line in c.slurm.lines() {
            assert!(readme.contains(&format!("    {line}\n")), "not in docs/cluster/README.md: {line}");
        }
        let p = commands("exp.json", 8);
        for line in p.parallel.lines() {
            assert!(readme.contains(&format!("    {line}\n")), "not in docs/cluster/README.md: {line}");
        }
        // The Kubernetes steps are the README's, the configmap keyed exp.json as the
        // manifest mounts it and the job piped through the shard count's sed.
        for step in [
            "kubectl wait --for=condition=complete job/schedsim-shards --timeout=24h",
            "kubectl apply -f docs/cluster/kubernetes/merge.yaml",
        ] {
            assert!(readme.contains(step) && c.kubernetes.contains(step), "{step}");
        }
        assert!(readme.contains("kubectl create configmap schedsim-experiment --from-file=exp.json\n"));
        assert!(repo_file("docs/cluster/kubernetes/job.yaml").contains("/experiment/exp.json"));
    }

    // The sed of the Kubernetes line sets the three counts
    // of job.yaml to N and changes nothing else.
    #[test]
    fn the_kubernetes_line_sets_every_shard_count_of_the_manifest() {
        let job = repo_file("docs/cluster/kubernetes/job.yaml");
        assert_eq!(job.matches("32").count(), 3, "job.yaml's shard count is in three places");
        let k = commands("schedsim-demo.json", 7).kubernetes;
        assert!(k.contains("'s/^\\(  completions\\|  parallelism\\): 32$/\\1: 7/'"), "{k}");
        assert!(k.contains("'s/value: \"32\"/value: \"7\"/'"), "{k}");
        // The line's own sed, run by sh on the manifest.
        let sed = k.lines().nth(1).unwrap().split(" | kubectl").next().unwrap().to_string();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&sed)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("sh runs");
        assert!(out.status.success(), "{sed}: {}", String::from_utf8_lossy(&out.stderr));
        let edited = String::from_utf8(out.stdout).unwrap();
        assert!(!edited.contains("32"), "{edited}");
        assert_eq!(edited.matches(": 7").count() + edited.matches("\"7\"").count(), 3);
    }

    #[test]
    fn the_file_and_count_are_put_in() {
        let c = commands("schedsim-demo-c1-16.json", 3);
        assert!(c.slurm.starts_with(
            "jobid=$(sbatch --parsable --array=1-3 docs/cluster/slurm.sbatch schedsim-demo-c1-16.json parts)"
        ));
        assert!(c
            .parallel
            .starts_with("seq 3 | parallel --halt now,fail=1 schedsim run schedsim-demo-c1-16.json --shard {}/3 "));
        assert!(c.kubernetes.starts_with(
            "kubectl create configmap schedsim-experiment --from-file=exp.json=schedsim-demo-c1-16.json\n"
        ));
        assert_eq!(default_shards(16), 16);
        assert_eq!(default_shards(60), 32);
        assert_eq!(default_shards(0), 1);
        assert_eq!(
            summary(60, 400_000, 32),
            "60 runs; this page estimates at most 7 min of CPU time here, so about 13 s per shard over 32 shards \
             (a native schedsim is 1.4-1.7 times faster than the page)"
        );
        assert_eq!(duration_text(3 * 3_600_000 + 1), "3.1 h");
    }
}
