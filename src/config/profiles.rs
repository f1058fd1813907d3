//! Agent profiles: built-in ones embedded from `profiles/`, a project's `profiles/` directory and
//! `--profiles DIR` override them by label (later wins).

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;

use crate::config::document;
use crate::config::schema::{self, SchemaKind};
use crate::source::Diagnostic;

/// The profiles shipped inside the binary: (file name, text).
pub(crate) const BUILT_IN: &[(&str, &str)] = &[
    (
        "claude-code.toml",
        include_str!("../../profiles/claude-code.toml"),
    ),
    ("codex.toml", include_str!("../../profiles/codex.toml")),
    ("cursor.toml", include_str!("../../profiles/cursor.toml")),
    ("gemini.toml", include_str!("../../profiles/gemini.toml")),
    (
        "opencode.toml",
        include_str!("../../profiles/opencode.toml"),
    ),
];

/// One profile file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Profile {
    /// Accepted so editors can point at the schema; not used.
    #[serde(rename = "$schema")]
    #[allow(dead_code)]
    pub(crate) schema: Option<String>,
    pub(crate) label: String,
    pub(crate) executor_type: String,
    pub(crate) kind: Kind,
    /// Documentation for readers of the profile; not used.
    #[allow(dead_code)]
    pub(crate) description: Option<String>,
    pub(crate) command: ProfileCommand,
    #[serde(default)]
    pub(crate) variants: Vec<Variant>,
    /// Where it came from (`built-in` or a path).
    #[serde(skip)]
    pub(crate) origin: String,
}

/// The output protocol of an agent CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    Claude,
    Codex,
    Gemini,
    Cursor,
    Opencode,
    Generic,
}

/// A command line.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProfileCommand {
    pub(crate) binary: String,
    #[serde(default)]
    pub(crate) args: Vec<String>,
    #[serde(default)]
    pub(crate) env: IndexMap<String, String>,
}

/// A named variation of a profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Variant {
    pub(crate) label: String,
    /// Documentation for readers of the profile; not used.
    #[allow(dead_code)]
    pub(crate) description: Option<String>,
    pub(crate) command: Option<ProfileCommand>,
}

/// All known profiles by label.
#[derive(Debug, Clone, Default)]
pub(crate) struct Registry {
    profiles: IndexMap<String, Profile>,
}

impl Registry {
    /// Built-in profiles, then each directory in order (later ones override earlier ones).
    /// Problems in profile files come back as diagnostics; the good files still load.
    #[cfg(test)]
    pub(crate) fn load(dirs: &[PathBuf]) -> (Registry, Vec<Diagnostic>) {
        Registry::load_found(None, dirs)
    }

    /// [`Registry::load`], with first the folder runner finds itself, untold (`found`: the
    /// working directory's `profiles/`, and `also`, the working directory's owner). A profile
    /// starts a command, so that folder is taken only as the project file is (see
    /// [`crate::fs::distrust`]): it and each file in it the user's own (or root's, or the working
    /// directory's owner's), writable by no one else; one that is not is refused, naming it and
    /// why, never skipped in silence (another's file would replace a built-in profile by label).
    pub(crate) fn load_found(
        found: Option<(&Path, Option<u32>)>,
        dirs: &[PathBuf],
    ) -> (Registry, Vec<Diagnostic>) {
        let (mut reg, mut diags) = Registry::built_in();
        if let Some((dir, also)) = found
            && let Ok(m) = std::fs::metadata(dir)
            && m.is_dir()
        {
            match crate::fs::distrust(&m, also) {
                Some(why) => diags.push(refused(dir, &why)),
                None => reg.load_dir(dir, Folder::Found { also }, &mut diags),
            }
        }
        for dir in dirs {
            reg.load_dir(dir, Folder::Told, &mut diags);
        }
        (reg, diags)
    }

