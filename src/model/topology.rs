//! Direct manipulation of a topology: each edit either gives the new topology or is
//! refused with a message tied to the box the user touched, so the page can show the
//! refusal at that spot.

use schedsim::topology::{CoreDesc, Topology, CPUS_MAX, LOCAL_DISTANCE, THREADS_PER_CORE_MAX};

/// Where in the drawing an edit (or its refusal) belongs. Indices are per parent: LLC 1
/// of node 0 is `Llc(0, 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spot {
    Machine,
    Node(u32),
    Llc(u32, u32),
    Core(u32, u32, u32),
    Distance(u32, u32),
}

/// One edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopoEdit {
    AddNode,
    DuplicateNode(u32),
    RemoveNode(u32),
    AddLlc(u32),
    DuplicateLlc(u32, u32),
    RemoveLlc(u32, u32),
    AddCore(u32, u32),
    DuplicateCore(u32, u32, u32),
    RemoveCore(u32, u32, u32),
    SetThreads(u32, u32, u32, u32),
    /// Every core's SMT width at once.
    SetAllThreads(u32),
    /// Sets `[i][j]` and `[j][i]`.
    SetDistance(u32, u32, u32),
    /// Back to the implicit 10/21 matrix.
    ResetDistances,
}

/// A refused edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub spot: Spot,
    pub message: String,
}

impl TopoEdit {
    /// The box this edit belongs to.
    pub fn spot(&self) -> Spot {
        use TopoEdit::*;
        match *self {
            AddNode | SetAllThreads(_) | ResetDistances => Spot::Machine,
            DuplicateNode(n) | RemoveNode(n) | AddLlc(n) => Spot::Node(n),
            DuplicateLlc(n, l) | RemoveLlc(n, l) | AddCore(n, l) => Spot::Llc(n, l),
            DuplicateCore(n, l, c) | RemoveCore(n, l, c) | SetThreads(n, l, c, _) => Spot::Core(n, l, c),
            SetDistance(i, j, _) => Spot::Distance(i, j),
        }
    }
}

fn refuse<T>(spot: Spot, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal { spot, message: message.into() })
}

/// The default matrix Linux-like SLITs give: 10 locally, 21 between nodes.
pub fn default_distances(n: usize) -> Vec<Vec<u32>> {
    (0..n).map(|i| (0..n).map(|j| if i == j { LOCAL_DISTANCE } else { 21 }).collect()).collect()
}

