//! The README's key table is the help overlay's list (`elelem::tui::popups::help::KEYS`), row for
//! row, each group's name a row of its own (`| **Prompt** | |`): a key added, changed or
//! removed in one and not the other fails here; and the pictures it shows exist.

use elelem::tui::popups::help::KEYS;

#[test]
fn the_readme_key_table_is_the_help_overlays_list() {
    let readme = include_str!("../../../README.md");
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
    let keys: Vec<(String, String)> = KEYS
        .iter()
        .flat_map(|group| {
            let heading = (format!("**{}**", group.name), String::new());
            std::iter::once(heading).chain(group.keys.iter().map(|(k, w)| (k.to_string(), w.to_string())))
        })
        .collect();
    assert_eq!(rows, keys, "README's key table and help::KEYS differ");
}

/// Every picture the README shows is in the repository, a dark and a light one among them
/// (`scripts/screenshots.py` makes them).
#[test]
fn the_readmes_pictures_exist_in_both_palettes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = include_str!("../../../README.md");
    let pictures: Vec<&str> =
        readme.split("](screenshots/").skip(1).filter_map(|rest| rest.split(')').next()).collect();
    assert!(pictures.len() >= 2, "{pictures:?}");
    for picture in &pictures {
        let path = root.join("screenshots").join(picture);
        assert!(path.is_file(), "README shows {} but it is not there", path.display());
    }
    assert!(pictures.iter().any(|p| p.contains("light")), "no light picture: {pictures:?}");
}
