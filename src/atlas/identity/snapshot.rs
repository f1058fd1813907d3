//! The lines of an agent-browser snapshot read as nodes:
//! `- role "name" [attr, key=value] clickable [onclick]: value`, two spaces of indent a level.
//! Names are quoted with JSON's escapes (`\"`, `\\`).

/// One line of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Node {
    /// How deep it is (its indent, in levels).
    pub(crate) depth: usize,
    pub(crate) role: String,
    /// Its accessible name, unescaped; empty when it has none.
    pub(crate) name: String,
    /// Its attributes in order (`level=1`, `selected`, `ref=e3`), refs left out.
    pub(crate) attrs: Vec<(String, String)>,
    /// Whether agent-browser marks it `clickable` (a click handler or a pointer cursor).
    pub(crate) clickable: bool,
    /// A field's value (`textbox "Title": Dune`).
    pub(crate) value: String,
}

impl Node {
    /// The value of an attribute (`""` for a flag such as `selected`), if it has it.
    pub(crate) fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The nodes of a snapshot, in document order.
pub(crate) fn parse(snapshot: &str) -> Vec<Node> {
    snapshot.lines().filter_map(node).collect()
}

fn node(line: &str) -> Option<Node> {
    let trimmed = line.trim_start();
    let depth = (line.len() - trimmed.len()) / 2;
    let item = trimmed.strip_prefix("- ")?;
    let role_end = item.find([' ', ':']).unwrap_or(item.len());
    let (role, mut rest) = item.split_at(role_end);
    if role.is_empty() {
        return None;
    }
    let mut n = Node {
        depth,
        role: role.to_string(),
        name: String::new(),
        attrs: Vec::new(),
        clickable: false,
        value: String::new(),
    };
    if let Some(after) = rest.strip_prefix(" \"") {
        let (name, tail) = quoted(after);
        n.name = name;
        rest = tail;
    }
    if let Some(after) = rest.strip_prefix(" [") {
        let (inside, tail) = after.split_once(']').unwrap_or((after, ""));
        n.attrs = attributes(inside);
        rest = tail;
    }
    if let Some(after) = rest.strip_prefix(" clickable [") {
        n.clickable = true;
        rest = after.split_once(']').map_or("", |(_, t)| t);
    }
    if let Some(value) = rest.strip_prefix(": ") {
        n.value = value.to_string();
    }
    Some(n)
}

/// The text of a quoted string up to its closing quote (unescaped), and what follows it.
fn quoted(s: &str) -> (String, &str) {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (out, &s[i + 1..]),
            '\\' => match chars.next() {
                Some((_, 'n' | 't' | 'r')) => out.push(' '),
                Some((_, other)) => out.push(other),
                None => {}
            },
            c => out.push(c),
        }
    }
    (out, "")
}

fn attributes(inside: &str) -> Vec<(String, String)> {
    inside
        .split(", ")
        .filter(|a| !a.is_empty() && !a.starts_with("ref="))
        .map(|a| match a.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (a.to_string(), String::new()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_nodes() {
        let nodes = parse(
            "- main\n  - heading \"Say \\\"hi\\\" [now]\" [level=1, ref=e1]\n  - textbox \"Title\" [required, ref=e4]: Dune\n    - StaticText \"Dune\"\n  - generic [ref=e6] clickable [onclick]\n  - combobox [expanded=false, ref=e92]: - column -\n",
        );
        assert_eq!(nodes.len(), 6);
        assert_eq!((nodes[0].depth, nodes[0].role.as_str()), (0, "main"));
        let h = &nodes[1];
        assert_eq!((h.depth, h.name.as_str()), (1, "Say \"hi\" [now]"));
        assert_eq!(h.attr("level"), Some("1"));
        assert_eq!(h.attr("ref"), None);
        assert_eq!(nodes[2].value, "Dune");
        assert_eq!(nodes[2].attr("required"), Some(""));
        assert_eq!((nodes[3].depth, nodes[3].role.as_str()), (2, "StaticText"));
        assert!(nodes[4].clickable && nodes[4].name.is_empty());
        assert_eq!(nodes[5].value, "- column -");
        assert_eq!(nodes[5].attr("expanded"), Some("false"));
    }

    #[test]
    fn what_is_not_a_node_line_is_skipped() {
        assert!(parse("").is_empty());
        assert!(parse("no dash here\n  \n- \n").is_empty());
        // An unterminated name is read to the end of its line.
        assert_eq!(parse("- button \"Half")[0].name, "Half");
    }
}