/// Applies `e` to `t`. The result always passes `Topology::validate`.
///
/// ```
/// use schedsim::topology::Topology;
/// use schedsim_web::model::topology::{apply, Spot, TopoEdit};
/// let t = Topology::uniform(1, 1, 2, 2);
/// let t2 = apply(&t, TopoEdit::DuplicateCore(0, 0, 1)).unwrap();
/// assert_eq!(t2.cpu_count(), 6);
/// let one = Topology::uniform(1, 1, 1, 1);
/// assert_eq!(apply(&one, TopoEdit::RemoveCore(0, 0, 0)).unwrap_err().spot, Spot::Core(0, 0, 0));
/// ```
pub fn apply(t: &Topology, e: TopoEdit) -> Result<Topology, Refusal> {
    use TopoEdit::*;
    let spot = e.spot();
    let mut t = t.clone();
    let nn = t.nodes.len() as u32;
    let node_ok = |n: u32| n < nn;
    // The edits below index the matrix by node; one of another shape (from a link or a
    // hand-written file) is refused here rather than panicking there. Reset replaces it.
    if e != ResetDistances {
        if let Some(d) = &t.numa_distance {
            if let Err(message) = distance_shape(d, nn as usize) {
                return refuse(spot, message);
            }
        }
    }
    match e {
        AddNode | DuplicateNode(_) => {
            let src = match e {
                DuplicateNode(n) if node_ok(n) => n as usize,
                DuplicateNode(_) => return refuse(spot, "no such node"),
                _ => t.nodes.len() - 1,
            };
            if t.nodes.is_empty() {
                return refuse(spot, "the machine has no node to copy");
            }
            let copy = t.nodes[src].clone();
            t.nodes.insert(src + 1, copy);
            if let Some(d) = &mut t.numa_distance {
                // The copy sits at src+1 with its original's distances, and 21 to it.
                let old = |i: usize| if i > src { i - 1 } else { i };
                let n = d.len() + 1;
                let copy = (0..n)
                    .map(|a| {
                        (0..n)
                            .map(|b| {
                                if a == b {
                                    LOCAL_DISTANCE
                                } else if a.min(b) == src && a.max(b) == src + 1 {
                                    21
                                } else {
                                    d[old(a)][old(b)]
                                }
                            })
                            .collect()
                    })
                    .collect();
                *d = copy;
            }
        }
        RemoveNode(n) => {
            if !node_ok(n) {
                return refuse(spot, "no such node");
            }
            if nn == 1 {
                return refuse(spot, "a machine needs at least one NUMA node");
            }
            t.nodes.remove(n as usize);
            if let Some(d) = &mut t.numa_distance {
                d.remove(n as usize);
                for r in d.iter_mut() {
                    r.remove(n as usize);
                }
            }
        }
        AddLlc(n) | DuplicateLlc(n, _) | RemoveLlc(n, _) => {
            if !node_ok(n) {
                return refuse(spot, "no such node");
            }
            let llcs = &mut t.nodes[n as usize].llcs;
            match e {
                AddLlc(_) => {
                    let last = llcs
                        .last()
                        .cloned()
                        .ok_or_else(|| Refusal { spot, message: "node has no LLC to copy".into() })?;
                    llcs.push(last);
                }
                DuplicateLlc(_, l) => {
                    let src =
                        llcs.get(l as usize).cloned().ok_or_else(|| Refusal { spot, message: "no such LLC".into() })?;
                    llcs.insert(l as usize + 1, src);
                }
                RemoveLlc(_, l) => {
                    if l as usize >= llcs.len() {
                        return refuse(spot, "no such LLC");
                    }
                    if llcs.len() == 1 {
                        return refuse(spot, "a node needs at least one LLC; remove the node instead");
                    }
                    llcs.remove(l as usize);
                }
                _ => unreachable!("outer match"),
            }
        }
        AddCore(n, l) | DuplicateCore(n, l, _) | RemoveCore(n, l, _) | SetThreads(n, l, _, _) => {
            let cores = match t.nodes.get_mut(n as usize).and_then(|nd| nd.llcs.get_mut(l as usize)) {
                Some(llc) => &mut llc.cores,
                None => return refuse(spot, "no such LLC"),
            };
            match e {
                AddCore(..) => {
                    let last = cores.last().cloned().unwrap_or(CoreDesc { threads: 1 });
                    cores.push(last);
                }
                DuplicateCore(_, _, c) => {
                    let src = cores
                        .get(c as usize)
                        .cloned()
                        .ok_or_else(|| Refusal { spot, message: "no such core".into() })?;
                    cores.insert(c as usize + 1, src);
                }
                RemoveCore(_, _, c) => {
                    if c as usize >= cores.len() {
                        return refuse(spot, "no such core");
                    }
                    if cores.len() == 1 {
                        return refuse(spot, "an LLC needs at least one core; remove the LLC instead");
                    }
                    cores.remove(c as usize);
                }
                SetThreads(_, _, c, th) => {
                    if th == 0 || th > THREADS_PER_CORE_MAX {
                        return refuse(spot, format!("SMT width must be 1 to {THREADS_PER_CORE_MAX}"));
                    }
                    match cores.get_mut(c as usize) {
                        Some(core) => core.threads = th,
                        None => return refuse(spot, "no such core"),
                    }
                }
                _ => unreachable!("outer match"),
            }
        }
        SetAllThreads(th) => {
            if th == 0 || th > THREADS_PER_CORE_MAX {
                return refuse(spot, format!("SMT width must be 1 to {THREADS_PER_CORE_MAX}"));
            }
            for core in t.nodes.iter_mut().flat_map(|n| n.llcs.iter_mut()).flat_map(|l| l.cores.iter_mut()) {
                core.threads = th;
            }
        }
        SetDistance(i, j, v) => {
            if i >= nn || j >= nn {
                return refuse(spot, "no such node pair");
            }
            if i == j {
                if v != LOCAL_DISTANCE {
                    return refuse(spot, format!("a node's distance to itself is always {LOCAL_DISTANCE}"));
                }
                return Ok(t);
            }
            if !(LOCAL_DISTANCE + 1..=254).contains(&v) {
                return refuse(spot, format!("distance between two nodes must be {} to 254", LOCAL_DISTANCE + 1));
            }
            let d = t.numa_distance.get_or_insert_with(|| default_distances(nn as usize));
            d[i as usize][j as usize] = v;
            d[j as usize][i as usize] = v;
        }
        ResetDistances => t.numa_distance = None,
    }
    // Whatever the edit, the machine must stay within the library's limits.
    let cpus = t.cpu_count();
    if cpus > CPUS_MAX as u64 {
        return refuse(spot, format!("that would make {cpus} CPUs; at most {CPUS_MAX}"));
    }
    if let Err(err) = t.validate() {
        return refuse(spot, err.0);
    }
    Ok(t)
}

