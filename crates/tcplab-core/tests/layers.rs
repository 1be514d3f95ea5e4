// SPDX-License-Identifier: MIT OR Apache-2.0
//! The module layers of docs/internals.md: a module uses only modules of
//! lower layers (and itself). Read from the source, so a new `use` that
//! reaches upwards fails here, naming the file and the line.

use std::path::{Path, PathBuf};

/// Lowest first. Modules of one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    // The foundation: simulated time, units, random streams, errors and
    // fallible allocation.
    &["time", "rng", "error"],
    &["units"],
    &["alloc"],
    &["engine", "hist", "par"],
    &["net"],
    &["cc", "pcap"],
    &["tcp"],
    &["scenario"],
    &["results", "drill"],
    &["world", "schema"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a source file belongs to (`net` for src/net/qdisc/mod.rs).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_string())
}

/// The `crate::NAME` paths a line of code uses (comments skipped).
fn uses(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let tail = &rest[i + 7..];
        let name: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
        rest = tail;
    }
    // `use crate::{a, b}` lists several.
    if let Some(i) = code.find("crate::{") {
        let inner = code[i + 8..].split('}').next().unwrap_or("");
        for part in inner.split(',') {
            let name: String = part
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

#[test]
fn every_module_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        let own = layer(&module).unwrap_or_else(|| {
            panic!(
                "{}: module '{module}' has no layer in this test",
                file.display()
            )
        });
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for used in uses(line) {
                // Macros exported at the crate root (deserialize_names!) belong
                // to the foundation.
                let Some(theirs) = layer(&used) else { continue };
                seen += 1;
                if used != module && theirs >= own {
                    wrong.push(format!(
                        "{}:{}: '{module}' (layer {own}) uses '{used}' (layer {theirs})",
                        file.strip_prefix(&src).unwrap().display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        seen > 100,
        "the scan found only {seen} uses: is it reading the sources?"
    );
    assert!(
        wrong.is_empty(),
        "uses against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_an_upward_use() {
    assert_eq!(
        uses("use crate::world::World; // crate::engine"),
        vec!["world"]
    );
    assert_eq!(uses("use crate::{net, tcp::Sender};"), vec!["net", "tcp"]);
    assert_eq!(uses("/// see [`crate::world`]"), Vec::<String>::new());
}

#[test]
fn no_source_file_is_over_600_lines_before_its_tests() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("tests.rs"))
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let n = text
                .lines()
                .take_while(|l| !l.starts_with("#[cfg(test)]"))
                .count();
            (n > 600).then(|| format!("{}: {n} lines", f.strip_prefix(&src).unwrap().display()))
        })
        .collect();
    assert!(long.is_empty(), "split these files:\n{}", long.join("\n"));
}
