//! `numactl --hardware`: the `node distances:` table and `node N cpus:` lines, found
//! anywhere in the text and marked used.

use super::{parse_cpu, snippet, ImportError, Numa, Res};
use std::collections::BTreeSet;

pub(super) fn take_numactl(lines: &[&str], used: &mut [bool]) -> Res<Option<Numa>> {
    let mut numa = Numa::default();
    let mut seen = false;
    let mut i = 0;
    while i < lines.len() {
        if used[i] {
            i += 1;
            continue;
        }
        let t = lines[i].trim();
        let lower = t.to_ascii_lowercase();
        if (lower.starts_with("available:") && lower.contains("node")) || lower.starts_with("no numa available") {
            used[i] = true;
            seen = true;
        } else if lower == "node distances:" {
            used[i] = true;
            seen = true;
            i = take_distances(lines, used, i + 1, &mut numa)?;
            continue;
        } else if let Some(rest) = t.strip_prefix("node ") {
            let tok: Vec<&str> = rest.split_whitespace().collect();
            if tok.len() >= 2
                && tok[0].bytes().all(|b| b.is_ascii_digit())
                && matches!(tok[1], "cpus:" | "size:" | "free:")
            {
                used[i] = true;
                seen = true;
                if tok[1] == "cpus:" {
                    let node = parse_node(tok[0], i + 1)?;
                    let cpus = tok[2..].iter().map(|c| parse_cpu(c, i + 1, "a CPU")).collect::<Res<Vec<u32>>>()?;
                    if numa.node_cpus.insert(node, cpus).is_some() {
                        return Err(ImportError::at(i + 1, format!("node {node} cpus are listed twice")));
                    }
                }
            }
        }
        i += 1;
    }
    Ok(seen.then_some(numa))
}

pub(super) fn parse_node(tok: &str, line: usize) -> Res<u32> {
    match tok.parse::<u32>() {
        Ok(n) if n <= 4095 => Ok(n),
        _ => Err(ImportError::at(line, format!("node {tok:?} is not a node number (0 to 4095)"))),
    }
}

/// The table after `node distances:`; returns the index of the line after it.
fn take_distances(lines: &[&str], used: &mut [bool], start: usize, numa: &mut Numa) -> Res<usize> {
    let Some(h) = (start..lines.len()).find(|&j| !lines[j].trim().is_empty()) else {
        return Err(ImportError::at(start, "'node distances:' is not followed by the distance table"));
    };
    let tok: Vec<&str> = lines[h].split_whitespace().collect();
    if tok.first() != Some(&"node") || tok.len() < 2 {
        return Err(ImportError::at(
            h + 1,
            format!("expected the distance table header 'node 0 1 ...', found {}", snippet(lines[h])),
        ));
    }
    let ids = tok[1..].iter().map(|t| parse_node(t, h + 1)).collect::<Res<Vec<u32>>>()?;
    if ids.iter().collect::<BTreeSet<_>>().len() != ids.len() {
        return Err(ImportError::at(h + 1, "the distance table header names a node twice"));
    }
    used[h] = true;
    let count = ids.len();
    let mut rows = Vec::new();
    for (k, id) in ids.iter().enumerate() {
        let j = h + 1 + k;
        let Some(line) = lines.get(j) else {
            return Err(ImportError::at(
                lines.len().max(1),
                format!("the distance table ends after {k} of {} rows", ids.len()),
            ));
        };
        let tok: Vec<&str> = line.split_whitespace().collect();
        if tok.first() != Some(&format!("{id}:").as_str()) {
            return Err(ImportError::at(j + 1, format!("expected distance row '{id}:', found {}", snippet(line))));
        }
        if tok.len() - 1 != ids.len() {
            return Err(ImportError::at(
                j + 1,
                format!("distance row '{id}:' has {} values, expected {}", tok.len() - 1, ids.len()),
            ));
        }
        let row = tok[1..]
            .iter()
            .map(|t| {
                t.parse::<u32>().map_err(|_| ImportError::at(j + 1, format!("distance {t:?} is not a whole number")))
            })
            .collect::<Res<Vec<u32>>>()?;
        used[j] = true;
        rows.push(row);
    }
    numa.distance = Some((ids, rows, h + 1));
    Ok(h + 1 + count)
}
