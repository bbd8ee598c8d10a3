// SPDX-License-Identifier: Apache-2.0
//! Links proofline's SupraSeal library: libproofline_supraseal (Curio's
//! form), or libproofline_supraseal_upstream with the `upstream` feature.
//!
//! Where it is found, first that applies:
//!  - `PROOFLINE_LIB_DIR`: a folder holding it (an installed `lib/`, or a
//!    proofline build folder, where libproofline.so lies beside it);
//!  - pkg-config (`proofline_supraseal.pc`, installed with proofline-dev;
//!    `PKG_CONFIG_PATH` for a prefix of your own);
//!  - the linker's default paths (proofline installed under /usr).
//!
//! `PROOFLINE_STATIC=1` links the static archives instead (the library's,
//! then libproofline.a and the system libraries `pkg-config --static`
//! lists), so the binary needs no proofline at run time.
use std::env;
use std::process::Command;

fn pkg_config(args: &[&str], name: &str) -> Option<String> {
    let out = Command::new(env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into()))
        .args(args)
        .arg(name)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()
}

/// -L, -l and archive paths of a pkg-config line as cargo's directives.
fn emit_flags(flags: &str, static_first: &[&str]) {
    for f in flags.split_whitespace() {
        if let Some(dir) = f.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        } else if let Some(lib) = f.strip_prefix("-l") {
            let kind = if static_first.contains(&lib) {
                "static"
            } else {
                "dylib"
            };
            println!("cargo:rustc-link-lib={kind}={lib}");
        } else if f.ends_with(".a") && f.starts_with('/') {
            // an archive by its path (the static CUDA runtime)
            let p = std::path::Path::new(f);
            let dir = p.parent().unwrap().display();
            let stem = p.file_stem().unwrap().to_string_lossy();
            println!("cargo:rustc-link-search=native={dir}");
            println!(
                "cargo:rustc-link-lib=static={}",
                stem.trim_start_matches("lib")
            );
        }
    }
}

fn main() {
    for v in [
        "PROOFLINE_LIB_DIR",
        "PROOFLINE_STATIC",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG",
    ] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    let name = if env::var_os("CARGO_FEATURE_UPSTREAM").is_some() {
        "proofline_supraseal_upstream"
    } else {
        "proofline_supraseal"
    };
    let statik = env::var("PROOFLINE_STATIC")
        .map(|v| v == "1")
        .unwrap_or(false);

    if let Some(dir) = env::var_os("PROOFLINE_LIB_DIR") {
        let dir = dir.to_string_lossy().into_owned();
        println!("cargo:rustc-link-search=native={dir}");
        if statik {
            println!("cargo:rustc-link-lib=static={name}");
            println!("cargo:rustc-link-lib=static=proofline");
            // what libproofline.a needs of the system (its pkg-config
            // file's Libs.private; the CUDA backend's too when installed)
            match pkg_config(&["--static", "--libs"], "proofline") {
                Some(flags) => emit_flags(&flags.replace("-lproofline ", " "), &[]),
                None => {
                    for l in ["pthread", "m", "stdc++", "dl", "rt"] {
                        println!("cargo:rustc-link-lib=dylib={l}");
                    }
                }
            }
        } else {
            println!("cargo:rustc-link-lib=dylib={name}");
        }
        return;
    }
    let args: &[&str] = if statik {
        &["--static", "--libs"]
    } else {
        &["--libs"]
    };
    if let Some(flags) = pkg_config(args, name) {
        let archives: &[&str] = if statik { &[name, "proofline"] } else { &[] };
        emit_flags(&flags, archives);
        return;
    }
    // installed where the linker looks by default
    if statik {
        println!("cargo:rustc-link-lib=static={name}");
        println!("cargo:rustc-link-lib=static=proofline");
        for l in ["pthread", "m", "stdc++", "dl", "rt"] {
            println!("cargo:rustc-link-lib=dylib={l}");
        }
    } else {
        println!("cargo:rustc-link-lib=dylib={name}");
    }
}
