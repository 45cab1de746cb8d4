//! `elelem mcp`: the agent served over the Model Context Protocol on stdio (the `rmcp`
//! crate's server side), so another agent, Claude Desktop or an IDE plugin can hand elelem
//! a task. This file is the server: the tools it lists, each call dispatched, the reply
//! streamed as progress notifications when the client sent a progress token, and the end
//! of the connection (stdin closed: every turn is interrupted, which stops the commands
//! it runs; the caller then stops everything else, `startup::shutdown`). `tools` holds the
//! tools' schemas and results, `sessions` the sessions and turns, `output` what a turn
//! shows, `roots` where calls may work.

pub mod output;
pub mod roots;
pub mod sessions;
pub mod tools;

use crate::startup::Options;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use roots::Roots;
use sessions::Sessions;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::CancellationToken;

/// How long the interrupted turns may take to stop once the client is gone.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(10);

/// The server: the sessions it holds.
struct Server {
    sessions: Arc<Sessions>,
}

/// Serves one client on stdin/stdout until it closes stdin (or a stop signal comes).
/// `roots`: folders besides the current one that calls may work in.
pub async fn run(options: Options, roots: Vec<PathBuf>) -> anyhow::Result<()> {
    let home = std::env::current_dir()?;
    let roots = Roots::new(&home, &roots)?;
    let sessions = Arc::new(Sessions::new(options, roots));
    let closed = CancellationToken::new();
    let stdin = EofWatch { inner: tokio::io::stdin(), closed: closed.clone() };
    let service = Server { sessions: sessions.clone() }.serve((stdin, protocol_stdout()?)).await?;
    let mut stops = crate::signals::Stops::new(true)?;
    let stop = tokio::select! {
        _ = closed.cancelled() => None,
        stop = stops.next() => Some(stop),
    };
    // The client is gone (or elelem is told to stop): every turn ends, killing its commands.
    sessions.close();
    if tokio::time::timeout(SETTLE, sessions.settled()).await.is_err() {
        output::log("a turn did not stop in time; its commands are killed");
    }
    if let Some(stop) = stop {
        // A read of stdin may still be pending, which a return would wait for.
        crate::startup::shutdown();
        std::process::exit(i32::from(stop.exit_status()));
    }
    service.cancel().await?;
    Ok(())
}

/// Where the protocol is written: stdout, which nothing else may write to. A Lua plugin's
/// `print` or a stray `println!` would break the stream, so on Unix the protocol gets a
/// copy of descriptor 1 (closed in the commands elelem runs) and descriptor 1 becomes
/// stderr, the server's log.
#[cfg(unix)]
fn protocol_stdout() -> anyhow::Result<tokio::fs::File> {
    use anyhow::Context as _;
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl and dup2 on the process's own standard descriptors; the copy is new,
    // and owned by the `File` made from it.
    let copy = unsafe { libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3) };
    if copy < 0 {
        return Err(std::io::Error::last_os_error()).context("cannot copy stdout for the protocol");
    }
    let file = unsafe { std::fs::File::from_raw_fd(copy) };
    if unsafe { libc::dup2(2, 1) } < 0 {
        return Err(std::io::Error::last_os_error()).context("cannot point stdout at stderr");
    }
    Ok(tokio::fs::File::from_std(file))
}

#[cfg(not(unix))]
fn protocol_stdout() -> anyhow::Result<tokio::io::Stdout> {
    Ok(tokio::io::stdout())
}

/// Stdin, which tells `closed` when it ends: the client went away.
struct EofWatch<R> {
    inner: R,
    closed: CancellationToken,
}

impl<R: AsyncRead + Unpin> AsyncRead for EofWatch<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => self.closed.cancel(),
            Poll::Ready(Err(_)) => self.closed.cancel(),
            _ => {}
        }
        polled
    }
}

fn text_result(text: String, structured: Option<serde_json::Value>, error: bool) -> CallToolResult {
    let mut result = if error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    result.structured_content = structured;
    result
}

impl Server {
    /// A `prompt` call: the turn, with its reply streamed as progress when asked for.
    async fn prompt(
        &self,
        args: &serde_json::Map<String, serde_json::Value>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let request = match tools::turn_request(args) {
            Ok(request) => request,
            Err(error) => return text_result(error.to_string(), None, true),
        };
        let (stream, forward) = match context.meta.get_progress_token() {
            Some(progress_token) => {
                let (sender, mut chunks) = tokio::sync::mpsc::unbounded_channel::<String>();
                let peer = context.peer.clone();
                let forward = tokio::spawn(async move {
                    let mut sent = 0usize;
                    while let Some(chunk) = chunks.recv().await {
                        if chunk.is_empty() {
                            continue;
                        }
                        sent += chunk.len();
                        let mut progress = ProgressNotificationParam::new(progress_token.clone(), sent as f64);
                        progress.message = Some(chunk);
                        if peer.notify_progress(progress).await.is_err() {
                            break;
                        }
                    }
                });
                (Some(sender), Some(forward))
            }
            None => (None, None),
        };
        let outcome = self.sessions.turn(request, stream, context.ct.clone()).await;
        if let Some(forward) = forward {
            // Every chunk is sent before the result (the sender is gone with the turn).
            let _ = forward.await;
        }
        match outcome {
            Ok(result) => {
                let (text, structured) = tools::turn_result(&result);
                let failed = result.end != crate::agent::output::TurnEnd::Done;
                text_result(text, Some(structured), failed)
            }
            Err(error) => text_result(error.to_string(), None, true),
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("elelem", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "elelem is a coding agent. Call `prompt` with a task; pass the `session` it returns to \
                 continue. `sessions` lists earlier sessions.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = tools::specs()
            .into_iter()
            .map(|(name, description, schema)| {
                let schema = schema.as_object().cloned().unwrap_or_default();
                Tool::new(name, description, Arc::new(schema))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            tools::PROMPT => self.prompt(&args, context).await,
            tools::SESSIONS => match tools::sessions(&args, &self.sessions.open_ids(), self.sessions.roots()) {
                Ok((text, structured)) => text_result(text, Some(structured), false),
                Err(error) => text_result(error.to_string(), None, true),
            },
            other => return Err(ErrorData::invalid_params(format!("unknown tool: {other}"), None)),
        };
        Ok(result.into())
    }
}
