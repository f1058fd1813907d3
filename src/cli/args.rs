//! The clap definitions. Flags are parsed into these plain structs first, then turned into the
//! objects that do the work.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::atlas::{ExportFormat, GraphFormat};
use crate::config::duration::parse_written_duration;
use crate::config::numbers::whole_in;
use crate::config::trace_mode::TraceMode;
use crate::report::DiagnosticFormat;

/// A declarative workflow runner: browser, agent and state steps described in YAML or TOML.
#[derive(Debug, Parser)]
#[command(name = "runner", version, about, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run flows (a directory runs every *.yaml, *.yml and *.toml flow under it).
    Run(Box<RunArgs>),
    /// Check flows and profiles without running anything.
    Validate(ValidateArgs),
    /// Print a JSON Schema (the same text as the files in schemas/).
    Schema {
        /// Which schema.
        #[arg(value_enum, default_value = "flow")]
        which: SchemaWhich,
    },
    /// List agent profiles, or show one's resolved command line.
    Profiles {
        #[command(subcommand)]
        command: Option<ProfilesCommand>,
        /// More profile directories (repeatable; later ones override earlier ones).
        #[arg(long = "profiles", value_name = "DIR", global = true)]
        profiles: Vec<PathBuf>,
    },
    /// The atlas of recorded states: show, path, graph, export, replay, verify, test, diff.
    Atlas {
        #[command(subcommand)]
        command: AtlasCommand,
        /// The atlas directory (default: .runner/atlas).
        #[arg(long, value_name = "DIR", global = true)]
        atlas: Option<PathBuf>,
        #[command(flatten)]
        servers: ServerArgs,
    },
    /// Crawl an app from URL: record its states and the links and buttons between them.
    Explore {
        /// Where to start; a path (`/`, `/app`) is taken on the first web server's URL.
        url: String,
        #[arg(long, default_value_t = 5)]
        max_depth: usize,
        #[arg(long, default_value_t = 100)]
        max_nodes: usize,
        /// Also click delete, remove, logout, pay, ... buttons.
        #[arg(long)]
        allow_destructive: bool,
        /// The atlas directory.
        #[arg(long, value_name = "DIR", default_value = ".runner/atlas")]
        atlas: PathBuf,
        /// How a new atlas tells states apart: by their structure (data left out) or their
        /// text (default: runner.toml's `[atlas] fingerprint`, else structure).
        #[arg(long, value_name = "HOW", value_parser = ["structure", "text"])]
        fingerprint: Option<String>,
        #[command(flatten)]
        agent: AgentArgs,
        #[command(flatten)]
        servers: ServerArgs,
    },
    /// Merge the JSON reports of a suite's shards (`run --shard I/N --report json=...`) into one
    /// set of reports.
    MergeReports {
        /// JSON reports, or directories holding them (any depth).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// What to write: junit=PATH, json=PATH, html=DIR (repeatable).
        #[arg(long = "report", value_name = "KIND=PATH")]
        report: Vec<String>,
    },
    /// Internal: the guardian process `run` starts, which ends runner's process groups and
    /// browsers when runner is gone (`kill -9` included).
    #[command(name = "__guardian", hide = true)]
    Guardian {
        /// The pid of the runner it guards.
        pid: u32,
    },
    /// Check that what flows need is installed and say how to fix what is not.
    Doctor {
        /// Flows whose agent profiles to check too.
        paths: Vec<PathBuf>,
        /// Check the running browser at this DevTools endpoint instead of a launch.
        #[arg(long, value_name = "URL", env = "RUNNER_BROWSER_CDP")]
        browser_cdp: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ProfilesCommand {
    /// One line per profile: label, kind, variants, origin.
    List,
    /// The resolved command line of NAME or NAME/VARIANT.
    Show { name: String },
}

#[derive(Debug, Subcommand)]
pub(crate) enum AtlasCommand {
    /// Nodes, edges, roots and unreachable nodes.
    Show,
    /// What `explore` is doing (status.json: state, current_node, nodes_explored,
    /// tasks_pending, uptime), readable while it works.
    Status,
    /// The actions from a root to NODE.
    Path { node: String },
    /// A picture of the graph.
    Graph {
        #[arg(long, value_enum, default_value = "dot")]
        format: GraphFormat,
    },
    /// The path to NODE as a standalone flow (or a Playwright script).
    Export {
        node: String,
        #[arg(long, value_enum, default_value = "flow")]
        format: ExportFormat,
        /// Replace the recorded origin with this one (in a flow, a template naming a web
        /// server, which `runner run` fills in; default for a flow: the server the atlas was
        /// recorded on, as `{{ web_server.<name>.url }}`).
        #[arg(long)]
        base_url: Option<String>,
        /// Write it into DIR (named after the path's last edge, as the explorer's agent named
        /// it) instead of printing it; prints the file's path.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Replay the path to NODE in a browser and check the fingerprint on arrival.
    Replay {
        node: String,
        #[command(flatten)]
        check: CheckArgs,
    },
    /// Replay the path to every node; report which still arrive (each path from a root to a
    /// leaf is replayed once, every node on it checked as it arrives).
    Verify {
        #[command(flatten)]
        check: CheckArgs,
        /// Paths replayed in parallel, 1 to 64, each in a browser context of its own (in at
        /// most N browsers).
        #[arg(long, default_value_t = 1, value_parser = |s: &str| whole_in::<u16>(s, 1..=64))]
        jobs: u16,
        /// Also write a report: junit=PATH, json=PATH, html=DIR (repeatable).
        #[arg(long = "report", value_name = "KIND=PATH")]
        report: Vec<String>,
    },
    /// What changed from atlas A to atlas B (say, an earlier explore and a fresh one of the
    /// same app): states added, removed and changed, edges broken, new and removed. Exit 0
    /// when they do not differ, 1 when they do, 2 when one is not an atlas.
    Diff {
        /// The atlas before (a directory).
        a: PathBuf,
        /// The atlas after (a directory).
        b: PathBuf,
        /// How to print it.
        #[arg(long, value_enum, default_value = "text")]
        format: DiffFormat,
        /// Also write it as an HTML page (one file, no network).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
    /// Verify every node, then turn each node's test ideas (from `explore --agent`) into flows
    /// under <atlas>/tests/ and run them; without --agent, run the ones saved before.
    Test {
        #[command(flatten)]
        check: CheckArgs,
        /// Reports: junit=PATH, json=PATH, html=DIR (repeatable; default
        /// junit=<atlas>/tests/junit.xml).
        #[arg(long = "report", value_name = "KIND=PATH")]
        report: Vec<String>,
        #[command(flatten)]
        agent: AgentArgs,
    },
}

/// How `atlas replay|verify|test` replay a path: where to, and how long each part may take.
#[derive(Debug, Clone, Args)]
pub(crate) struct CheckArgs {
    /// Replace the recorded origin with this one (a template may name a web server:
    /// `{{ web_server.<name>.url }}`; default: the origin of the server the atlas was recorded
    /// on, else the first server's).
    #[arg(long)]
    pub(crate) base_url: Option<String>,
    /// What each step of a replayed path and each arrival check may take (`250ms`, `5s`,
    /// `1m`); a path's steps all together take at most this for each state on it and one more.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "5s",
        value_parser = parse_written_duration
    )]
    pub(crate) timeout: Duration,
}

/// `atlas diff --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormat {
    /// Lines for people (`~` changed, `+` added or new, `-` removed, `!` broken).
    Text,
    /// One JSON document (docs/atlas.md, "Comparing two atlases").
    Json,
}

