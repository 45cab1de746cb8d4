//! One server's connection, run as a background task: spawn the process (its own process
//! group, stderr kept, stdout read through `bounded.rs`) or open the Streamable HTTP
//! transport, the handshake and `tools/list` (`listing.rs`) under a time limit, then follow
//! `notifications/tools/list_changed` until the connection ends. Every state change goes to
//! `Servers` and is shown as an `AgentEvent::Info` or `Warning`.

use super::bounded::{BoundedReader, LINE_CAP};
use super::config::{ServerConfig, Transport};
use super::listing::{list_tools, Listed};
use super::processes::ServerProcess;
use super::servers::Servers;
use crate::agent::{AgentEvent, Output};
use rmcp::model::ClientConfig;
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::sync::Notify;

/// Hears `notifications/tools/list_changed`.
#[derive(Clone)]
struct Client {
    tools_changed: Arc<Notify>,
}

impl ClientHandler for Client {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.notify_one();
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info.name = "elelem".to_string();
        info.client_info.version = env!("CARGO_PKG_VERSION").to_string();
        info
    }
}

/// `stdio: command args…` or `http: url`, for listings.
pub fn endpoint(config: &ServerConfig) -> String {
    match &config.transport {
        Transport::Stdio { command, args, .. } => format!("stdio: {command} {}", args.join(" ")).trim_end().to_string(),
        Transport::Http { url, .. } => format!("http: {url}"),
    }
}

/// Connects to one server and keeps following it until the connection ends.
pub async fn run(config: ServerConfig, servers: Arc<Servers>, output: Arc<dyn Output>, timeout: Duration) {
    let name = config.name.clone();
    let client = Client { tools_changed: Arc::new(Notify::new()) };
    let connected = tokio::time::timeout(timeout, connect(&config, client.clone(), &servers)).await;
    let (service, _process) = match connected {
        Ok(Ok(connected)) => connected,
        Ok(Err(reason)) => return failed(&servers, &output, &name, reason),
        Err(_) => {
            let reason = format!("no answer to the handshake within {} ms", timeout.as_millis());
            return failed(&servers, &output, &name, reason);
        }
    };
    let peer = service.peer().clone();
    let tools = match tokio::time::timeout(timeout, list_tools(&peer)).await {
        Ok(Ok(listed)) => skipped(&output, &name, listed),
        Ok(Err(error)) => return failed(&servers, &output, &name, format!("tools/list failed: {error}")),
        Err(_) => return failed(&servers, &output, &name, "tools/list got no answer".to_string()),
    };
    // Ready first, then say so: a user who sees "ready" and types finds the tools there.
    let count = tools.len();
    servers.ready(&name, peer.clone(), tools);
    output.emit(AgentEvent::Info(format!("MCP server {name} ready with {count} tools")));
    let follow = {
        let (servers, output, name, changed) = (servers.clone(), output.clone(), name.clone(), client.tools_changed);
        tokio::spawn(async move {
            loop {
                changed.notified().await;
                match tokio::time::timeout(timeout, list_tools(&peer)).await {
                    Ok(Ok(listed)) => {
                        let tools = skipped(&output, &name, listed);
                        let count = tools.len();
                        servers.set_tools(&name, tools);
                        output.emit(AgentEvent::Info(format!("MCP server {name}: tools changed ({count})")));
                    }
                    Ok(Err(error)) => {
                        output.emit(AgentEvent::Warning(format!("MCP server {name}: tools/list: {error}")))
                    }
                    Err(_) => output.emit(AgentEvent::Warning(format!("MCP server {name}: tools/list got no answer"))),
                }
            }
        })
    };
    let quit = service.waiting().await;
    follow.abort();
    let reason = match quit {
        Ok(reason) => format!("the connection ended ({reason:?})"),
        Err(error) => format!("the connection task failed: {error}"),
    };
    failed(&servers, &output, &name, reason);
}

/// The longest stderr line kept; the rest of a longer one is dropped as it arrives.
const STDERR_LINE_CAP: usize = 1000;

/// Splits a server's stderr into lines of at most `STDERR_LINE_CAP` bytes, so a line that
/// never ends cannot fill memory.
#[derive(Default)]
struct CutLines {
    line: Vec<u8>,
    over: bool,
}

