//! The atlas and the agent cache as a repository may hold them (both are committed: CI
//! replays the atlas, and the cache without any LLM): a FIFO where a file should be is refused
//! at once, naming it (it used to hang the run where no timeout or SIGTERM could end it), and
//! nothing is read or written through a symlink in either (a committed link would redirect
//! CI's writes out of the repository).

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::agents::{agent_env, with_profiles};
use crate::common::{Ran, fixture, flow_run, output_within, runner, step, write};

/// Long enough for a run with a browser on a loaded machine; a hang is killed at it.
pub(crate) const LIMIT: Duration = Duration::from_secs(60);

/// `a.yaml`: a home page and the page its link `go b` leads to, recorded into `./atl`.
pub(crate) fn atlas_flow(d: &Path) {
    std::fs::create_dir_all(d.join("site")).unwrap();
    write(
        &d.join("site"),
        "index.html",
        "<!doctype html><title>home</title><h1>Home</h1><a href=\"b.html\">go b</a>\n",
    );
    write(
        &d.join("site"),
        "b.html",
        "<!doctype html><title>b</title><h1>Page B</h1><p>here</p>\n",
    );
    write(
        d,
        "a.yaml",
        "name: atl\nweb_server: { static: ./site }\natlas: ./atl\nsteps:\n  - open: \"{{ web_server.url }}/index.html\"\n  - id: home\n    link_state: home\n  - click: { text: go b }\n  - id: to_b\n    link_state: to b\n",
    );
}

/// Records `a.yaml` once into `./atl`; the ids of its two nodes, home's first.
pub(crate) fn record(d: &Path) -> (String, String) {
    let r = flow_run(d).arg("a.yaml").run_within(LIMIT);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut home = None;
    let mut b = None;
    for e in std::fs::read_dir(d.join("atl/nodes")).unwrap().flatten() {
        let meta: Value =
            serde_json::from_str(&std::fs::read_to_string(e.path().join("meta.json")).unwrap())
                .unwrap();
        let id = e.file_name().to_string_lossy().into_owned();
        if meta["url"].as_str().unwrap().ends_with("/b.html") {
            b = Some(id);
        } else {
            home = Some(id);
        }
    }
    (home.expect("a home node"), b.expect("a node for b"))
}

fn fifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    nix::unistd::mkfifo(p, nix::sys::stat::Mode::S_IRWXU).unwrap();
}

pub(crate) fn error_of(r: &Ran, id: &str) -> String {
    step(&r.report, id)["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no error on {id}: {}", r.stderr))
        .to_string()
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A node's `meta.json` replaced by a FIFO: the run fails at the step that reads it, at once,
/// naming the file (it used to block in `open` forever, the atlas locked, SIGTERM ignored);
/// `atlas show` says the same. A `meta.json` that is a link (to `/dev/zero`, which `atlas
/// show` used to read into gigabytes of memory) is refused as a link.
#[test]
fn a_fifo_or_a_device_in_the_atlas_is_refused_at_once_naming_it() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (_, b) = record(d.path());
    let meta = d.path().join(format!("atl/nodes/{b}/meta.json"));
    fifo(&meta);
    let r = flow_run(d.path()).arg("a.yaml").run_within(LIMIT);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let e = error_of(&r, "to_b");
    // The flow names its atlas `./atl`, the command line `atl`.
    let said = format!("atl/nodes/{b}/meta.json: it is a FIFO (named pipe), not a regular file");
    assert!(
        e.contains(&format!(
            "the atlas is broken at {}/./{said}",
            d.path().display()
        )),
        "{e}"
    );
    let mut show = runner(d.path());
    show.args(["atlas", "show", "--atlas", "atl"]);
    let (code, _, stderr) = output_within(show, LIMIT);
    assert_ne!(code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!("the atlas is broken at {said}")),
        "{stderr}"
    );

    // A link to a device: refused before a byte is read (memory capped, should it be read).
    std::fs::remove_file(&meta).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &meta).unwrap();
    let mut show = runner(d.path());
    show.args(["atlas", "show", "--atlas", "atl"]);
    let mut capped = std::process::Command::new("sh");
    capped
        .args(["-c", "ulimit -v 2000000; exec \"$@\"", "sh"])
        .arg(show.get_program())
        .args(show.get_args())
        .current_dir(d.path())
        .env("NO_COLOR", "1");
    let (code, _, stderr) = output_within(capped, Duration::from_secs(20));
    assert_ne!(code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the atlas is broken at atl/nodes/{b}/meta.json: it is a symbolic link"
        )),
        "{stderr}"
    );
}

/// A node's or an edge's directory, or `nodes/` itself, that is a link out of the atlas (as
/// a committed atlas may hold): the step that would write through it fails naming the link,
/// and nothing is written where it points.
#[test]
fn the_atlas_writes_nothing_through_a_symlink() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, b) = record(d.path());
    let outside = d.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let atl = d.path().join("atl");
    // An atlas (its atlas.json kept): a folder that is none is refused before anything is read.
    let manifest = std::fs::read(atl.join("atlas.json")).unwrap();
    let fresh = |link: &str| {
        std::fs::remove_dir_all(&atl).unwrap();
        std::fs::create_dir_all(atl.join("nodes")).unwrap();
        std::fs::create_dir_all(atl.join("edges")).unwrap();
        std::fs::write(atl.join("atlas.json"), &manifest).unwrap();
        let at = atl.join(link);
        let _ = std::fs::remove_dir(&at);
        std::os::unix::fs::symlink(&outside, &at).unwrap();
    };
    for (link, id) in [
        (format!("nodes/{b}"), "to_b"),
        (format!("edges/{home}"), "to_b"),
        ("nodes".to_string(), "home"),
    ] {
        fresh(&link);
        let r = flow_run(d.path()).arg("a.yaml").run_within(LIMIT);
        assert_eq!(r.code, 1, "{link}: {}", r.stderr);
        let e = error_of(&r, id);
        assert!(
            e.contains(&format!(
                "the atlas is broken at {}: it is a symbolic link: runner reads and writes nothing in an atlas through one",
                d.path().join("./atl").join(&link).display()
            )),
            "{link}: {e}"
        );
        assert_eq!(names_in(&outside), Vec::<String>::new(), "{link}");
    }
}

