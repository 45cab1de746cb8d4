//! The system prompt with the project's instructions handed in (`SystemPrompt::with_instructions`,
//! as `startup` hands `instructions::render`): the working directory, the branch and the
//! nearest `AGENTS.md` (or a stand-in), read fresh on each render.

use elelem::agent::system_prompt::SystemPrompt;
use elelem::dates::today;
use elelem::instructions::render;

#[test]
fn includes_cwd_branch_and_nearest_agents_md() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/feature-x\n").unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "Always run cargo fmt.\n").unwrap();
    let sub = dir.path().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let text = SystemPrompt::new(sub.clone()).with_instructions(render).render();
    assert!(text.contains(&format!("Working directory: {}", sub.display())), "{text}");
    assert!(text.contains("Git branch: feature-x"), "{text}");
    assert!(text.contains("Always run cargo fmt."), "{text}");
    assert!(text.contains(&format!("Date: {}", today())), "{text}");
    assert!(text.contains(std::env::consts::OS), "{text}");
}

#[test]
fn claude_md_or_copilot_instructions_stand_in_when_there_is_no_agents_md() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = SystemPrompt::new(dir.path().to_path_buf()).with_instructions(render);
    std::fs::create_dir_all(dir.path().join(".github")).unwrap();
    std::fs::write(dir.path().join(".github/copilot-instructions.md"), "From copilot.").unwrap();
    assert!(prompt.render().contains("From copilot."));
    std::fs::write(dir.path().join("CLAUDE.md"), "From claude.").unwrap();
    assert!(prompt.render().contains("From claude.") && !prompt.render().contains("From copilot."));
    std::fs::write(dir.path().join("AGENTS.md"), "From agents.").unwrap();
    let text = prompt.render();
    assert!(text.contains("From agents.") && !text.contains("From claude."), "{text}");
}

#[test]
fn renders_fresh_each_time() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = SystemPrompt::new(dir.path().to_path_buf()).with_instructions(render);
    assert!(!prompt.render().contains("Project instructions"));
    std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.").unwrap();
    assert!(prompt.render().contains("Use tabs."));
}

#[test]
fn without_a_reader_the_prompt_holds_no_instructions() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.").unwrap();
    assert!(!SystemPrompt::new(dir.path().to_path_buf()).render().contains("Use tabs."));
}