/// Whether `d` is an `n` x `n` matrix, and if not, what is wrong in a sentence.
fn distance_shape(d: &[Vec<u32>], n: usize) -> Result<(), String> {
    if d.len() != n {
        return Err(format!(
            "the NUMA distance matrix has {} rows for {n} nodes; reset the distances to edit",
            d.len()
        ));
    }
    match d.iter().position(|row| row.len() != n) {
        Some(i) => Err(format!(
            "the NUMA distance matrix's row {i} has {} entries for {n} nodes; reset the distances to edit",
            d[i].len()
        )),
        None => Ok(()),
    }
}

/// Global CPU numbers of each core, in drawing order (node, LLC, core), as the library
/// numbers them. `None` if the topology is invalid.
pub fn core_cpus(t: &Topology) -> Option<Vec<Vec<u32>>> {
    t.build().ok().map(|m| m.core_cpus)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn edit() -> impl Strategy<Value = TopoEdit> {
        let i = 0u32..5;
        prop_oneof![
            Just(TopoEdit::AddNode),
            i.clone().prop_map(TopoEdit::DuplicateNode),
            i.clone().prop_map(TopoEdit::RemoveNode),
            i.clone().prop_map(TopoEdit::AddLlc),
            (i.clone(), i.clone()).prop_map(|(a, b)| TopoEdit::DuplicateLlc(a, b)),
            (i.clone(), i.clone()).prop_map(|(a, b)| TopoEdit::RemoveLlc(a, b)),
            (i.clone(), i.clone()).prop_map(|(a, b)| TopoEdit::AddCore(a, b)),
            (i.clone(), i.clone(), i.clone()).prop_map(|(a, b, c)| TopoEdit::DuplicateCore(a, b, c)),
            (i.clone(), i.clone(), i.clone()).prop_map(|(a, b, c)| TopoEdit::RemoveCore(a, b, c)),
            (i.clone(), i.clone(), i.clone(), 0u32..10).prop_map(|(a, b, c, t)| TopoEdit::SetThreads(a, b, c, t)),
            (0u32..10).prop_map(TopoEdit::SetAllThreads),
            (i.clone(), i.clone(), 0u32..300).prop_map(|(a, b, d)| TopoEdit::SetDistance(a, b, d)),
            Just(TopoEdit::ResetDistances),
        ]
    }

    proptest! {
        // Whatever the user clicks, the topology stays valid: an edit either applies and
        // validates, or is refused at its own spot and changes nothing.
        #[test]
        fn edits_keep_the_machine_valid(edits in proptest::collection::vec(edit(), 1..40)) {
            let mut t = Topology::uniform(1, 2, 2, 2);
            for e in edits {
                match apply(&t, e) {
                    Ok(t2) => {
                        prop_assert!(t2.validate().is_ok());
                        prop_assert!(t2.build().is_ok());
                        t = t2;
                    }
                    Err(r) => {
                        prop_assert_eq!(r.spot, e.spot());
                        prop_assert!(!r.message.is_empty());
                    }
                }
            }
        }
    }

    // A topology from a link or an import may carry a distance matrix of the wrong shape;
    // every edit that reads it is refused at its own spot (only Reset repairs it), never a
    // panic on an index.
    #[test]
    fn a_misshapen_distance_matrix_is_refused_not_a_panic() {
        let two = Topology::uniform(2, 1, 1, 1);
        let mut rows = two.clone();
        rows.numa_distance = Some(vec![vec![10, 21]]);
        let mut short = two.clone();
        short.numa_distance = Some(vec![vec![10, 21], vec![21]]);
        let edits = [
            TopoEdit::AddNode,
            TopoEdit::DuplicateNode(1),
            TopoEdit::RemoveNode(1),
            TopoEdit::SetDistance(0, 1, 30),
            TopoEdit::SetDistance(1, 0, 30),
            TopoEdit::AddCore(0, 0),
        ];
        for (bad, want) in [(&rows, "has 1 rows for 2 nodes"), (&short, "row 1 has 1 entries for 2 nodes")] {
            for e in edits {
                let r = apply(bad, e).unwrap_err();
                assert_eq!(r.spot, e.spot(), "{e:?}");
                assert!(r.message.contains(want), "{e:?}: {}", r.message);
            }
            let fixed = apply(bad, TopoEdit::ResetDistances).unwrap();
            assert_eq!(fixed.numa_distance, None);
        }
    }

    #[test]
    fn edits_and_refusals() {
        let t = Topology::uniform(2, 1, 2, 2);
        let t3 = apply(&t, TopoEdit::DuplicateNode(0)).unwrap();
        assert_eq!(t3.nodes.len(), 3);
        let t3 = apply(&t3, TopoEdit::SetDistance(0, 2, 31)).unwrap();
        assert_eq!(t3.numa_distance.as_ref().unwrap()[2][0], 31);
        let t4 = apply(&t3, TopoEdit::DuplicateNode(2)).unwrap();
        let d = t4.numa_distance.as_ref().unwrap();
        assert_eq!(d[3], vec![31, 21, 21, 10], "{d:?}");
        assert!(t4.validate().is_ok());
        let t2 = apply(&t4, TopoEdit::RemoveNode(0)).unwrap();
        assert_eq!(t2.numa_distance.as_ref().unwrap().len(), 3);
        assert!(t2.validate().is_ok());

        let r = apply(&t, TopoEdit::SetDistance(0, 1, 9)).unwrap_err();
        assert_eq!(r.spot, Spot::Distance(0, 1));
        let r = apply(&t, TopoEdit::SetThreads(0, 0, 1, 9)).unwrap_err();
        assert_eq!(r.spot, Spot::Core(0, 0, 1));
        let big = Topology::uniform(1, 1, 512, 2);
        let r = apply(&big, TopoEdit::AddCore(0, 0)).unwrap_err();
        assert!(r.message.contains("1026 CPUs"), "{}", r.message);
        let one = Topology::uniform(1, 1, 1, 1);
        assert!(apply(&one, TopoEdit::RemoveLlc(0, 0)).unwrap_err().message.contains("at least one LLC"));
        assert!(apply(&one, TopoEdit::RemoveNode(0)).is_err());
        assert!(apply(&one, TopoEdit::RemoveCore(5, 0, 0)).is_err());
        let mixed = apply(&t, TopoEdit::SetThreads(0, 0, 0, 1)).unwrap();
        assert_eq!(mixed.cpu_count(), 7);
        assert_eq!(mixed.spec(), None);
    }
}
