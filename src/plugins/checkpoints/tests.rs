use super::store::{snapshot, FileState, Journal, Store, MAX_CHECKPOINT_BYTES};
use super::undo::{self, Request};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A store whose journal collects the records it writes.
fn journaled() -> (Store, Arc<Mutex<Vec<Value>>>) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = records.clone();
    let journal: Journal = Arc::new(move |r| sink.lock().unwrap().push(r));
    (Store::new(Some(journal)), records)
}

/// What a tool call does to `path` with the hooks around it.
fn change(store: &mut Store, path: &Path, content: &str) {
    store.before_change(path, snapshot(path).unwrap());
    std::fs::write(path, content).unwrap();
    store.after_change(path, snapshot(path).unwrap().state);
}

#[test]
fn undo_restores_changed_files_and_deletes_created_ones_of_the_last_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.txt"), dir.path().join("new.txt"));
    std::fs::write(&old, "original\n").unwrap();
    let (mut store, _) = journaled();
    store.turn = 1;
    change(&mut store, &old, "turn one\n");
    store.turn = 2;
    change(&mut store, &old, "turn two\n");
    change(&mut store, &old, "turn two again\n");
    change(&mut store, &new, "created\n");

    let text = undo::undo(&mut store, None, false, dir.path()).unwrap();
    assert!(text.contains("turn 2"), "{text}");
    assert!(text.contains("old.txt: restored") && text.contains("new.txt: deleted"), "{text}");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "turn one\n", "back to before turn 2, not before its 2nd edit");
    assert!(!new.exists());

    let text = undo::undo(&mut store, None, false, dir.path()).unwrap();
    assert!(text.contains("turn 1"), "{text}");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "original\n");
    assert!(undo::undo(&mut store, None, false, dir.path()).is_err(), "nothing left");
}

#[test]
fn undo_n_restores_turn_n_onward() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::write(&a, "a0").unwrap();
    let (mut store, _) = journaled();
    for turn in 1..=3 {
        store.turn = turn;
        change(&mut store, &a, &format!("a{turn}"));
    }
    store.turn = 3;
    change(&mut store, &b, "b3");
    let text = undo::undo(&mut store, Some(2), false, dir.path()).unwrap();
    assert!(text.contains("turns 2–3"), "{text}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "a1");
    assert!(!b.exists());
    assert!(undo::list(&store, dir.path()).contains("turn 1: a"));
}

#[test]
fn a_file_changed_outside_elelem_is_not_overwritten_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    std::fs::write(&file, "mine").unwrap();
    let (mut store, _) = journaled();
    store.turn = 1;
    change(&mut store, &file, "elelem's");
    std::fs::write(&file, "edited by the user").unwrap();

    let refusal = undo::undo(&mut store, None, false, dir.path()).unwrap_err().to_string();
    assert!(refusal.contains("f.txt") && refusal.contains("/undo --force"), "{refusal}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "edited by the user", "nothing touched");

    undo::undo(&mut store, None, true, dir.path()).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn an_edit_made_between_two_undone_turns_is_not_lost_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    std::fs::write(&file, "original").unwrap();
    let (mut store, records) = journaled();
    store.turn = 1;
    change(&mut store, &file, "turn 1");
    std::fs::write(&file, "the user's edit").unwrap();
    store.turn = 2;
    change(&mut store, &file, "turn 2");

    let refusal = undo::undo(&mut store, Some(1), false, dir.path()).unwrap_err().to_string();
    assert!(refusal.contains("f.txt") && refusal.contains("/undo 1 --force"), "{refusal}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "turn 2", "nothing touched");
    // Undoing only the later turn gives the user's edit back: no question.
    let mut replayed = Store::new(None);
    replayed.replay(records.lock().unwrap().clone(), 2);
    undo::undo(&mut replayed, None, false, dir.path()).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "the user's edit");
    std::fs::write(&file, "turn 2").unwrap();
    undo::undo(&mut store, Some(1), true, dir.path()).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "original");
}

#[test]
fn a_created_file_deleted_outside_elelem_counts_as_changed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("made");
    let (mut store, _) = journaled();
    store.turn = 1;
    change(&mut store, &file, "x");
    std::fs::remove_file(&file).unwrap();
    assert!(undo::undo(&mut store, None, false, dir.path()).is_err());
}

