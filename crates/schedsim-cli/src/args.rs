//! A small hand-written argument parser: `--flag VALUE`, `--flag=VALUE`, boolean
//! `--flag`, positionals, `--` to end options, and `-h`/`--help` anywhere. Each
//! command declares its flags as a table, which also produces its help text, so help
//! and parser cannot drift apart.

use crate::error::CliError;

/// One option a command accepts.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// Long name without the dashes.
    pub name: &'static str,
    /// Placeholder of the value (`N`, `FILE`), or `None` for a boolean switch.
    pub value: Option<&'static str>,
    /// May be given more than once (values accumulate).
    pub repeat: bool,
    pub help: &'static str,
}

impl Flag {
    pub const fn value(name: &'static str, value: &'static str, help: &'static str) -> Flag {
        Flag { name, value: Some(value), repeat: false, help }
    }

    pub const fn switch(name: &'static str, help: &'static str) -> Flag {
        Flag { name, value: None, repeat: false, help }
    }

    pub const fn repeated(name: &'static str, value: &'static str, help: &'static str) -> Flag {
        Flag { name, value: Some(value), repeat: true, help }
    }
}

/// The parsed command line of one command.
#[derive(Debug, Default)]
pub struct Parsed {
    pub positionals: Vec<String>,
    /// (flag name, value) in command-line order; switches have an empty value.
    pub flags: Vec<(&'static str, String)>,
    pub help: bool,
}

impl Parsed {
    pub fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| *n == name)
    }

    /// The value of a non-repeated flag.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// Every value of a repeated flag, in order.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.flags.iter().filter(|(n, _)| *n == name).map(|(_, v)| v.as_str()).collect()
    }

    /// A whole number flag, with a message naming the flag when it is not one.
    pub fn number<T: std::str::FromStr + Bounded>(&self, name: &str) -> Result<Option<T>, CliError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => parse_number(v)
                .map(Some)
                .ok_or_else(|| CliError::input(format!("--{name}: {}", number_problem::<T>(v)))),
        }
    }

    /// A whole number flag whose values lie in `lo..=hi`: a negative or over-long value
    /// is said to be out of that range (not "from 0" or "at most 2^64 - 1"). The caller
    /// still checks the range of a value that parses.
    pub fn number_in<T: std::str::FromStr + Bounded>(
        &self,
        name: &str,
        lo: u64,
        hi: u64,
    ) -> Result<Option<T>, CliError> {
        self.number::<T>(name).map_err(|e| match self.get(name) {
            Some(v) if out_of_any_range(v) => {
                let shown = schedsim::input::clip(v);
                if v.starts_with('-') {
                    CliError::input(format!(
                        "--{name}: {shown:?} is negative; expected a whole number from {lo} to {hi}"
                    ))
                } else {
                    CliError::input(format!("--{name}: {shown:?} is out of range {lo} to {hi}"))
                }
            }
            _ => e,
        })
    }
}

