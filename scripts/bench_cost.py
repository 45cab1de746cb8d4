#!/usr/bin/env python3
"""What a two-turn task is billed, with and without prompt caching (issue 28).

A local server speaks the Anthropic Messages protocol, plays the model and prices every
request by the prompt cache's documented rules: the longest prefix that ends at one of the
request's `cache_control` breakpoints (or up to 20 blocks before one) and was written by an
earlier request is read at 0.1x the input price; from there to the last breakpoint is
written at 1.25x; the rest is billed at 1x; prefixes under 1024 tokens are not cached.
Tokens are counted as a quarter of the bytes of each block's JSON.

The task: each of two turns makes 15 `read` calls, one per step, going round five ~6.7 KB
files three times, then answers: 32 requests. It runs elelem's line REPL (`chat --plain -p
anthropic`) with caching on (the default) and off (`ELELEM_CACHE_TTL=off`), and Claude Code
(`claude -p`) when it is on PATH, and prints one Markdown table.

    python3 scripts/bench_cost.py [--elelem target/release/elelem]
"""

import argparse
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

FILES = 5
STEPS = 15
MIN_CACHEABLE = 1024
LOOKBACK = 20


def tokens(value):
    return (len(json.dumps(value, separators=(",", ":")).encode()) + 3) // 4


def blocks_of(body):
    """The request as a list of (block without cache_control, has a breakpoint), in cache order."""
    out = []

    def add(block, prefix):
        block = dict(block)
        marked = block.pop("cache_control", None) is not None
        out.append(({"at": prefix, "block": block}, marked))

    for tool in body.get("tools", []):
        add(tool, "tool")
    system = body.get("system")
    if isinstance(system, str):
        add({"type": "text", "text": system}, "system")
    elif isinstance(system, list):
        for block in system:
            add(block, "system")
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            add(block, message.get("role"))
    return out


class Ledger:
    def __init__(self):
        self.cache = set()
        self.requests = []
        self.lock = threading.Lock()

    def price(self, body):
        blocks = blocks_of(body)
        cumulative, digests, running, digest = [], [], 0, hashlib.sha256()
        for block, _ in blocks:
            running += tokens(block)
            cumulative.append(running)
            digest.update(json.dumps(block, sort_keys=True).encode())
            digests.append(digest.copy().hexdigest())
        marks = [i for i, (_, marked) in enumerate(blocks) if marked]
        with self.lock:
            read_at = -1
            for mark in marks:
                for j in range(mark, max(-1, mark - LOOKBACK - 1), -1):
                    if digests[j] in self.cache:
                        read_at = max(read_at, j)
                        break
            read = cumulative[read_at] if read_at >= 0 else 0
            last = max(marks) if marks else -1
            written = 0
            if last > read_at and cumulative[last] >= MIN_CACHEABLE:
                written = cumulative[last] - read
            covered = cumulative[last] if written else read
            total = cumulative[-1] if cumulative else 0
            for mark in marks:
                if cumulative[mark] >= MIN_CACHEABLE:
                    self.cache.add(digests[mark])
            row = {
                "sent": total,
                "read": read,
                "written": written,
                "uncached": total - covered,
                "breakpoints": len(marks),
            }
            row["billed"] = row["uncached"] + 1.25 * written + 0.1 * read
            self.requests.append(row)
            return row


def reply(body):
    """The model: one read per step (f1 to f5, round and round) for 15 steps, then an answer."""
    messages = body.get("messages", [])
    results = 0
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") == "user":
            if isinstance(content, str) or any(b.get("type") == "text" for b in content or []):
                break
            results += sum(1 for b in content if b.get("type") == "tool_result")
    if results < STEPS:
        path = f"f{results % FILES + 1}.txt"
        return [{"type": "tool_use", "id": f"toolu_{len(messages)}", "name": "read", "input": {"path": path}}], "tool_use"
    return [{"type": "text", "text": "All five files are configuration notes."}], "end_turn"


def events(content, reason, usage):
    yield "message_start", {
        "type": "message_start",
        "message": {"id": "msg", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5",
                    "stop_reason": None, "usage": {**usage, "output_tokens": 1}},
    }
    for index, block in enumerate(content):
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "text_delta", "text": block["text"]}}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {**block, "input": {}}}
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "input_json_delta",
                                                    "partial_json": json.dumps(block["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 20}}
    yield "message_stop", {"type": "message_stop"}


def serve(ledger):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            row = ledger.price(body)
            usage = {"input_tokens": row["uncached"], "cache_read_input_tokens": row["read"],
                     "cache_creation_input_tokens": row["written"]}
            content, reason = reply(body)
            payload = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                              for name, data in events(content, reason, usage)).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def project(root):
    line = "setting_{n} = value of setting number {n} for the service; see the notes below.\n"
    for i in range(1, FILES + 1):
        text = "".join(line.format(n=n) for n in range(i * 100, i * 100 + 84))
        with open(os.path.join(root, f"f{i}.txt"), "w") as f:
            f.write(text[:6700])


PROMPTS = ["Read f1.txt to f5.txt again and again and tell me what they are.",
           "Now read them all again and check nothing changed."]


def run_elelem(binary, cache):
    ledger = Ledger()
    server = serve(ledger)
    with tempfile.TemporaryDirectory() as root:
        project(root)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": root, "XDG_DATA_HOME": root,
               "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_port}", "ANTHROPIC_API_KEY": "sk-bench",
               "ELELEM_CACHE_TTL": cache}
        result = subprocess.run([binary, "chat", "--plain", "-p", "anthropic"], input="\n".join(PROMPTS) + "\n",
                                cwd=root, env=env, capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            sys.exit(f"elelem failed: {result.stderr}")
    server.shutdown()
    return ledger.requests


def run_claude():
    claude = shutil.which("claude")
    if not claude:
        return None
    ledger = Ledger()
    server = serve(ledger)
    with tempfile.TemporaryDirectory() as root:
        project(root)
        env = dict(os.environ, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{server.server_port}",
                   ANTHROPIC_API_KEY="sk-bench")
        first = subprocess.run([claude, "-p", PROMPTS[0]], cwd=root, env=env, capture_output=True, text=True,
                               timeout=900)
        subprocess.run([claude, "-p", "--continue", PROMPTS[1]], cwd=root, env=env, capture_output=True, text=True,
                       timeout=900)
        if first.returncode != 0:
            return None
    server.shutdown()
    return ledger.requests


def row(name, requests):
    sent = sum(r["sent"] for r in requests)
    billed = sum(r["billed"] for r in requests)
    read = sum(r["read"] for r in requests)
    ratio = billed / sent if sent else 0
    most = max((r["breakpoints"] for r in requests), default=0)
    return (f"| {name} | {len(requests)} | {sent / 1000:,.0f}k | **{billed / 1000:,.0f}k** | {ratio:.2f} | "
            f"{100 * read / sent if sent else 0:.0f}% | {most} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--elelem", default=os.path.join(here, "target", "release", "elelem"))
    args = parser.parse_args()
    args.elelem = os.path.abspath(args.elelem)
    print("| | requests | input tokens sent | billed input (token units) | billed / sent | read from cache "
          "| most breakpoints |")
    print("|---|---|---|---|---|---|---|")
    print(row("elelem, caching on (default)", run_elelem(args.elelem, "5m")))
    print(row("elelem, ELELEM_CACHE_TTL=off", run_elelem(args.elelem, "off")))
    claude = run_claude()
    print(row("Claude Code", claude) if claude else "| Claude Code | not installed here | | | | | |")


if __name__ == "__main__":
    main()
