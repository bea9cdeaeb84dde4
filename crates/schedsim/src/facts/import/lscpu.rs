//! `lscpu -p` (comma-separated rows under a `#` header naming the columns) and
//! `lscpu -e` (a whitespace table under a `CPU NODE SOCKET ...` header): the same
//! columns, read by one column classifier and one row reader.

use super::{parse_cpu, snippet, CoreKey, ImportError, Llc, LlcId, Rec, Res, Table};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Col {
    Cpu,
    Core,
    Socket,
    Node,
    Drawer,
    Book,
    Die,
    Cluster,
    Online,
    Configured,
    ModelName,
    /// One cache per column (compat `lscpu -p`: `,L1d,L1i,L2,L3`).
    Cache(CacheName),
    /// Several caches in one column, `L1d:L1i:L2:L3`.
    Caches(Vec<CacheName>),
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct CacheName {
    level: u32,
    instruction: bool,
    label: String,
}

fn cache_name(s: &str) -> Option<CacheName> {
    let b = s.as_bytes();
    if b.len() < 2 || !(b[0] == b'L' || b[0] == b'l') {
        return None;
    }
    let digits: String = s[1..].chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &s[1 + digits.len()..];
    let level = digits.parse::<u32>().ok().filter(|&l| (1..=9).contains(&l))?;
    let instruction = match rest.to_ascii_lowercase().as_str() {
        "" | "d" => false,
        "i" => true,
        _ => return None,
    };
    Some(CacheName { level, instruction, label: s.to_string() })
}

fn classify_col(name: &str) -> Col {
    match name.trim().to_ascii_lowercase().as_str() {
        "cpu" => Col::Cpu,
        "core" => Col::Core,
        "socket" => Col::Socket,
        "node" => Col::Node,
        "drawer" => Col::Drawer,
        "book" => Col::Book,
        "die" => Col::Die,
        "cluster" => Col::Cluster,
        "online" => Col::Online,
        "configured" => Col::Configured,
        "modelname" => Col::ModelName,
        n => {
            if let Some(c) = cache_name(name.trim()) {
                Col::Cache(c)
            } else if n.contains(':') {
                match name.trim().split(':').map(cache_name).collect::<Option<Vec<_>>>() {
                    Some(v) => Col::Caches(v),
                    None => Col::Other,
                }
            } else {
                Col::Other
            }
        }
    }
}

struct Header {
    names: Vec<String>,
    cols: Vec<Col>,
    /// As the user would recognise it in a message: `CPU,Core,Socket,Node,,L1d,L1i,L2,L3`.
    text: String,
}

impl Header {
    fn new(names: Vec<String>, sep: &str, line: usize) -> Res<Header> {
        let cols: Vec<Col> = names.iter().map(|n| classify_col(n)).collect();
        let text = names.join(sep);
        if !cols.contains(&Col::Cpu) {
            return Err(ImportError::at(line, format!("the header {text:?} has no CPU column")));
        }
        Ok(Header { names, cols, text })
    }

    /// How many fields a row needs for every column this importer reads.
    fn needed(&self) -> usize {
        self.cols.iter().rposition(|c| !matches!(c, Col::Other | Col::ModelName)).map_or(0, |i| i + 1)
    }
}

/// What one row says.
enum Row {
    Online(Rec),
    Offline(u32),
    /// No socket, core or cache: nothing to place it by.
    Unplaced(u32),
}

fn opt_id(v: &str, line: usize, name: &str) -> Res<Option<i64>> {
    let v = v.trim();
    if v.is_empty() || v == "-" {
        return Ok(None);
    }
    v.parse::<i64>()
        .map(Some)
        .map_err(|_| ImportError::at(line, format!("{name} is {v:?}, expected a number, '-' or nothing")))
}

fn yes_no(v: &str, line: usize, name: &str) -> Res<Option<bool>> {
    match v.trim().to_ascii_lowercase().as_str() {
        "" | "-" => Ok(None),
        "y" | "yes" => Ok(Some(true)),
        "n" | "no" => Ok(Some(false)),
        other => Err(ImportError::at(line, format!("{name} is {other:?}, expected yes or no (Y or N)"))),
    }
}

fn read_row(h: &Header, fields: &[&str], line: usize) -> Res<Row> {
    let mut cpu = None;
    let (mut node, mut socket, mut core) = (None, None, None);
    let mut outer = [None; 4];
    let (mut online, mut configured) = (None, None);
    let mut caches: Vec<(CacheName, i64)> = Vec::new();
    for ((col, name), v) in h.cols.iter().zip(&h.names).zip(fields) {
        match col {
            Col::Cpu => cpu = Some(parse_cpu(v, line, name)?),
            Col::Core => core = opt_id(v, line, name)?,
            Col::Socket => socket = opt_id(v, line, name)?,
            Col::Node => node = opt_id(v, line, name)?,
            Col::Drawer => outer[0] = opt_id(v, line, name)?,
            Col::Book => outer[1] = opt_id(v, line, name)?,
            Col::Die => outer[2] = opt_id(v, line, name)?,
            Col::Cluster => outer[3] = opt_id(v, line, name)?,
            Col::Online => online = yes_no(v, line, name)?,
            Col::Configured => configured = yes_no(v, line, name)?,
            Col::Cache(c) => {
                if let Some(id) = opt_id(v, line, name)? {
                    caches.push((c.clone(), id));
                }
            }
            Col::Caches(cs) => {
                let v = v.trim();
                if v.is_empty() || v == "-" {
                    continue;
                }
                let parts: Vec<&str> = v.split(':').collect();
                if parts.len() != cs.len() {
                    return Err(ImportError::at(
                        line,
                        format!("{name} is {v:?}: {} ids, the header names {}", parts.len(), cs.len()),
                    ));
                }
                for (c, p) in cs.iter().zip(parts) {
                    if let Some(id) = opt_id(p, line, &c.label)? {
                        caches.push((c.clone(), id));
                    }
                }
            }
            Col::ModelName | Col::Other => {}
        }
    }
    let Some(cpu) = cpu else {
        return Err(ImportError::at(line, "no CPU number"));
    };
    if online == Some(false) || (online.is_none() && configured == Some(false)) {
        return Ok(Row::Offline(cpu));
    }
    if core.is_none() && socket.is_none() && caches.is_empty() && node.is_none() {
        return Ok(Row::Unplaced(cpu));
    }
    // The LLC is the farthest data or unified cache the row names.
    let llc = caches.iter().filter(|(c, _)| !c.instruction).max_by_key(|(c, _)| c.level).map(|(c, id)| Llc {
        rank: c.level,
        label: format!("L{}", c.level),
        id: LlcId::Id(*id),
    });
    Ok(Row::Online(Rec { cpu, line, node, socket, outer, core: core.map(CoreKey::Id), llc }))
}

/// Adds a row to the table, refusing a CPU seen before.
fn add_row(t: &mut Table, seen: &mut BTreeMap<u32, usize>, row: Row, line: usize) -> Res<()> {
    let cpu = match &row {
        Row::Online(r) => r.cpu,
        Row::Offline(c) | Row::Unplaced(c) => *c,
    };
    if let Some(first) = seen.insert(cpu, line) {
        return Err(ImportError::at(line, format!("CPU {cpu} appears twice (first on line {first})")));
    }
    match row {
        Row::Online(r) => t.recs.push(r),
        Row::Offline(c) => {
            t.offline.insert(c);
        }
        Row::Unplaced(c) => {
            t.mentioned.insert(c);
        }
    }
    Ok(())
}

pub(super) fn parse_lscpu_p(lines: &[&str], used: &[bool]) -> Res<Table> {
    let mut t = Table { offline_why: "marked offline (Online N)", ..Table::default() };
    let mut seen = BTreeMap::new();
    let mut header: Option<Header> = None;
    for (i, raw) in lines.iter().enumerate() {
        if used[i] {
            continue;
        }
        let line = i + 1;
        let s = raw.trim();
        if let Some(body) = s.strip_prefix('#') {
            let body = body.trim();
            let first = body.split(',').next().unwrap_or("").trim();
            if first.eq_ignore_ascii_case("cpu") {
                let names = body.split(',').map(|n| n.trim().to_string()).collect();
                header = Some(Header::new(names, ",", line)?);
            }
            continue;
        }
        let Some(h) = &header else {
            return Err(ImportError::at(
                line,
                format!(
                    "found {} before the lscpu -p header line '# CPU,Core,Socket,Node,,L1d,L1i,L2,L3' \
                     (keep the '#' lines when pasting)",
                    snippet(s)
                ),
            ));
        };
        let fields: Vec<&str> = s.split(',').collect();
        if fields.len() != h.names.len() {
            return Err(ImportError::at(
                line,
                format!("expected {} comma-separated fields ({}), found {}", h.names.len(), h.text, fields.len()),
            ));
        }
        let row = read_row(h, &fields, line)?;
        add_row(&mut t, &mut seen, row, line)?;
    }
    if header.is_none() {
        return Err(ImportError::whole("lscpu -p output without its '# CPU,Core,Socket,...' header line"));
    }
    Ok(t)
}

pub(super) fn parse_lscpu_e(lines: &[&str], used: &[bool]) -> Res<Table> {
    let mut t = Table { offline_why: "marked offline (ONLINE no)", ..Table::default() };
    let mut seen = BTreeMap::new();
    let mut header: Option<Header> = None;
    for (i, raw) in lines.iter().enumerate() {
        if used[i] {
            continue;
        }
        let line = i + 1;
        if raw.trim().starts_with('#') {
            continue;
        }
        let tok: Vec<&str> = raw.split_whitespace().collect();
        if tok.first().is_some_and(|w| w.eq_ignore_ascii_case("cpu")) {
            header = Some(Header::new(tok.iter().map(|s| s.to_string()).collect(), " ", line)?);
            continue;
        }
        let Some(h) = &header else {
            return Err(ImportError::at(line, "expected the lscpu -e header line 'CPU NODE SOCKET CORE ...'"));
        };
        let n = h.names.len();
        let mut fields: Vec<String> = tok.iter().map(|s| s.to_string()).collect();
        // MODELNAME is the one column whose values contain spaces.
        if fields.len() > n {
            if let Some(m) = h.cols.iter().position(|c| *c == Col::ModelName) {
                let extra = fields.len() - n;
                let joined = fields[m..=m + extra].join(" ");
                fields.splice(m..=m + extra, [joined]);
            }
        }
        if fields.len() > n || fields.len() < h.needed() {
            return Err(ImportError::at(
                line,
                format!("expected {n} whitespace-separated columns ({}), found {}", h.text, tok.len()),
            ));
        }
        let refs: Vec<&str> = fields.iter().map(String::as_str).collect();
        let row = read_row(h, &refs, line)?;
        add_row(&mut t, &mut seen, row, line)?;
    }
    if header.is_none() {
        return Err(ImportError::whole("lscpu -e output without its 'CPU NODE SOCKET CORE ...' header line"));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_names() {
        assert_eq!(classify_col("L3"), Col::Cache(CacheName { level: 3, instruction: false, label: "L3".into() }));
        assert!(matches!(classify_col("L1d:L1i:L2:L3"), Col::Caches(v) if v.len() == 4 && v[1].instruction));
        assert_eq!(classify_col("MAXMHZ"), Col::Other);
        assert_eq!(classify_col(""), Col::Other);
    }
}
