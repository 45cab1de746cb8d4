//! Values crossing between Rust and Lua: JSON arguments and results as Lua tables and
//! back (JSON `null` is Lua `nil`; object keys come back sorted so results do not depend on
//! Lua's table order), and Lua errors as one readable line (`shout.lua:3: boom`, no
//! traceback).

use mlua::{Lua, LuaSerdeExt, Value as LuaValue};
use serde_json::Value;

/// A JSON value as a Lua value.
pub fn to_lua(lua: &Lua, value: &Value) -> mlua::Result<LuaValue> {
    let options = mlua::serde::SerializeOptions::new().serialize_none_to_null(false).serialize_unit_to_null(false);
    lua.to_value_with(value, options)
}

/// A Lua value as JSON; functions and other values JSON cannot hold are left out.
pub fn from_lua(lua: &Lua, value: LuaValue) -> mlua::Result<Value> {
    let options = mlua::serde::DeserializeOptions::new().deny_unsupported_types(false).sort_keys(true);
    lua.from_value_with(value, options)
}

/// A Lua error as one line: the message with its `chunk:line:` position, without the
/// traceback or mlua's wrapping.
pub fn message(error: &mlua::Error) -> String {
    match error {
        mlua::Error::RuntimeError(text) => first_part(text),
        mlua::Error::SyntaxError { message, .. } => first_part(message),
        mlua::Error::CallbackError { cause, .. } => message(cause),
        mlua::Error::WithContext { cause, .. } => message(cause),
        other => first_part(&other.to_string()),
    }
}

fn first_part(text: &str) -> String {
    let text = text.split("\nstack traceback:").next().unwrap_or(text);
    text.trim_end().to_string()
}

/// Splits `name.lua:12: message` into the line and the message, for the load-failure
/// line `failed to load plugin <file>: <line>: <message>`.
pub fn located(text: &str, chunk: &str) -> String {
    match text.strip_prefix(chunk).and_then(|rest| rest.strip_prefix(':')) {
        Some(rest) => match rest.split_once(": ") {
            Some((line, message)) if line.chars().all(|c| c.is_ascii_digit()) => format!("{line}: {message}"),
            _ => rest.to_string(),
        },
        None => text.to_string(),
    }
}

/// An error raised from Rust with the calling Lua line in front, as Lua's own `error`
/// does: `shout.lua:4: toolbox:add needs a name`.
pub fn raise(lua: &Lua, text: impl std::fmt::Display) -> mlua::Error {
    let place = lua.inspect_stack(1, |debug| {
        let source = debug.source().short_src.map(|s| s.into_owned());
        source.zip(debug.current_line()).map(|(src, line)| format!("{src}:{line}: "))
    });
    mlua::Error::runtime(format!("{}{text}", place.flatten().unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_round_trips_with_null_as_nil_and_sorted_keys() {
        let lua = Lua::new();
        let value = to_lua(&lua, &json!({"b": [1, "x"], "a": null, "c": {"d": true}})).unwrap();
        let table = value.as_table().unwrap();
        assert!(table.get::<LuaValue>("a").unwrap().is_nil());
        assert_eq!(from_lua(&lua, value).unwrap().to_string(), r#"{"b":[1,"x"],"c":{"d":true}}"#);
    }

    #[test]
    fn errors_are_one_line_with_their_position() {
        let lua = Lua::new();
        let error = lua.load("\nerror('boom')").set_name("@shout.lua").exec().unwrap_err();
        assert_eq!(message(&error), "shout.lua:2: boom");
        assert_eq!(located(&message(&error), "shout.lua"), "2: boom");
        let error = lua.load("x = = 1").set_name("@bad.lua").exec().unwrap_err();
        assert_eq!(located(&message(&error), "bad.lua"), "1: unexpected symbol near '='");
    }
}
