use super::{Frame, INTERVAL, SHOWS, Screens};

/// A frame whose JPEG is `name`, that shows the page as it was at `at` ms: due `SHOWS` after,
/// come when due.
fn frame(name: &str, at: f64) -> Frame {
    late_frame(name, at, 0.0)
}

/// A frame as `frame`'s, come `late` ms after it was due.
fn late_frame(name: &str, at: f64, late: f64) -> Frame {
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(name);
    Frame::new(data, Some((at + SHOWS) / 1000.0), at + SHOWS + late)
}

/// A browser step from `start` to `end` ms that `acts` (or only reads the page), its picture
/// wanted of tab `t`.
fn step(s: &mut Screens, (start, end): (f64, f64), acts: bool) -> u64 {
    s.step((start, end), acts);
    s.want("t", end)
}

/// The picture `id` once chosen: its JPEG's text (`none`), `+` when it may show a later
/// step's changes too.
fn taken(s: &mut Screens, id: u64) -> Option<String> {
    let (f, later) = s.take(id)?;
    let name = f.map_or("none".into(), |f| {
        String::from_utf8(f.jpeg().unwrap().to_vec()).unwrap()
    });
    Some(if later { format!("{name}+") } else { name })
}

/// The first frame that shows the page after a step ended is its picture, though the latest
/// frame at the step's end was the one before and its own came during the next step; a step
/// that only reads the page (an assertion) does not end the time its picture may be drawn in,
/// and its own is the last frame that shows the page during it.
#[test]
fn the_picture_is_the_first_frame_begun_after_the_step() {
    let mut s = Screens::default();
    s.frame("t", frame("white", 0.0));
    let click = step(&mut s, (50.0, 100.0), true);
    assert_eq!(taken(&mut s, click), None, "its frame is still to come");
    let check = step(&mut s, (100.5, 200.0), false);
    s.frame("t", frame("red", 108.0));
    let fill = step(&mut s, (200.5, 220.0), true);
    assert_eq!(taken(&mut s, click).as_deref(), Some("red"));
    assert_eq!(
        taken(&mut s, check),
        None,
        "a frame after it may still come"
    );
    s.frame("t", frame("magenta", 250.0));
    assert_eq!(taken(&mut s, check).as_deref(), Some("red"));
    s.ended(400.0);
    assert_eq!(taken(&mut s, fill).as_deref(), Some("magenta"));
}

/// When no frame due before the next step that acts shows the page after a step (steps at once
/// after each other, a frame skipped), the step's picture is the first frame that shows it,
/// said to be `later`: it may show the next step's changes. So is that of a step that only
/// read the page between them.
#[test]
fn a_frame_begun_after_the_next_step_acted_is_said_to_be_later() {
    let mut s = Screens::default();
    s.frame("t", frame("white", 0.0));
    let click = step(&mut s, (50.0, 100.0), true);
    let check = step(&mut s, (100.5, 120.0), false);
    let fill = step(&mut s, (120.5, 130.0), true);
    s.frame("t", frame("magenta", 135.0));
    assert_eq!(taken(&mut s, click).as_deref(), Some("magenta+"));
    assert_eq!(taken(&mut s, check).as_deref(), Some("magenta+"));
    let press = step(&mut s, (250.0, 260.0), true);
    assert_eq!(taken(&mut s, fill).as_deref(), Some("magenta"));
    s.ended(300.0);
    s.give_up();
    assert_eq!(taken(&mut s, press).as_deref(), Some("magenta"));
}