    /// The profiles built in.
    fn built_in() -> (Registry, Vec<Diagnostic>) {
        let mut reg = Registry::default();
        let mut diags = Vec::new();
        for (name, text) in BUILT_IN {
            // Built-in profiles are checked against the schema by a test; here only parsed, so
            // start-up does not pay for compiling the profile schema.
            let parsed = ::toml::from_str::<Profile>(text).map_err(|e| {
                vec![Diagnostic::file_error(
                    format!("profiles/{name}"),
                    format!("invalid built-in profile: {e}"),
                )]
            });
            match parsed {
                Ok(mut p) => {
                    p.origin = "built-in".into();
                    reg.profiles.insert(p.label.clone(), p);
                }
                Err(d) => diags.extend(d),
            }
        }
        (reg, diags)
    }

    /// The profile files of `dir`, in name order, over those loaded before; each one's owner
    /// and mode checked as [`Registry::load_found`] says when runner found the folder itself.
    fn load_dir(&mut self, dir: &Path, how: Folder, diags: &mut Vec<Diagnostic>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| document::Format::of(p).is_some())
            .collect();
        paths.sort();
        for path in paths {
            let loaded = match how {
                Folder::Found { also } => load_owned(&path, also),
                Folder::Told => load_file(&path),
            };
            match loaded {
                Ok(p) => {
                    self.profiles.insert(p.label.clone(), p);
                }
                Err(d) => diags.extend(d),
            }
        }
    }

    /// A profile by label.
    pub(crate) fn get_profile(&self, label: &str) -> Option<&Profile> {
        self.profiles.get(label)
    }

    /// All profiles, in load order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Profile> {
        self.profiles.values()
    }

    /// Labels of all profiles.
    pub(crate) fn labels(&self) -> impl Iterator<Item = &str> {
        self.profiles.keys().map(String::as_str)
    }
}

impl Profile {
    /// The command line of the profile (`None`) or of one of its variants (which falls back to
    /// the profile's); `None` when there is no such variant.
    pub(crate) fn command_of(&self, variant: Option<&str>) -> Option<&ProfileCommand> {
        match variant {
            None => Some(&self.command),
            Some(v) => self
                .get_variant(v)
                .map(|var| var.command.as_ref().unwrap_or(&self.command)),
        }
    }

    /// A variant by label.
    pub(crate) fn get_variant(&self, label: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.label == label)
    }
}

/// Reads and validates one profile file.
pub(crate) fn load_file(path: &Path) -> Result<Profile, Vec<Diagnostic>> {
    let doc = document::read(path)?;
    let mut p = from_document(&doc)?;
    p.origin = path.display().to_string();
    Ok(p)
}

/// How runner came to a folder of profiles.
#[derive(Clone, Copy)]
enum Folder {
    /// Named by the user (`--profiles DIR`, runner.toml's `profiles`).
    Told,
    /// Found by runner itself (the working directory's `profiles`), owned by the user, root
    /// or `also` (the working directory's owner).
    Found { also: Option<u32> },
}

/// How runner finds the profiles it checks the owner of.
const FOUND: &str = "runner takes agent profiles from the `profiles` folder of the working directory (and from `--profiles DIR` and runner.toml's `profiles`, as told)";

/// Why runner does not use `path` (the profiles folder it found, or a file in it).
fn refused(path: &Path, why: &crate::fs::Distrust) -> Diagnostic {
    let name = path.display().to_string();
    let what = if path.is_dir() {
        "profiles folder"
    } else {
        "profile"
    };
    Diagnostic::file_error(&name, format!("runner does not use this {what}: {why}"))
        .with_help(why.help(&name, FOUND))
}