#[test]
fn the_records_rebuild_the_same_checkpoints_and_content_is_written_once() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::write(&a, "same content").unwrap();
    std::fs::write(&b, "same content").unwrap();
    let (mut store, records) = journaled();
    store.turn = 1;
    change(&mut store, &a, "a1");
    change(&mut store, &b, "b1");
    let written = records.lock().unwrap().clone();
    let with_text = written.iter().filter(|r| r.get("text").is_some()).count();
    assert_eq!(with_text, 1, "one copy of the shared content: {written:?}");

    let (mut resumed, _) = journaled();
    assert!(resumed.replay(written, 1).is_empty());
    assert_eq!(resumed.checkpoints(), store.checkpoints());
    assert_eq!(resumed.turn, 1);
    std::fs::write(&a, "changed outside").unwrap();
    assert!(undo::undo(&mut resumed, None, false, dir.path()).is_err(), "the last write survives resume too");
    undo::undo(&mut resumed, None, true, dir.path()).unwrap();
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "same content");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "same content");
}

#[test]
fn an_undo_is_recorded_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let (mut store, records) = journaled();
    store.turn = 1;
    change(&mut store, &a, "one");
    store.turn = 2;
    change(&mut store, &a, "two");
    undo::undo(&mut store, None, false, dir.path()).unwrap();
    let (mut resumed, _) = journaled();
    resumed.replay(records.lock().unwrap().clone(), 2);
    assert_eq!(resumed.checkpoints().len(), 1, "turn 2's checkpoint is gone");
    assert_eq!(resumed.written(&a), store.written(&a));
    undo::undo(&mut resumed, None, false, dir.path()).unwrap();
    assert!(!a.exists(), "turn 1 created it");
}

#[test]
fn binary_content_round_trips_through_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("bin");
    std::fs::write(&a, [0u8, 159, 146, 150, 255]).unwrap();
    let (mut store, records) = journaled();
    store.turn = 1;
    change(&mut store, &a, "text now");
    let (mut resumed, _) = journaled();
    assert!(resumed.replay(records.lock().unwrap().clone(), 1).is_empty());
    undo::undo(&mut resumed, None, false, dir.path()).unwrap();
    assert_eq!(std::fs::read(&a).unwrap(), vec![0u8, 159, 146, 150, 255]);
}

#[test]
fn large_files_are_reported_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    std::fs::write(&big, vec![b'x'; MAX_CHECKPOINT_BYTES as usize + 1]).unwrap();
    let (mut store, records) = journaled();
    store.turn = 1;
    let notice = store.before_change(&big, snapshot(&big).unwrap());
    assert!(notice.unwrap().contains("too large to checkpoint"));
    assert!(records.lock().unwrap()[0].to_string().len() < 200, "no content written");
    assert!(matches!(store.checkpoints()[0].before, FileState::TooLarge(_)));
    let text = undo::undo(&mut store, None, false, dir.path()).unwrap();
    assert!(text.contains("too large to checkpoint"), "{text}");
}

#[test]
fn contents_kept_in_memory_are_bounded_for_the_whole_session() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"));
    std::fs::write(&a, "aaaa").unwrap();
    std::fs::write(&b, "bbbb").unwrap();
    std::fs::write(&c, "aaaa").unwrap();
    let mut store = Store::new(None).with_limit(6);
    store.turn = 1;
    assert_eq!(store.before_change(&a, snapshot(&a).unwrap()), None);
    let notice = store.before_change(&b, snapshot(&b).unwrap()).unwrap();
    assert!(notice.contains("not checkpointed"), "{notice}");
    assert_eq!(store.before_change(&c, snapshot(&c).unwrap()), None, "content already kept costs nothing");
    assert!(matches!(store.checkpoints()[1].before, FileState::TooLarge(4)));
}

#[test]
fn directories_are_not_checkpointed() {
    let dir = tempfile::tempdir().unwrap();
    assert!(snapshot(dir.path()).is_none());
}

#[test]
fn the_command_line_parses() {
    assert_eq!(undo::parse("").unwrap(), Request::Undo { from: None, force: false });
    assert_eq!(undo::parse("3 --force").unwrap(), Request::Undo { from: Some(3), force: true });
    assert_eq!(undo::parse("--force").unwrap(), Request::Undo { from: None, force: true });
    assert_eq!(undo::parse("--list").unwrap(), Request::List);
    assert!(undo::parse("soon").is_err());
}