/// A step after which the browser drew nothing keeps the frame of before it, at the flow's
/// end too; with no step that acts after it, a frame drawn late (a skipped frame) is its own.
#[test]
fn a_step_that_changed_nothing_drawn_keeps_the_frame_before() {
    let mut s = Screens::default();
    s.frame("t", frame("white", 0.0));
    let quiet = step(&mut s, (50.0, 100.0), true);
    let wait = step(&mut s, (101.0, 300.0), false);
    s.frame("t", frame("late", 250.0));
    assert_eq!(s.ended(310.0).is_some(), s.waiting());
    assert_eq!(taken(&mut s, quiet).as_deref(), Some("late"));
    s.give_up();
    assert_eq!(taken(&mut s, wait).as_deref(), Some("late"));
    let mut s = Screens::default();
    s.frame("t", frame("white", 0.0));
    let quiet = step(&mut s, (50.0, 100.0), true);
    assert!(s.ended(110.0).is_some_and(|at| at > 100.0 + INTERVAL));
    s.give_up();
    assert_eq!(taken(&mut s, quiet).as_deref(), Some("white"));
}

/// A frame that came before the step's end was told, but shows the page after it, is its
/// picture; frames of another tab are not.
#[test]
fn frames_come_before_the_end_is_told_and_per_tab() {
    let mut s = Screens::default();
    s.frame("t", frame("before", 90.0));
    s.frame("t", frame("after", 105.0));
    s.frame("u", frame("popup", 104.0));
    let id = step(&mut s, (50.0, 100.0), true);
    s.step((200.0, 210.0), true);
    let other = s.want("u", 210.0);
    assert_eq!(taken(&mut s, id).as_deref(), Some("after"));
    s.ended(211.0);
    s.give_up();
    assert_eq!(taken(&mut s, other).as_deref(), Some("popup"));
}

/// A page that settles after a step (no frame due for `SHOWS` after it, before the next step
/// that acts began `SHOWS` or more later) is as the last frame before shows it, though that
/// frame was due within `SHOWS` of the step's end; a step that only read it in between too.
#[test]
fn a_page_that_settled_after_a_step_is_as_its_last_frame() {
    let mut s = Screens::default();
    s.frame("t", frame("white", 0.0));
    let open = step(&mut s, (10.0, 100.0), true);
    s.frame("t", frame("blue", 90.0));
    let wait = step(&mut s, (100.5, 400.0), false);
    let click = step(&mut s, (400.5, 420.0), true);
    s.frame("t", frame("green", 425.0));
    assert_eq!(taken(&mut s, open).as_deref(), Some("blue"));
    assert_eq!(taken(&mut s, wait).as_deref(), Some("blue"));
    let fill = step(&mut s, (421.0, 440.0), true);
    s.frame("t", frame("magenta", 445.0));
    assert_eq!(taken(&mut s, click).as_deref(), Some("green+"));
    s.ended(500.0);
    s.give_up();
    assert_eq!(taken(&mut s, fill).as_deref(), Some("magenta"));
}

/// A browser that hands its frames over late shows changes late too: a frame due `SHOWS` after
/// a step, when frames came 40 ms after they were due, is not taken to show it.
#[test]
fn a_late_browser_gets_more_time_to_show_a_step() {
    let mut s = Screens::default();
    s.frame("t", late_frame("white", 0.0, 40.0));
    let click = step(&mut s, (50.0, 100.0), true);
    s.frame("t", late_frame("still white", 100.0, 40.0));
    s.frame("t", late_frame("red", 140.0, 40.0));
    s.ended(400.0);
    assert_eq!(taken(&mut s, click).as_deref(), Some("red"));
}

/// At the flow's end, a picture whose page had settled waits for nothing (the last frame
/// shows it); one whose step acted just before waits until a frame that shows it would have
/// come.
#[test]
fn the_flows_end_waits_only_for_a_page_not_settled() {
    let mut s = Screens::default();
    s.frame("t", frame("blue", 0.0));
    let click = step(&mut s, (10.0, 20.0), true);
    let check = step(&mut s, (20.5, 30.0), false);
    assert!(s.ended(200.0).is_some_and(|at| at <= 200.0));
    s.give_up();
    assert_eq!(taken(&mut s, click).as_deref(), Some("blue"));
    assert_eq!(taken(&mut s, check).as_deref(), Some("blue"));
    let mut s = Screens::default();
    s.frame("t", frame("blue", 0.0));
    step(&mut s, (10.0, 20.0), true);
    assert!(s.ended(25.0).is_some_and(|at| at >= 20.0 + SHOWS));
}