/// [`load_file`] of a file in the profiles folder runner found: refused, unread, when it is not
/// the user's own (or `also`'s, the working directory's owner), as read through its handle.
fn load_owned(path: &Path, also: Option<u32>) -> Result<Profile, Vec<Diagnostic>> {
    let mut why = None;
    let read = crate::fs::read_regular_if(path, document::MAX_FILE_SIZE, |meta| {
        why = crate::fs::distrust(meta, also);
        why.is_none()
    });
    if let Some(why) = why {
        return Err(vec![refused(path, &why)]);
    }
    let name = path.display().to_string();
    let bytes = read
        .map_err(|e| format!("cannot read the file: {e}"))
        .and_then(|b| {
            u64::try_from(b.len())
                .is_ok_and(|n| n <= document::MAX_FILE_SIZE)
                .then_some(b)
                .ok_or_else(|| "the file is over 10 MB; config files may be at most 10 MB".into())
        })
        .map_err(|e: String| vec![Diagnostic::file_error(&name, e)])?;
    let mut p = parse(path, bytes)?;
    p.origin = path.display().to_string();
    Ok(p)
}

fn parse(path: &Path, bytes: Vec<u8>) -> Result<Profile, Vec<Diagnostic>> {
    let format = document::Format::of(path).unwrap_or(document::Format::Toml);
    let doc = document::parse_bytes(path, bytes, format)?;
    from_document(&doc)
}

/// Validates a parsed profile document and builds the typed profile.
pub(crate) fn from_document(doc: &document::Document) -> Result<Profile, Vec<Diagnostic>> {
    let errors = schema::validate(SchemaKind::Profile, &doc.file, &doc.value, &doc.spans);
    if !errors.is_empty() {
        return Err(errors);
    }
    let p: Profile = serde_json::from_value(doc.value.clone()).map_err(|e| {
        vec![Diagnostic::error(
            &doc.file,
            0..0,
            format!("invalid profile: {e}"),
        )]
    })?;
    let mut seen = std::collections::HashSet::new();
    let mut errs = Vec::new();
    // A profile's strings are used as written (the step's `env` is where templates go).
    let help = "profiles are not templates: pass values through the agent step's `env:` or `prompt:`, which are rendered";
    super::literal::refuse_all(&doc.file, &doc.spans, "", &doc.value, help, &mut errs);
    super::literal::refuse_keys(&doc.file, &doc.spans, "", &doc.value, &mut errs);
    for (i, v) in p.variants.iter().enumerate() {
        if !seen.insert(v.label.as_str()) {
            errs.push(schema::at_value(
                &doc.file,
                &doc.spans,
                &format!("/variants/{i}/label"),
                format!("duplicate variant `{}`", v.label),
            ));
        }
    }
    if errs.is_empty() { Ok(p) } else { Err(errs) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_profiles_follow_the_schema() {
        for (name, text) in BUILT_IN {
            let path = Path::new("profiles").join(name);
            parse(&path, text.as_bytes().to_vec()).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        }
    }

    #[test]
    fn templates_in_profiles_are_refused() {
        let text = "label = \"t\"\nexecutor_type = \"T\"\nkind = \"generic\"\n[command]\nbinary = \"echo\"\nargs = [\"{{ vars.x }}\"]\n";
        let errs = parse(Path::new("profiles/t.toml"), text.as_bytes().to_vec()).unwrap_err();
        assert_eq!(
            errs[0].message,
            "`command.args[0]` takes no templates: `{{ vars.x }}` would be used as written"
        );
        assert!(
            errs[0]
                .help
                .as_deref()
                .is_some_and(|h| h.contains("profiles are not templates")),
            "{errs:?}"
        );
    }

    #[test]
    fn built_in_profiles_load() {
        let (reg, diags) = Registry::load(&[]);
        assert!(diags.is_empty(), "{diags:?}");
        let labels: Vec<&str> = reg.labels().collect();
        assert_eq!(
            labels,
            ["claude-code", "codex", "cursor", "gemini", "opencode"]
        );
        assert!(
            reg.get_profile("claude-code")
                .unwrap()
                .get_variant("plan")
                .is_some()
        );
        assert!(
            reg.get_profile("gemini")
                .unwrap()
                .get_variant("flash")
                .is_some()
        );
    }
}