/// SIGTERM while a run waits for the atlas's lock (another process holds it) ends the run at
/// once: the wait is synchronous, where the run's cancellation cannot reach, so it watches for
/// the interrupt itself.
#[test]
fn sigterm_while_waiting_for_the_atlas_lock_ends_the_run_at_once() {
    use std::time::Instant;
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    record(d.path());
    let lock_path = d.path().join("atl/.lock").canonicalize().unwrap();
    let held = nix::fcntl::Flock::lock(
        std::fs::File::options()
            .write(true)
            .open(&lock_path)
            .unwrap(),
        nix::fcntl::FlockArg::LockExclusive,
    )
    .unwrap();
    let mut c = runner(d.path());
    c.args(["run", "a.yaml", "--artifacts", "art"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = c.spawn().unwrap();
    let pid = child.id();
    // Waits until runner has the lock file open: it is waiting for the lock.
    let opened = || {
        std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            fds.flatten()
                .any(|f| std::fs::read_link(f.path()).is_ok_and(|t| t == lock_path))
        })
    };
    let deadline = Instant::now() + LIMIT;
    while !opened() {
        assert!(
            Instant::now() < deadline,
            "runner never opened {lock_path:?}"
        );
        assert!(child.try_wait().unwrap().is_none(), "runner ended");
        std::thread::sleep(Duration::from_millis(10));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("runner still ran 15 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    drop(held);
    assert_eq!(status.code(), Some(130));
    assert!(took < Duration::from_secs(2), "runner took {took:?} to end");
}

const ASK: &str = "  - id: ask\n    act: { intent: \"sign me in, please: the Sign in or Log in button\", profile: fake-claude }\n  - expect: { text: { target: \"#out\", equals: \"Hello\" } }\n";

/// `f.yaml`: an `act` the fake claude agent answers, on the fixture site.
pub(crate) fn act_flow(d: &Path) {
    write(
        d,
        "f.yaml",
        &format!(
            "name: act\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n{ASK}",
            fixture("site").display()
        ),
    );
}

pub(crate) fn act_run(d: &Path, cache: &str) -> Ran {
    flow_run(d)
        .args(with_profiles(&["f.yaml", "--agent-cache", cache]))
        .with(|c| agent_env(c, d))
        .run_within(LIMIT)
}

/// The one cached `intent` answer.
pub(crate) fn cache_entry(d: &Path) -> std::path::PathBuf {
    let dir = d.join(".runner/cache/skills/intent");
    let names = names_in(&dir);
    assert_eq!(names.len(), 1, "{names:?}");
    dir.join(&names[0])
}

/// A cached answer replaced by a FIFO: a read-only run fails at once naming it (it used to
/// hang, SIGTERM ignored); a read-write run asks the agent and puts a file in its place.
#[test]
fn a_fifo_in_the_agent_cache_is_refused_at_once_naming_it() {
    let d = tempfile::tempdir().unwrap();
    act_flow(d.path());
    let r = act_run(d.path(), "read-write");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let entry = cache_entry(d.path());
    fifo(&entry);
    let r = act_run(d.path(), "read-only");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let e = error_of(&r, "ask");
    assert!(
        e.contains(&format!(
            "the cached `intent` answer cannot be read: {} is a FIFO (named pipe), not a regular file",
            entry.display()
        )),
        "{e}"
    );
    let r = act_run(d.path(), "read-write");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(step(&r.report, "ask")["outputs"]["source"], "agent");
    assert!(std::fs::symlink_metadata(&entry).unwrap().is_file());
    let r = act_run(d.path(), "read-only");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(step(&r.report, "ask")["outputs"]["source"], "cache");
}

/// A skill's cache folder that is a link out: a read-write run still gets its answer from the
/// agent but writes nothing where the link points, and says why; a read-only run refuses to
/// read through it, naming the link.
#[test]
fn the_agent_cache_reads_and_writes_nothing_through_a_symlink() {
    let d = tempfile::tempdir().unwrap();
    act_flow(d.path());
    let outside = d.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let link = d.path().join(".runner/cache/skills/intent");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let r = act_run(d.path(), "read-write");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(step(&r.report, "ask")["outputs"]["source"], "agent");
    assert_eq!(names_in(&outside), Vec::<String>::new());
    let said = format!(
        "{} is a symbolic link: runner reads and writes nothing in the agent cache through one",
        link.display()
    );
    assert!(
        r.stdout.contains(&said) || r.stderr.contains(&said),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    // An answer put where the link leads is not read either.
    std::fs::remove_file(&link).unwrap();
    let r = act_run(d.path(), "read-write");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let entry = cache_entry(d.path());
    std::fs::rename(&entry, outside.join(entry.file_name().unwrap())).unwrap();
    std::fs::remove_dir(&link).unwrap();
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let r = act_run(d.path(), "read-only");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let e = error_of(&r, "ask");
    assert!(e.contains(&said), "{e}");
}
