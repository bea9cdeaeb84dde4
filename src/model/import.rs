//! Topology import by paste or file drop: the size bound, the machine it makes and the
//! summary shown after it (the parsing itself is `schedsim::import`).

use schedsim::experiment::MachineSpec;
use schedsim::import::{topology_from_text, Imported};
use schedsim::topology::TopologyInput;

/// Largest text accepted: the library's bound for all input (a sysfs dump of a big
/// machine is well under it).
pub const IMPORT_LEN_MAX: usize = schedsim::input::INPUT_BYTES_MAX;

/// What an import did, as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportDone {
    pub machine: MachineSpec,
    pub summary: String,
    pub notes: Vec<String>,
}

/// Reads `text` and makes the new machine from `current`: the preset's costs stay.
/// Errors are messages naming the line, ready to show.
pub fn import(current: &MachineSpec, text: &str) -> Result<ImportDone, String> {
    if text.len() > IMPORT_LEN_MAX {
        return Err(format!(
            "the text is {:.1} MB; at most {} MB is read",
            text.len() as f64 / 1048576.0,
            IMPORT_LEN_MAX / 1048576
        ));
    }
    if text.trim().is_empty() {
        return Err("nothing to import: paste the output of lscpu -p, lscpu -e or the sysfs topology files".into());
    }
    let imp = topology_from_text(text).map_err(|e| e.to_string())?;
    let summary = summary(&imp);
    let machine = MachineSpec {
        preset: current.preset.clone(),
        topology: Some(TopologyInput::Full(imp.topology.clone())),
        costs: current.costs.clone(),
        preempt: current.preempt,
    };
    Ok(ImportDone { machine, summary, notes: imp.notes })
}

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

/// "Read lscpu -p: 1 node, 1 LLC, 2 cores, 4 CPUs."
pub fn summary(imp: &Imported) -> String {
    let t = &imp.topology;
    let llcs: usize = t.nodes.iter().map(|n| n.llcs.len()).sum();
    let cores: usize = t.nodes.iter().flat_map(|n| &n.llcs).map(|l| l.cores.len()).sum();
    format!(
        "Read {}: {}, {}, {}, {}.",
        imp.format,
        plural(t.nodes.len(), "node"),
        plural(llcs, "LLC"),
        plural(cores, "core"),
        plural(t.cpu_count() as usize, "CPU")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LSCPU: &str = "# The following is the parsable format, which can be fed to other\n# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n0,0,0,0,,0,0,0,0\n1,1,0,0,,1,1,1,0\n2,0,0,0,,0,0,0,0\n3,1,0,0,,1,1,1,0\n";

    #[test]
    fn imports_lscpu_and_keeps_the_preset() {
        let cur = MachineSpec { preset: Some("westmere-1s".into()), topology: None, costs: None, preempt: None };
        let d = import(&cur, LSCPU).unwrap();
        assert_eq!(d.machine.preset.as_deref(), Some("westmere-1s"));
        let Some(TopologyInput::Full(t)) = &d.machine.topology else { panic!() };
        assert_eq!(t.cpu_count(), 4);
        assert!(d.summary.starts_with("Read lscpu -p"), "{}", d.summary);
        assert!(d.summary.ends_with("1 node, 1 LLC, 2 cores, 4 CPUs."), "{}", d.summary);
        assert!(d.machine.resolve().is_ok());
        // A CPU lscpu lists without a place (offline) is left out, with a note.
        let d = import(&cur, &format!("{LSCPU}4,,,,,,,,\n")).unwrap();
        assert_eq!(d.summary, "Read lscpu -p: 1 node, 1 LLC, 2 cores, 4 CPUs.");
        assert!(!d.notes.is_empty());
    }

    #[test]
    fn refuses_with_the_line_and_bounds_the_size() {
        let cur = MachineSpec { preset: Some("westmere-1s".into()), topology: None, costs: None, preempt: None };
        let e = import(&cur, "0,0,0,0,,0,0,0,0\n1,x,0,0,,0,0,0,0\n").unwrap_err();
        assert!(e.contains("line"), "{e}");
        assert!(import(&cur, "hello world\n").is_err());
        assert!(import(&cur, "  \n").unwrap_err().contains("nothing to import"));
        let big = "a".repeat(IMPORT_LEN_MAX + 1);
        assert!(import(&cur, &big).unwrap_err().contains("at most 2 MB"));
    }
}
