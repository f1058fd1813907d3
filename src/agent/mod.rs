//! AI coding agents: profiles and variants (the registry), and later the execution service.

pub mod profiles;