impl CutLines {
    fn push(&mut self, bytes: &[u8], mut each: impl FnMut(String)) {
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            let (text, ends) = match piece.strip_suffix(b"\n") {
                Some(text) => (text, true),
                None => (piece, false),
            };
            let room = STDERR_LINE_CAP.saturating_sub(self.line.len());
            self.over |= text.len() > room;
            self.line.extend_from_slice(&text[..text.len().min(room)]);
            if ends {
                let mut line = String::from_utf8_lossy(&self.line).into_owned();
                if self.over {
                    line.push_str(" [... cut]");
                }
                each(line);
                self.line.clear();
                self.over = false;
            }
        }
    }
}

/// Warns about each tool entry left out; the tools.
fn skipped(output: &Arc<dyn Output>, name: &str, listed: Listed) -> Vec<rmcp::model::Tool> {
    for warning in listed.skipped {
        output.emit(AgentEvent::Warning(format!("MCP server {name}: {warning}")));
    }
    listed.tools
}

/// Records and shows a failure, with the last lines of the server's stderr.
fn failed(servers: &Servers, output: &Arc<dyn Output>, name: &str, reason: String) {
    let reason = format!("{reason}{}", servers.stderr_tail(name));
    output.emit(AgentEvent::Warning(format!("MCP server {name} failed: {reason}")));
    servers.fail(name, reason);
}

/// The running service, and for stdio the child and its group (killed when dropped).
type Connected = (RunningService<RoleClient, Client>, Option<(ServerProcess, tokio::process::Child)>);

async fn connect(config: &ServerConfig, client: Client, servers: &Arc<Servers>) -> Result<Connected, String> {
    match &config.transport {
        Transport::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            let mark = super::processes::Mark::new();
            cmd.args(args)
                .envs(env)
                .env(mark.name(), mark.value())
                .kill_on_drop(true)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            crate::process_tree::own_group(&mut cmd);
            let mut child = cmd.spawn().map_err(|e| format!("cannot start {command}: {e}"))?;
            let process = ServerProcess::new(child.id(), mark);
            let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                return Err(format!("cannot start {command}: no pipes"));
            };
            // Lines are bounded by the filter; rmcp's own limit is only a second fence.
            let transport =
                AsyncRwTransport::new_client(BoundedReader::new(stdout), stdin).with_max_line_length(LINE_CAP + 1);
            if let Some(stderr) = child.stderr.take() {
                let (servers, name) = (servers.clone(), config.name.clone());
                tokio::spawn(async move {
                    let (mut stderr, mut buf) = (stderr, vec![0; 8192]);
                    let mut lines = CutLines::default();
                    while let Ok(n @ 1..) = stderr.read(&mut buf).await {
                        lines.push(&buf[..n], |line| servers.stderr_line(&name, line));
                    }
                });
            }
            let service = client.serve(transport).await.map_err(|e| format!("handshake failed: {e}"))?;
            Ok((service, Some((process, child))))
        }
        Transport::Http { url, headers } => {
            crate::tls::use_ring();
            let mut custom = std::collections::HashMap::new();
            for (key, value) in headers {
                let key = http::HeaderName::try_from(key.as_str()).map_err(|e| format!("header {key:?}: {e}"))?;
                let value = http::HeaderValue::try_from(value.as_str()).map_err(|e| format!("header {key}: {e}"))?;
                custom.insert(key, value);
            }
            let config =
                rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom);
            let transport = StreamableHttpClientTransport::from_config(config);
            let service = client.serve(transport).await.map_err(|e| format!("handshake failed: {e}"))?;
            Ok((service, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_lines_are_cut_and_a_line_that_never_ends_stays_small() {
        let mut lines = CutLines::default();
        let mut seen = Vec::new();
        lines.push(b"first\nsec", |l| seen.push(l));
        lines.push(b"ond\n", |l| seen.push(l));
        for _ in 0..1000 {
            lines.push(&[b'x'; 10_000], |l| seen.push(l));
        }
        assert!(lines.line.len() <= STDERR_LINE_CAP);
        lines.push(b"\n", |l| seen.push(l));
        assert_eq!(seen[..2], ["first", "second"]);
        assert_eq!(seen[2], format!("{} [... cut]", "x".repeat(STDERR_LINE_CAP)));
    }
}