/// The web servers of `explore` and `atlas replay|verify|test`: runner.toml's `[[web_server]]`,
/// or the one of `--web-server` (as Playwright's `webServer`: `command` with `url` or `port`).
#[derive(Debug, Clone, Args)]
pub(crate) struct ServerArgs {
    /// Start this command before and stop it after (instead of runner.toml's `[[web_server]]`);
    /// it gets the port as `$PORT` and `{{ web_server.port }}`.
    #[arg(
        long = "web-server",
        id = "web_server",
        value_name = "CMD",
        global = true
    )]
    pub(crate) command: Option<String>,
    /// Ready when this URL answers with a status below 404 (and the default base URL).
    #[arg(
        long = "web-server-url",
        id = "web_server_url",
        value_name = "URL",
        requires = "web_server",
        global = true
    )]
    pub(crate) url: Option<String>,
    /// The port the command listens on: a number, or `auto` (a free one); without a URL, ready
    /// when the port accepts connections.
    #[arg(
        long = "web-server-port",
        id = "web_server_port",
        value_name = "PORT",
        requires = "web_server",
        global = true
    )]
    pub(crate) port: Option<String>,
}

/// The agent behind the explorer's skills (`explore`, `atlas test`).
#[derive(Debug, Clone, Args)]
pub(crate) struct AgentArgs {
    /// The agent profile whose skills analyse pages, label edges and write tests (see
    /// `runner schema skill/NAME`); without one, explore uses its own heuristics.
    #[arg(long = "agent", value_name = "PROFILE")]
    pub(crate) agent: Option<String>,
    /// How skill answers are cached under .runner/cache/skills: read-write, read-only (replay
    /// them; never call an agent), or off.
    #[arg(
        long = "agent-cache",
        value_name = "MODE",
        value_enum,
        default_value = "read-write"
    )]
    pub(crate) agent_cache: AgentCache,
    /// More agent profile directories (repeatable; later ones override earlier ones).
    #[arg(long = "profiles", value_name = "DIR")]
    pub(crate) profiles: Vec<PathBuf>,
}

