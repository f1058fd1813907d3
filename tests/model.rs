//! `runner schema` prints the schema files byte for byte (the drift tests between the schema
//! and the typed model are unit tests in `src/config/drift_tests.rs`).

use crate::common::{output, root, runner};

#[test]
fn schema_command_prints_the_files() {
    for (which, file) in [
        ("flow", "flow.schema.json"),
        ("profile", "profile.schema.json"),
    ] {
        let mut c = runner(&root());
        c.args(["schema", which]);
        let (code, stdout, _) = output(c);
        assert_eq!(code, 0);
        let on_disk = std::fs::read_to_string(root().join("schemas").join(file)).unwrap();
        assert_eq!(
            stdout, on_disk,
            "`runner schema {which}` differs from schemas/{file}"
        );
    }
}
