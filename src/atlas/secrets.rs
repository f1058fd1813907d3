//! The secrets an atlas names (`atlas.json`'s `secrets`: the names of those its recording runs
//! declared, never their values), read from the environment as a run reads a flow's: what
//! every page an atlas records, replays or shows is masked with.

use super::store::{Atlas, AtlasError};
use crate::step::Masker;

/// A masker of the secrets the atlas's recording runs declared (`atlas.json`'s `secrets`),
/// read from the environment as a flow reads them: a replay's page is masked as the recorded
/// one was, so a secret the app shows is neither shown nor drift. A name not set (or empty, or
/// only white space, which a run refuses too) masks nothing ([`unset_secrets`] says which).
pub(crate) fn atlas_masker(atlas: &Atlas) -> Result<Masker, AtlasError> {
    let masker = Masker::default();
    add_atlas_secrets(atlas, &masker)?;
    Ok(masker)
}

/// What masks the logs of the web servers an atlas command starts: the secrets `atlas.json`
/// names and those runner.toml's `[atlas] secrets` names (the project's for its atlases; what
/// a stored step may read), those set (see [`atlas_masker`]). An app may log what its pages
/// show, or a URL a page links to.
pub(crate) fn servers_masker(atlas: &Atlas) -> Result<Masker, AtlasError> {
    let masker = atlas_masker(atlas)?;
    for name in &atlas.reach.secrets {
        if let Some(v) = secret_value(name) {
            masker.add_named(name, &v);
        }
    }
    Ok(masker)
}

/// Adds to `masker` the secrets `atlas.json` names that are set now (see [`atlas_masker`]).
pub(crate) fn add_atlas_secrets(atlas: &Atlas, masker: &Masker) -> Result<(), AtlasError> {
    for name in atlas.secrets()? {
        if let Some(v) = secret_value(&name) {
            masker.add_named(&name, &v);
        }
    }
    Ok(())
}

/// The value of secret `name` in the environment, by the run's rule: none when it is not set,
/// empty or only white space (such a value would mask every space of a page).
pub(crate) fn secret_value(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|v| Masker::is_secret_value(v))
}

/// The secrets the atlas's recording runs declared that are not set now (or set empty or to
/// white space only): a page that shows one is not masked as it was recorded.
pub(crate) fn unset_secrets(atlas: &Atlas) -> Result<Vec<String>, AtlasError> {
    Ok(atlas
        .secrets()?
        .into_iter()
        .filter(|n| secret_value(n).is_none())
        .collect())
}
