//! Load + validate arbitrary bytes as a YAML and as a TOML flow: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for name in ["fuzz.yaml", "fuzz.toml"] {
        let _ = runner::fuzz_check(std::path::Path::new(name), data.to_vec());
    }
});
