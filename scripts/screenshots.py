#!/usr/bin/env python3
"""Regenerates screenshots/*.png from the real elelem binary.

Runs `elelem` in a pseudo-terminal with a stub script, types keys, reads the screen with
pyte (a terminal emulator) and draws it to PNG with Pillow and DejaVu Sans Mono: the
conversation, an approval, the expanded tool log, the context panel, the approval dialog
over a coloured diff and the `@` file picker.

    python3 scripts/screenshots.py        # builds the binary first

Needs: cargo, python3; installs pyte and pillow into .venv-screenshots on first run.
"""
import json
import os
import pty
import select
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv-screenshots")


def ensure_deps():
    try:
        import pyte  # noqa: F401
        from PIL import Image  # noqa: F401
        return
    except ImportError:
        pass
    py = os.path.join(VENV, "bin", "python")
    if os.environ.get("ELELEM_SCREENSHOTS_VENV") != "1":
        if not os.path.exists(py):
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
            subprocess.check_call([py, "-m", "pip", "install", "-q", "pyte==0.8.2", "pillow"])
        os.environ["ELELEM_SCREENSHOTS_VENV"] = "1"
        os.execv(py, [py] + sys.argv)


ensure_deps()
import pyte  # noqa: E402
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

COLS, ROWS = 120, 40
FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = {
    (False, False): ImageFont.truetype(f"{FONT_DIR}/DejaVuSansMono.ttf", 15),
    (True, False): ImageFont.truetype(f"{FONT_DIR}/DejaVuSansMono-Bold.ttf", 15),
    (False, True): ImageFont.truetype(f"{FONT_DIR}/DejaVuSansMono-Oblique.ttf", 15),
    (True, True): ImageFont.truetype(f"{FONT_DIR}/DejaVuSansMono-BoldOblique.ttf", 15),
}
CW, CH = 9, 19
BG = (24, 26, 33)
FG = (216, 222, 233)
NAMED = {
    "black": (40, 42, 54), "red": (236, 95, 103), "green": (153, 199, 148), "brown": (250, 200, 99),
    "yellow": (250, 200, 99), "blue": (102, 153, 204), "magenta": (197, 148, 197), "cyan": (95, 179, 179),
    "white": (192, 197, 206), "brightblack": (110, 116, 130), "brightred": (255, 120, 120),
    "brightgreen": (180, 230, 160), "brightyellow": (255, 220, 130), "brightblue": (130, 180, 240),
    "brightmagenta": (220, 170, 220), "brightcyan": (130, 210, 210), "brightwhite": (240, 240, 240),
}


def color(value, default):
    if value == "default":
        return default
    if value in NAMED:
        return NAMED[value]
    if isinstance(value, str) and len(value) == 6:
        try:
            return tuple(int(value[i:i + 2], 16) for i in (0, 2, 4))
        except ValueError:
            return default
    return default


def render(screen, path):
    img = Image.new("RGB", (COLS * CW + 16, ROWS * CH + 16), BG)
    draw = ImageDraw.Draw(img)
    for y in range(ROWS):
        row = screen.buffer[y]
        for x in range(COLS):
            ch = row[x]
            fg, bg = color(ch.fg, FG), color(ch.bg, BG)
            if ch.reverse:
                fg, bg = bg, fg
            if ch.italics and not ch.bold:
                fg = tuple(int(c * 0.75) for c in fg)  # thinking: dim italic
            px, py = 8 + x * CW, 8 + y * CH
            if bg != BG:
                draw.rectangle([px, py, px + CW - 1, py + CH - 1], fill=bg)
            if ch.data.strip():
                draw.text((px, py + 1), ch.data, font=FONTS[(ch.bold, ch.italics)], fill=fg)
    img.save(path)
    print("wrote", os.path.relpath(path, ROOT))