/// A negative or too-large whole number, as opposed to text that is no number at all.
fn out_of_any_range(v: &str) -> bool {
    let digits = v.strip_prefix('-').unwrap_or(v);
    !digits.is_empty()
        && digits.chars().any(|c| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// The largest value of the unsigned types the CLI reads.
pub trait Bounded {
    const MAX_TEXT: &'static str;
}
impl Bounded for u32 {
    const MAX_TEXT: &'static str = "4294967295";
}
impl Bounded for u64 {
    const MAX_TEXT: &'static str = "18446744073709551615";
}
impl Bounded for usize {
    const MAX_TEXT: &'static str = "18446744073709551615";
}

/// Why `v` is not a whole number of type `T`, in words.
pub fn number_problem<T: Bounded>(v: &str) -> String {
    let shown = schedsim::input::clip(v);
    let digits = v.chars().any(|c| c.is_ascii_digit());
    if v.trim() != v && !v.trim().is_empty() {
        format!("{shown:?} has spaces around it; expected a whole number such as 7")
    } else if v.starts_with('-') && v.len() > 1 && v[1..].chars().all(|c| c.is_ascii_digit() || c == '_') {
        format!("{shown:?} is negative; expected a whole number from 0")
    } else if digits && v.chars().all(|c| c.is_ascii_digit() || c == '_') {
        format!("{shown:?} is too large; at most {}", T::MAX_TEXT)
    } else if !v.is_empty() && v.chars().all(|c| c == '_') {
        format!("{shown:?} has no digits; expected a whole number such as 7 (1_000 is allowed)")
    } else {
        format!("{shown:?} is not a whole number")
    }
}

/// Parses a whole number, allowing `_` separators (`1_000`) but not signs or spaces.
pub fn parse_number<T: std::str::FromStr>(s: &str) -> Option<T> {
    let cleaned: String = s.chars().filter(|&c| c != '_').collect();
    if cleaned.is_empty() || !cleaned.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    cleaned.parse().ok()
}

/// Parses `args` (everything after the command name) against `flags`.
pub fn parse(command: &str, flags: &[Flag], args: &[String]) -> Result<Parsed, CliError> {
    let mut out = Parsed::default();
    let mut i = 0;
    let mut only_positionals = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if only_positionals || a == "-" || !a.starts_with('-') {
            out.positionals.push(a.clone());
            continue;
        }
        if a == "--" {
            only_positionals = true;
            continue;
        }
        if a == "-h" || a == "--help" {
            out.help = true;
            continue;
        }
        let Some(body) = a.strip_prefix("--") else {
            return Err(CliError::input(format!(
                "{command}: unknown option {a:?}; options are spelled --name (try 'schedsim {command} --help')"
            )));
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(flag) = flags.iter().find(|f| f.name == name) else {
            return Err(CliError::input(format!(
                "{command}: unknown option --{name} (try 'schedsim {command} --help')"
            )));
        };
        let value = match (flag.value, inline) {
            (None, None) => String::new(),
            (None, Some(_)) => {
                return Err(CliError::input(format!("--{name}: takes no value")));
            }
            (Some(_), Some(v)) => v,
            (Some(meta), None) => {
                // The next argument is the value even if it starts with '-', so that
                // `--duration-ms -5` says "-5 is not a whole number", not "unknown option".
                match args.get(i) {
                    // ...but another option of this command is not a value: `--kernel
                    // --duration-ms 5` means a forgotten value, not a kernel spec.
                    Some(v)
                        if v.strip_prefix("--").is_some_and(|o| {
                            let o = o.split_once('=').map_or(o, |(o, _)| o);
                            flags.iter().any(|f| f.name == o)
                        }) =>
                    {
                        return Err(CliError::input(format!("--{name}: needs a value {meta} (got the option {v})")));
                    }
                    Some(v) => {
                        i += 1;
                        v.clone()
                    }
                    None => return Err(CliError::input(format!("--{name}: needs a value {meta}"))),
                }
            }
        };
        if !flag.repeat && out.has(flag.name) {
            return Err(CliError::input(format!("--{name}: given more than once")));
        }
        out.flags.push((flag.name, value));
    }
    Ok(out)
}

/// The options part of a help text, generated from the flag table.
pub fn options_help(flags: &[Flag]) -> String {
    let cols: Vec<String> = flags
        .iter()
        .map(|f| match f.value {
            Some(v) => format!("--{} {v}", f.name),
            None => format!("--{}", f.name),
        })
        .collect();
    let w = cols.iter().map(|c| c.len()).max().unwrap_or(0).max(10);
    let mut s = String::new();
    for (c, f) in cols.iter().zip(flags) {
        let mut lines = f.help.lines();
        s.push_str(&format!("  {c:<w$}  {}\n", lines.next().unwrap_or("")));
        for l in lines {
            s.push_str(&format!("  {:<w$}  {l}\n", ""));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: &[Flag] =
        &[Flag::value("seed", "N", "seed"), Flag::switch("json", "json"), Flag::repeated("kernel", "SPEC", "kernel")];

    fn p(args: &[&str]) -> Result<Parsed, CliError> {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse("run", FLAGS, &v)
    }

    #[test]
    fn values_switches_and_positionals() {
        let r = p(&["demo", "--seed", "7", "--json", "--kernel=a=v5.15", "--kernel", "b=v4.15"]).unwrap();
        assert_eq!(r.positionals, ["demo"]);
        assert_eq!(r.get("seed"), Some("7"));
        assert!(r.has("json"));
        assert_eq!(r.all("kernel"), ["a=v5.15", "b=v4.15"]);
        assert_eq!(r.number::<u64>("seed").unwrap(), Some(7));
    }

    #[test]
    fn negative_value_is_a_value_not_an_option() {
        let r = p(&["--seed", "-5"]).unwrap();
        let e = r.number::<u64>("seed").unwrap_err();
        assert!(e.msg.contains("\"-5\" is negative"), "{}", e.msg);
    }

    #[test]
    fn errors() {
        assert!(p(&["--nope"]).unwrap_err().msg.contains("unknown option --nope"));
        assert!(p(&["-x"]).unwrap_err().msg.contains("unknown option"));
        assert!(p(&["--seed"]).unwrap_err().msg.contains("needs a value"));
        // Another option where the value should be: a forgotten value, named.
        let e = p(&["--seed", "--seed=3"]).unwrap_err().msg;
        assert!(e.contains("--seed: needs a value") && e.contains("got the option --seed=3"), "{e}");
        assert!(p(&["--seed", "1", "--seed", "2"]).unwrap_err().msg.contains("more than once"));
        assert!(p(&["--json=yes"]).unwrap_err().msg.contains("takes no value"));
        assert!(p(&["--help"]).unwrap().help);
        assert_eq!(p(&["--", "--json"]).unwrap().positionals, ["--json"]);
    }

    #[test]
    fn a_number_with_a_range_says_the_range() {
        let r = p(&["--seed", "-1", "--json"]).unwrap();
        let e = r.number_in::<u32>("seed", 1, 1024).unwrap_err();
        assert_eq!(e.msg, "--seed: \"-1\" is negative; expected a whole number from 1 to 1024");
        let r = p(&["--seed", "99999999999999999999"]).unwrap();
        assert!(r.number_in::<u64>("seed", 1, 600000).unwrap_err().msg.ends_with("is out of range 1 to 600000"));
        let r = p(&["--seed", "x1"]).unwrap();
        assert!(r.number_in::<u32>("seed", 1, 9).unwrap_err().msg.contains("not a whole number"));
        let r = p(&["--seed", "7"]).unwrap();
        assert_eq!(r.number_in::<u32>("seed", 1, 9).unwrap(), Some(7));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_number::<u32>("1_000"), Some(1000));
        assert_eq!(parse_number::<u32>("+5"), None);
        assert_eq!(parse_number::<u32>(""), None);
        assert_eq!(parse_number::<u32>("99999999999"), None);
        // Only an over-long number is "too large"; say what else is wrong.
        assert!(number_problem::<u32>("99999999999").contains("too large"));
        assert!(number_problem::<u32>("1 ").contains("has spaces"), "{}", number_problem::<u32>("1 "));
        assert!(number_problem::<u32>(" 7").contains("has spaces"));
        assert!(number_problem::<u32>("_").contains("has no digits"));
        assert!(number_problem::<u32>("1x").contains("is not a whole number"));
        assert!(number_problem::<u32>("-5").contains("negative"));
        assert!(number_problem::<u32>(&"9".repeat(1000)).len() < 200);
    }
}
