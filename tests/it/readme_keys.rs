//! The README's key table is the help overlay's list (`elelem::tui::popups::help::KEYS`), row for
//! row: a key added, changed or removed in one and not the other fails here.

use elelem::tui::popups::help::KEYS;

#[test]
fn the_readme_key_table_is_the_help_overlays_list() {
    let readme = include_str!("../../README.md");
    let start = readme.find("| key | what it does |").expect("README has a key table");
    let rows: Vec<(String, String)> = readme[start..]
        .lines()
        .skip(2) // the header and its rule
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells.len(), 2, "a key row has two cells: {line}");
            (cells[0].to_string(), cells[1].to_string())
        })
        .collect();
    let keys: Vec<(String, String)> = KEYS.iter().map(|(k, w)| (k.to_string(), w.to_string())).collect();
    assert_eq!(rows, keys, "README's key table and help::KEYS differ");
}
