//! `tools/list`, read leniently: each page's `tools` array is converted one entry at a
//! time, so one tool with a malformed entry (a number for a name, a string for a schema) is
//! skipped with a warning instead of failing the whole list (rmcp's typed list would).
//! Pages are followed by `nextCursor`, at most `MAX_PAGES` of them.

use rmcp::model::{ClientRequest, CustomRequest, CustomResult, ServerResult, Tool as McpTool};
use rmcp::service::{Peer, RoleClient};
use serde_json::{json, Value};

/// The most pages followed (a server whose cursor never ends stops here).
const MAX_PAGES: usize = 1000;

/// The tools a server listed, and a warning for each entry left out.
#[derive(Default)]
pub struct Listed {
    pub tools: Vec<McpTool>,
    pub skipped: Vec<String>,
}

/// Asks for every page of the server's tools.
pub async fn list_tools(peer: &Peer<RoleClient>) -> Result<Listed, String> {
    let mut listed = Listed::default();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.take().map(|cursor| json!({ "cursor": cursor }));
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/list", params));
        let answer = peer.send_request(request).await.map_err(|e| e.to_string())?;
        let next = match answer {
            // Every entry was valid: rmcp read it as the typed list.
            ServerResult::ListToolsResult(page) => {
                listed.tools.extend(page.tools);
                page.next_cursor
            }
            ServerResult::CustomResult(CustomResult(page)) => read_page(page, &mut listed)?,
            _ => return Err("the answer to tools/list is not a list of tools".to_string()),
        };
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(listed),
        }
    }
    listed.skipped.push(format!("stopped after {MAX_PAGES} pages of tools"));
    Ok(listed)
}

/// Takes the valid entries of one page; returns its `nextCursor`.
pub fn read_page(mut page: Value, listed: &mut Listed) -> Result<Option<String>, String> {
    let Some(Value::Array(entries)) = page.get_mut("tools").map(Value::take) else {
        return Err("the answer to tools/list has no \"tools\" array".to_string());
    };
    let first = listed.tools.len() + listed.skipped.len();
    for (i, entry) in entries.into_iter().enumerate() {
        let name = match entry.get("name") {
            Some(Value::String(name)) => name.clone(),
            other => {
                format!("number {} (name {})", first + i + 1, other.map_or("missing".to_string(), Value::to_string))
            }
        };
        match serde_json::from_value::<McpTool>(entry) {
            Ok(tool) => listed.tools.push(tool),
            Err(error) => listed.skipped.push(format!("skipping tool {name}: {error}")),
        }
    }
    Ok(page.get("nextCursor").and_then(Value::as_str).map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_the_invalid_entries_and_keeps_the_rest() {
        let page = json!({"tools": [
            {"name": "good", "inputSchema": {"type": "object"}},
            {"name": 5, "inputSchema": {"type": "object"}},
            {"name": "typed", "inputSchema": "not an object"},
            {"name": "also", "inputSchema": {"type": "object"}}
        ], "nextCursor": "2"});
        let mut listed = Listed::default();
        assert_eq!(read_page(page, &mut listed), Ok(Some("2".to_string())));
        let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["good", "also"]);
        assert!(listed.skipped[0].starts_with("skipping tool number 2 (name 5): "), "{:?}", listed.skipped);
        assert!(listed.skipped[1].starts_with("skipping tool typed: "), "{:?}", listed.skipped);
        assert!(read_page(json!({"tools": 3}), &mut listed).is_err());
    }
}
