// An editor in miniature for tests/it/acp.rs: the official ACP client SDK
// (@agentclientprotocol/sdk) spawns `ELELEM acp -p stub`, sends initialize,
// session/new (cwd: this process's directory) and one session/prompt with PROMPT,
// answers every permission request with ANSWER (an optionId, or "cancelled"), and
// prints each message it gets as one JSON line:
//   {"kind":"initialize"|"session/new"|"session/prompt","result":...}
//   {"kind":"notification","method":...,"params":...}
//   {"kind":"request","method":...,"params":...}
//   {"kind":"error","message":...}
// With a fourth argument "fs", it offers fs.readTextFile / fs.writeTextFile: a read gets
// "BUFFER <path>\n" (the editor's unsaved text) and a write is printed and kept in the
// "editor", not written to disk.
// Usage: node client.mjs ELELEM PROMPT ANSWER [fs]
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [elelem, prompt, answer, files] = process.argv.slice(2);
const offersFs = files === "fs";
const print = (value) => process.stdout.write(JSON.stringify(value) + "\n");

const child = spawn(elelem, ["acp", "-p", "stub"], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const app = acp
  .client({ name: "elelem-test-client" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    print({ kind: "request", method: "session/request_permission", params });
    if (answer === "cancelled") return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: answer } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    print({ kind: "request", method: "fs/read_text_file", params });
    return { content: `BUFFER ${params.path}\n` };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    print({ kind: "request", method: "fs/write_text_file", params });
    return {};
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    print({ kind: "notification", method: "session/update", params });
  });

try {
  await app.connectWith(stream, async (agent) => {
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: offersFs, writeTextFile: offersFs }, terminal: false },
      clientInfo: { name: "elelem-test-client", version: "0" },
    });
    print({ kind: "initialize", result: init });
    const session = await agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
    print({ kind: "session/new", result: session });
    const done = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: prompt }],
    });
    print({ kind: "session/prompt", result: done });
  });
} catch (error) {
  print({ kind: "error", message: String(error && error.stack ? error.stack : error) });
  process.exitCode = 1;
} finally {
  child.stdin.end();
}
