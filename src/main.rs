//! The `runner` binary: parse the command line, call the library, exit with its code.

fn main() {
    std::process::exit(runner::cli::main());
}
