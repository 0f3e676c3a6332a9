// Links libddbst as pkg-config describes it (PKG_CONFIG_PATH for an install
// outside the system's prefix), with the standard library alone: no
// pkg-config crate. DDBST_STATIC=1 links libddbst.a (ddbst-static.pc).
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=DDBST_STATIC");
    let statically = env::var("DDBST_STATIC").map(|v| v == "1").unwrap_or(false);
    let package = if statically { "ddbst-static" } else { "ddbst" };
    let mut args = vec!["--libs"];
    if statically {
        args.push("--static");
    }
    args.push(package);
    let out = Command::new("pkg-config").args(&args).output().unwrap_or_else(|e| {
        panic!("pkg-config could not run ({}): install pkg-config and ddbst", e)
    });
    if !out.status.success() {
        panic!(
            "pkg-config {}: {} (set PKG_CONFIG_PATH to the lib/pkgconfig of an installed ddbst)",
            package,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    // Linked again when the installed ddbst changes (a new version may need
    // another library): cargo keeps this script's answer until then.
    let pcdir = Command::new("pkg-config")
        .args(["--variable=pcfiledir", package])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(dir) = pcdir.filter(|d| !d.is_empty()) {
        println!("cargo:rerun-if-changed={}/{}.pc", dir, package);
    }
    for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
            if !statically {
                // tests and binaries of this crate find the library where
                // pkg-config said it is
                println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
            }
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={}", lib);
        } else if flag.ends_with(".a") {
            let path = std::path::Path::new(flag);
            println!("cargo:rustc-link-search=native={}", path.parent().unwrap().display());
            let name = path.file_stem().unwrap().to_string_lossy();
            println!("cargo:rustc-link-lib=static={}", name.trim_start_matches("lib"));
        } else if flag == "-pthread" {
            println!("cargo:rustc-link-lib=pthread");
        }
    }
}