class App:
    def __init__(self, binary, cwd, env):
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(cwd)
            os.execve(binary, [binary], env)
        self.pid, self.fd = pid, fd
        import fcntl
        import struct
        import termios
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))

    def pump(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    return
                self.stream.feed(data)

    def wait_for(self, text, timeout=15):
        end = time.time() + timeout
        while time.time() < end:
            self.pump(0.1)
            if any(text in line for line in self.screen.display):
                return
        raise SystemExit(f"timed out waiting for {text!r}")

    def send(self, keys):
        os.write(self.fd, keys.encode())

    def close(self):
        self.send("\x04")
        self.pump(0.5)


SCRIPT = [
    {"events": [
        {"type": "thinking", "text": "The user wants to know how the loop works. I should read the kernel first, "
                                     "then check the tests pass before explaining it."},
        {"type": "doing", "id": "t1", "name": "read", "arguments": {"path": "src/agent/agent.rs", "limit": 40}},
        {"type": "doing", "id": "t2", "name": "execute", "arguments": {"command": "ls src"}},
        {"type": "doing", "id": "t3", "name": "grep_all", "arguments": {"pattern": "turn"}},
    ]},
    {"events": [
        {"type": "saying", "text": "## How a turn runs\n\n`Agent::turn` records the prompt, then loops: it "
                                   "**streams** the model's answer, runs each tool call, and sends the results back "
                                   "until the model asks for nothing.\n\n"},
        {"type": "saying", "text": "```rust\nlet outcome = loop {\n    let response = self.call_provider(request).await?;\n"
                                   "    if response.calls.is_empty() {\n        break self.finish(response.text);\n    }\n"
                                   "    // run the tools, then go round again\n};\n```\n\n"},
        {"type": "saying", "text": "| kept in the conversation | dropped after the turn |\n|---|---|\n"
                                   "| your prompt | tool calls |\n| the final reply | tool results |\n\n"
                                   "> Press **Ctrl+O** to see exactly what the model sees next.\n"},
    ]},
]


def main():
    subprocess.check_call(["cargo", "build", "--release", "--quiet"], cwd=ROOT)
    binary = os.path.join(ROOT, "target", "release", "elelem")
    out = os.path.join(ROOT, "screenshots")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "script.json")
        with open(script, "w") as f:
            json.dump(SCRIPT, f)
        env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
        env.update({"TERM": "xterm-256color", "ELELEM_STUB_SCRIPT": script, "HOME": tmp,
                    "XDG_DATA_HOME": os.path.join(tmp, "data"),
                    "OLLAMA_HOST": "http://127.0.0.1:9", "COLORTERM": "truecolor"})
        # Contained by the sandbox (the default), execute would run without asking: the
        # approval dialog is shown with the sandbox off, as where the kernel has none.
        app = App(binary, ROOT, dict(env, ELELEM_SANDBOX="off"))
        app.wait_for("Ask elelem")
        app.send("how does the agent loop work?\r")
        app.wait_for("Allow execute?")
        app.wait_for("[1] yes")  # the dialog takes answers once the user has stopped typing
        render(app.screen, os.path.join(out, "approval.png"))
        app.send("1")
        app.wait_for("Press Ctrl+O")
        app.pump(0.5)
        render(app.screen, os.path.join(out, "conversation.png"))
        app.send("\t\t")  # focus the tool log
        app.send("\x1b[A\x1b[A\r")  # select the execute call (Up from the newest) and expand it
        app.pump(0.5)
        render(app.screen, os.path.join(out, "tool-log-expanded.png"))
        app.send("\x1b")
        app.send("\x0f")  # Ctrl+O: context panel
        app.pump(0.5)
        render(app.screen, os.path.join(out, "context-panel.png"))
        app.close()
        approval_diff(binary, tmp, env, out)
        at_completion(binary, env, out)


CALC = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(8))
DIFF_SCRIPT = [
    {"events": [
        {"type": "saying", "text": "I'll make every helper double its input."},
        {"type": "doing", "id": "w1", "name": "write",
         "arguments": {"path": "calc.py", "content": CALC.replace("return x +", "return 2 * x +")}},
    ]},
    {"events": [{"type": "saying", "text": "Understood, leaving calc.py as it is."}]},
]


def approval_diff(binary, tmp, env, out):
    """The approval dialog over a write's coloured diff, in a scratch project."""
    project = os.path.join(tmp, "project")
    os.makedirs(project, exist_ok=True)
    with open(os.path.join(project, "calc.py"), "w") as f:
        f.write(CALC)
    script = os.path.join(tmp, "diff-script.json")
    with open(script, "w") as f:
        json.dump(DIFF_SCRIPT, f)
    app = App(binary, project, dict(env, ELELEM_STUB_SCRIPT=script))
    app.wait_for("Ask elelem")
    app.send("make the helpers double their input\r")
    app.wait_for("Allow write?")
    app.wait_for("[1] yes")
    render(app.screen, os.path.join(out, "approval-diff.png"))
    app.send("3")
    app.pump(0.3)
    app.close()


def at_completion(binary, env, out):
    """The `@` file picker over this repository's own files."""
    app = App(binary, ROOT, env)
    app.wait_for("Ask elelem")
    app.pump(1.0)  # the session is ready and the files are being listed
    app.send("explain @tui/co")
    app.wait_for("files ·")
    app.pump(0.5)
    render(app.screen, os.path.join(out, "at-completion.png"))
    app.send("\x03")  # clear the prompt, then quit
    app.close()


if __name__ == "__main__":
    main()
