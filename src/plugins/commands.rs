//! The built-in slash commands: /help, /exit, /clear, /context, /tools, /provider,
//! /model, /reload. Each shows its answer through the session's output.

use crate::agent::{Flow, Plugin, Session};
use crate::protocol::{Effort, ProviderSettings};
use std::fmt::Write as _;

pub struct BuiltinCommands;

impl Plugin for BuiltinCommands {
    fn name(&self) -> &str {
        "commands"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let c = session.commands_mut();
        c.add("help", "", "list commands", help);
        c.add("exit", "", "quit elelem", |_, _| Ok(Flow::Exit));
        c.add("quit", "", "quit elelem", |_, _| Ok(Flow::Exit));
        let cleared = super::context_commands::ClearedConversation::default();
        c.add("clear", "[undo]", "forget the conversation (undo brings it back once)", move |s, a| {
            super::context_commands::clear(s, a, &cleared)
        });
        c.add(
            "context",
            "[list|json|N|keep K|delete N,M|edit N [TEXT]]",
            "what the model sees: a list (the last turn's tool calls numbered k1, k2…), the JSON, message N whole; \
             keep tool call K; delete or edit messages",
            super::context_commands::context,
        );
        c.add(
            "compact",
            "[instructions]",
            "replace the conversation with the model's summary of it",
            super::context_commands::compact,
        );
        c.add("tools", "", "the tools the model can call", tools);
        c.add("provider", "[name]", "list providers, or switch to one", provider);
        c.add("model", "[name]", "switch to a model (without a name: pick from the provider's list)", model);
        c.add(
            "models",
            "",
            "the provider's models, with window and price where known",
            super::models_command::show_models,
        );
        c.add("effort", "[low|medium|high|off]", "how hard the model thinks (reasoning effort)", effort);
        c.add("reload", "", "run the setup blocks (plugins) again", reload);
        c.add("init", "", "draft an AGENTS.md for this project (a normal turn)", init);
        c.add(
            "copy",
            "[N] | code [N]",
            "copy the last (or N-th) reply as Markdown, or the last (or N-th) code block of the conversation, to the clipboard",
            super::transcript_export::copy,
        );
        Ok(())
    }
}

fn help(session: &mut Session, _: &str) -> anyhow::Result<Flow> {
    let mut text = String::from("Commands:\n");
    for command in session.commands().list() {
        let name = format!("/{} {}", command.name, command.usage);
        let _ = writeln!(text, "  {:<18} {}", name.trim_end(), command.description);
    }
    session.show(text.trim_end());
    Ok(Flow::Continue)
}

fn tools(session: &mut Session, _: &str) -> anyhow::Result<Flow> {
    let mut text = String::new();
    for tool in session.toolbox().tools() {
        let _ = writeln!(text, "{} — {}", tool.name, tool.description);
        let required: Vec<&str> = tool.parameters["required"]
            .as_array()
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        if let Some(props) = tool.parameters["properties"].as_object() {
            for (name, schema) in props {
                let kind = schema["type"].as_str().unwrap_or("any");
                let optional = if required.contains(&name.as_str()) { "" } else { ", optional" };
                let about = schema["description"].as_str().unwrap_or("");
                let _ = writeln!(text, "    {name} ({kind}{optional}) {about}");
            }
        }
        if !tool.aliases.is_empty() {
            let _ = writeln!(text, "    aliases: {}", tool.aliases.join(", "));
        }
    }
    session.show(text.trim_end());
    Ok(Flow::Continue)
}

fn provider(session: &mut Session, args: &str) -> anyhow::Result<Flow> {
    if args.is_empty() {
        let current = session.provider().name().to_string();
        let list: Vec<String> = session
            .providers()
            .names()
            .into_iter()
            .map(|n| if n == current { format!("* {n} ({})", session.provider().model()) } else { format!("  {n}") })
            .collect();
        session.show(list.join("\n"));
        return Ok(Flow::Continue);
    }
    let settings = ProviderSettings { model: None, ..session.settings().clone() };
    session.switch_provider(args, settings)?;
    session.show(format!("Provider: {} ({})", session.provider().name(), session.provider().model()));
    Ok(Flow::Continue)
}

fn model(session: &mut Session, args: &str) -> anyhow::Result<Flow> {
    if args.is_empty() {
        return super::models_command::show_models(session, args);
    }
    let name = session.provider().name().to_string();
    let settings = ProviderSettings { model: Some(args.to_string()), ..session.settings().clone() };
    session.switch_provider(&name, settings)?;
    session.show(format!("Model: {}", session.provider().model()));
    Ok(Flow::Continue)
}

/// `/effort`: shows the reasoning effort, or sets it for the next requests (`off`: the
/// provider's default, nothing sent).
fn effort(session: &mut Session, args: &str) -> anyhow::Result<Flow> {
    let args = args.trim();
    if args.is_empty() {
        session.show(match session.settings().effort {
            Some(effort) => format!("Effort: {}", effort.word()),
            None => {
                format!("Effort: the model's default (set one with /effort {})", Effort::WORDS.replace(" or ", "|"))
            }
        });
        return Ok(Flow::Continue);
    }
    let effort = match args {
        "off" | "default" => None,
        word => Some(
            Effort::parse(word).ok_or_else(|| anyhow::anyhow!("unknown effort {word:?}: {} or off", Effort::WORDS))?,
        ),
    };
    let name = session.provider().name().to_string();
    let settings = ProviderSettings { effort, ..session.settings().clone() };
    session.switch_provider(&name, settings)?;
    session.show(match effort {
        Some(effort) => format!("Effort: {} for the next requests", effort.word()),
        None => "Effort: the model's default for the next requests".to_string(),
    });
    Ok(Flow::Continue)
}

/// What `/init` asks the model to do.
const INIT_PROMPT: &str = "Look around this project (its layout, build files, README, tests and any \
existing instructions such as CLAUDE.md) and write an AGENTS.md at its root for coding agents: \
what the project is, how to build, test and lint it, the layout of the code, and the conventions \
to follow. Keep it short and concrete. If an AGENTS.md already exists, improve it instead.";

fn init(_: &mut Session, args: &str) -> anyhow::Result<Flow> {
    let prompt = if args.is_empty() { INIT_PROMPT.to_string() } else { format!("{INIT_PROMPT}\n\nAlso: {args}") };
    Ok(Flow::Turn(prompt))
}

fn reload(session: &mut Session, _: &str) -> anyhow::Result<Flow> {
    session.reload()?;
    session.show(format!(
        "Reloaded: {} tools, {} commands.",
        session.toolbox().tools().len(),
        session.commands().list().count()
    ));
    Ok(Flow::Continue)
}
