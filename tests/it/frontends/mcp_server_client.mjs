// An MCP client in miniature for tests/it/frontends/mcp_server.rs: the official MCP
// TypeScript SDK (@modelcontextprotocol/sdk) spawns `ELELEM mcp -p stub ARGS...` in this
// process's directory (with this process's environment), lists its tools and makes the
// calls the Rust test writes on this process's stdin, one JSON object a line:
//   {"call": NAME, "arguments": {...}, "progress": true}   a tool call, awaited
//   {"start": NAME, "arguments": {...}}                     a tool call left running
//   {"cancel": true}                                        aborts the running call
//   {"close": true}                                         closes the client and exits
// and prints what it gets as one JSON line each:
//   {"kind":"tools","tools":[...]}            once connected
//   {"kind":"progress","progress":{...}}       a progress notification of a call
//   {"kind":"result","name":NAME,"result":{...}}
//   {"kind":"started","name":NAME}             a call left running was sent
//   {"kind":"cancelled","name":NAME}           the running call was aborted
//   {"kind":"error","message":...}
// Usage: node mcp_server_client.mjs ELELEM [ARGS...]
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [elelem, ...args] = process.argv.slice(2);
const print = (value) => process.stdout.write(JSON.stringify(value) + "\n");

const transport = new StdioClientTransport({
  command: elelem,
  args: ["mcp", "-p", "stub", ...args],
  env: process.env,
  cwd: process.cwd(),
  stderr: "inherit",
});
const client = new Client({ name: "elelem-test-client", version: "0" });

let running = null;

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  print({ kind: "tools", tools });
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const step = JSON.parse(line);
    if (step.call) {
      const options = step.progress ? { onprogress: (progress) => print({ kind: "progress", progress }) } : {};
      const result = await client.callTool({ name: step.call, arguments: step.arguments ?? {} }, undefined, options);
      print({ kind: "result", name: step.call, result });
    } else if (step.start) {
      const controller = new AbortController();
      const name = step.start;
      const call = client.callTool({ name, arguments: step.arguments ?? {} }, undefined, { signal: controller.signal });
      running = { controller, name, call };
      call.then(
        (result) => print({ kind: "result", name, result }),
        (error) => print({ kind: controller.signal.aborted ? "cancelled" : "error", name, message: String(error) }),
      );
      print({ kind: "started", name });
    } else if (step.cancel && running) {
      running.controller.abort("the test cancels");
      await running.call.catch(() => {});
      running = null;
    } else if (step.close) {
      break;
    }
  }
  await client.close();
} catch (error) {
  print({ kind: "error", message: String(error?.stack ?? error) });
  await client.close().catch(() => {});
  process.exitCode = 1;
}
