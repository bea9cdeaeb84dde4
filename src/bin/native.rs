//! Native twin of the page's worker: runs an experiment exactly as the worker does and
//! prints the report JSON, so tests can compare the page's export byte for byte, and
//! times the built-in sweeps for the page-versus-native budget.
//!
//! ```text
//! schedsim-native run FILE.json      report JSON of the experiment in FILE (- = stdin)
//! schedsim-native preset NAME        experiment JSON of a built-in preset
//! schedsim-native bench [NAME...]    wall time of each preset's sweep, one JSON line each
//! ```

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(native::main(std::env::args().skip(1).collect()));
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use schedsim::{presets, Experiment};
    use std::io::Read;
    use std::time::Instant;

    pub fn main(args: Vec<String>) -> i32 {
        match run(&args) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("schedsim-native: {e}");
                2
            }
        }
    }

    fn run(args: &[String]) -> Result<(), String> {
        match args.first().map(String::as_str) {
            Some("run") => {
                let path = args.get(1).ok_or("run: give an experiment file (or -)")?;
                let text = if path == "-" {
                    let mut s = String::new();
                    std::io::stdin().read_to_string(&mut s).map_err(|e| e.to_string())?;
                    s
                } else {
                    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?
                };
                let exp = Experiment::from_json(&text).map_err(|e| e.to_string())?;
                let t = Instant::now();
                let report = exp.run(&mut |_| true).map_err(|e| e.to_string())?;
                eprintln!("wall_ms={:.1}", t.elapsed().as_secs_f64() * 1e3);
                print!("{}", report.to_json());
                Ok(())
            }
            Some("preset") => {
                let name = args.get(1).ok_or("preset: give a preset name")?;
                let exp = presets::experiment(name).ok_or_else(|| format!("unknown preset {name:?}"))?;
                println!("{}", exp.to_json());
                Ok(())
            }
            Some("bench") => {
                let names: Vec<String> = if args.len() > 1 {
                    args[1..].to_vec()
                } else {
                    presets::presets().iter().map(|p| p.name.to_string()).collect()
                };
                for name in names {
                    let exp = presets::experiment(&name).ok_or_else(|| format!("unknown preset {name:?}"))?;
                    let t = Instant::now();
                    let report = exp.run(&mut |_| true).map_err(|e| e.to_string())?;
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    let bytes = report.to_json().len();
                    println!("{{\"preset\":\"{name}\",\"wall_ms\":{ms:.1},\"report_bytes\":{bytes}}}");
                }
                Ok(())
            }
            _ => Err("usage: schedsim-native run FILE.json | preset NAME | bench [NAME...]".into()),
        }
    }
}