/// `run --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RunFormat {
    /// The console's output only.
    Human,
    /// Also `::error` annotations (and the job summary when `$GITHUB_STEP_SUMMARY` is set).
    Github,
}

/// `--agent-cache`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum AgentCache {
    ReadWrite,
    ReadOnly,
    Off,
}

impl AgentCache {
    /// What the skills' cache does.
    pub(crate) fn mode(self) -> crate::agent::CacheMode {
        use crate::agent::CacheMode;
        match self {
            AgentCache::ReadWrite => CacheMode::ReadWrite,
            AgentCache::ReadOnly => CacheMode::ReadOnly,
            AgentCache::Off => CacheMode::Off,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum SchemaWhich {
    Flow,
    Profile,
    /// The project file (runner.toml / runner.yaml).
    Config,
    /// What the `intent` skill answers (the `act` step's agent).
    #[value(name = "skill/intent")]
    SkillIntent,
    #[value(name = "skill/page_analysis")]
    SkillPageAnalysis,
    #[value(name = "skill/trajectory_labeling")]
    SkillTrajectoryLabeling,
    #[value(name = "skill/test_generation")]
    SkillTestGeneration,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// Files or directories (default: the current directory).
    pub(crate) paths: Vec<PathBuf>,
    /// How to print problems.
    #[arg(long, value_enum, default_value = "human")]
    pub(crate) format: DiagnosticFormat,
    /// More profile directories (repeatable; later ones override earlier ones).
    #[arg(long = "profiles", value_name = "DIR")]
    pub(crate) profiles: Vec<PathBuf>,
}

// Each bool is a flag of its own on the command line (clap's derive).
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Flow files or directories (default: `flows` of the project file).
    pub(crate) paths: Vec<PathBuf>,
    /// Override a var: KEY=VALUE (repeatable).
    #[arg(long = "var", value_name = "KEY=VALUE")]
    pub(crate) vars: Vec<String>,
    /// Read vars from a .env file (KEY=VALUE lines) or a YAML, TOML or JSON map, by the name's
    /// extension (repeatable).
    #[arg(long = "var-file", value_name = "FILE")]
    pub(crate) var_files: Vec<PathBuf>,
    /// Flows run in parallel, 1 to 64 (default: the project file's `jobs`, else 1).
    #[arg(long, value_parser = |s: &str| whole_in::<u16>(s, 1..=64))]
    pub(crate) jobs: Option<u16>,
    /// Run the I-th of N deterministic slices of the flows (I from 1 to N); a flow that loads a
    /// `browser.state` another flow saves is in the saver's slice.
    #[arg(long, value_name = "I/N")]
    pub(crate) shard: Option<String>,
    /// Only flows with this tag (repeatable: any of them).
    #[arg(long = "tag", value_name = "T")]
    pub(crate) tags: Vec<String>,
    /// Skip flows with this tag (repeatable).
    #[arg(long = "exclude-tag", value_name = "T")]
    pub(crate) exclude_tags: Vec<String>,
    /// Only flows whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub(crate) grep: Option<String>,
    /// Only flows whose name does not match this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub(crate) grep_invert: Option<String>,
    /// Print the flows that would run (after the filters and the shard), one per line; run
    /// nothing.
    #[arg(long)]
    pub(crate) list: bool,
    /// Run each flow N times (each run its own result, `name [k/N]`).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = |s: &str| whole_in::<u32>(s, 1..=1000))]
    pub(crate) repeat_each: u32,
    /// Run a flow that fails again, up to N times; one that then passes is flaky.
    #[arg(long, value_name = "N", value_parser = |s: &str| whole_in::<u32>(s, 0..=100))]
    pub(crate) retries: Option<u32>,
    /// Which flows keep a trace (steps' timeline and screenshots, in the HTML report): on,
    /// off, retain-on-failure (default: the project file's `trace`, else retain-on-failure).
    #[arg(long, value_name = "MODE", value_parser = TraceMode::parse)]
    pub(crate) trace: Option<TraceMode>,
    /// Exit 0 when the filters leave no flow (instead of a usage error).
    #[arg(long)]
    pub(crate) pass_with_no_flows: bool,
    /// `github`: also print GitHub Actions annotations for failures (on by itself when
    /// GITHUB_ACTIONS=true; `human` turns them off there).
    #[arg(long, value_name = "FORMAT")]
    pub(crate) format: Option<RunFormat>,
    /// Also write a report: junit=PATH, json=PATH, html=DIR (repeatable).
    #[arg(long = "report", value_name = "KIND=PATH")]
    pub(crate) reports: Vec<String>,
    /// Where screenshots, logs and outputs go (default .runner/runs/<run-id>); no flow is looked
    /// for under it.
    #[arg(long, value_name = "DIR")]
    pub(crate) artifacts: Option<PathBuf>,
    /// Where link_state records states (overrides the flow's `atlas:`).
    #[arg(long, value_name = "DIR")]
    pub(crate) atlas: Option<PathBuf>,
    /// More agent profile directories (repeatable; later ones override earlier ones).
    #[arg(long = "profiles", value_name = "DIR")]
    pub(crate) profiles: Vec<PathBuf>,
    /// Load, validate and print the plan; run nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Show the browser.
    #[arg(long)]
    pub(crate) headed: bool,
    /// Connect to a running Chromium through its DevTools endpoint (http://host:9222 or a
    /// ws:// URL) instead of launching one; each flow still gets a context of its own.
    #[arg(long, value_name = "URL", env = "RUNNER_BROWSER_CDP")]
    pub(crate) browser_cdp: Option<String>,
    /// The agent profile `act` steps ask when neither the step nor its flow names one.
    #[arg(long = "agent", value_name = "PROFILE")]
    pub(crate) agent: Option<String>,
    /// How agent skill answers (`act`) are cached under .runner/cache/skills: read-write,
    /// read-only (replay them; never call an agent), or off.
    #[arg(
        long = "agent-cache",
        value_name = "MODE",
        value_enum,
        default_value = "read-write"
    )]
    pub(crate) agent_cache: AgentCache,
    /// Stop scheduling flows after the first failure.
    #[arg(long)]
    pub(crate) fail_fast: bool,
    /// Run the flows, then again on every save of a flow, a sub-flow or a var file it uses,
    /// in the same browsers, until Ctrl-C (exit 130). PATHS are flows to run too (default:
    /// the flows given to run).
    #[arg(long, value_name = "PATHS", num_args = 0.., conflicts_with_all = ["list", "dry_run"])]
    pub(crate) watch: Option<Vec<PathBuf>>,
}
