//! AI coding agents: profiles and variants (the registry), and later the execution service.

pub mod execution;
pub mod kind;
pub mod profiles;
pub mod registry;
pub mod session_id;
pub mod step;
