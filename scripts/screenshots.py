#!/usr/bin/env python3
"""Regenerates screenshots/*.png from the real elelem binary.

Runs `elelem` in a pseudo-terminal with a stub script, in a neutral scratch project
(`/tmp/demo-project`, made afresh), types keys, reads the screen with pyte (a terminal
emulator) and draws it to PNG with Pillow: the conversation (dark, and light as a light
terminal gets it), an approval, the expanded tool log, the context panel, the approval
dialog over a coloured diff and the `@` file picker. The conversation is cleared first, so
its picture starts with the user's prompt.

    python3 scripts/screenshots.py        # builds the release binary first
    ELELEM_BIN=target/debug/elelem python3 scripts/screenshots.py   # or uses this one
    ELELEM_SCREENSHOTS_OUT=/tmp/shots python3 scripts/screenshots.py  # elsewhere

Needs: cargo, python3 with venv and pip (pyte and pillow are installed into
.venv-screenshots on first run), and the DejaVu fonts (Debian/Ubuntu: `apt-get install
fonts-dejavu-core`): DejaVu Sans Mono for text, DejaVu Sans for the symbols the mono face
lacks (`⋮`, the spinner). Box-drawing characters are drawn as lines, not with a font, so
borders are unbroken.
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


def font(name):
    path = f"{FONT_DIR}/{name}"
    if not os.path.exists(path):
        raise SystemExit(f"missing font {path}: install the DejaVu fonts (apt-get install fonts-dejavu-core)")
    return ImageFont.truetype(path, 15)


FONTS = {
    (False, False): font("DejaVuSansMono.ttf"),
    (True, False): font("DejaVuSansMono-Bold.ttf"),
    (False, True): font("DejaVuSansMono-Oblique.ttf"),
    (True, True): font("DejaVuSansMono-BoldOblique.ttf"),
}
FALLBACK = font("DejaVuSans.ttf")


def glyph(font_, ch):
    """The rendered bitmap of `ch`, to compare with the missing-glyph box."""
    mask = font_.getmask(ch)
    return mask.size, bytes(mask)


MISSING = glyph(FONTS[(False, False)], "\U0010fffd")
CW, CH = 9, 19
DARK = ((24, 26, 33), (216, 222, 233))
LIGHT = ((250, 250, 250), (36, 41, 47))
NAMED = {
    "black": (40, 42, 54), "red": (236, 95, 103), "green": (153, 199, 148), "brown": (250, 200, 99),
    "yellow": (250, 200, 99), "blue": (102, 153, 204), "magenta": (197, 148, 197), "cyan": (95, 179, 179),
    "white": (192, 197, 206), "brightblack": (110, 116, 130), "brightred": (255, 120, 120),
    "brightgreen": (180, 230, 160), "brightyellow": (255, 220, 130), "brightblue": (130, 180, 240),
    "brightmagenta": (220, 170, 220), "brightcyan": (130, 210, 210), "brightwhite": (240, 240, 240),
}
_has_glyph = {}


def face(ch, bold, italics):
    """The mono face for `ch`, or DejaVu Sans when the mono face has no glyph for it."""
    if ch not in _has_glyph:
        _has_glyph[ch] = glyph(FONTS[(False, False)], ch) != MISSING
    return FONTS[(bold, italics)] if _has_glyph[ch] else FALLBACK


# Box drawing: which of the cell's four arms (up, down, left, right) each character has.
ARMS = {
    "─": "lr", "━": "lr", "│": "ud", "┃": "ud", "┌": "dr", "┐": "dl", "└": "ur", "┘": "ul",
    "├": "udr", "┤": "udl", "┬": "dlr", "┴": "ulr", "┼": "udlr", "╭": "dr", "╮": "dl", "╰": "ur", "╯": "ul",
}


def box(draw, ch, px, py, fg):
    """Draws a box-drawing character as lines through the cell's middle, edge to edge."""
    cx, cy = px + CW // 2, py + CH // 2
    arms = ARMS[ch]
    if "l" in arms:
        draw.line([px, cy, cx, cy], fill=fg)
    if "r" in arms:
        draw.line([cx, cy, px + CW - 1, cy], fill=fg)
    if "u" in arms:
        draw.line([cx, py, cx, cy], fill=fg)
    if "d" in arms:
        draw.line([cx, cy, cx, py + CH - 1], fill=fg)


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


def render(screen, path, palette=DARK):
    bg0, fg0 = palette
    img = Image.new("RGB", (COLS * CW + 16, ROWS * CH + 16), bg0)
    draw = ImageDraw.Draw(img)
    for y in range(ROWS):
        row = screen.buffer[y]
        for x in range(COLS):
            ch = row[x]
            fg, bg = color(ch.fg, fg0), color(ch.bg, bg0)
            if ch.reverse:
                fg, bg = bg, fg
            if ch.italics and not ch.bold:
                fg = tuple(int(c * 0.75 + b * 0.25) for c, b in zip(fg, bg0))  # thinking: dim italic
            px, py = 8 + x * CW, 8 + y * CH
            if bg != bg0:
                draw.rectangle([px, py, px + CW - 1, py + CH - 1], fill=bg)
            if ch.data in ARMS:
                box(draw, ch.data, px, py, fg)
            elif ch.data.strip():
                draw.text((px, py + 1), ch.data, font=face(ch.data, ch.bold, ch.italics), fill=fg)
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
        {"type": "thinking", "text": "The user wants to know how the loop works: read the kernel first."},
        {"type": "doing", "id": "t1", "name": "read", "arguments": {"path": "src/agent/agent.rs", "limit": 40}},
        {"type": "doing", "id": "t2", "name": "execute", "arguments": {"command": "ls src"}},
        {"type": "doing", "id": "t3", "name": "grep_all", "arguments": {"pattern": "turn"}},
        {"type": "doing", "id": "t4", "name": "read", "arguments": {"path": "src/agent/mod.rs"}},
        {"type": "doing", "id": "t5", "name": "read", "arguments": {"path": "src/main.rs"}},
        {"type": "doing", "id": "t6", "name": "read", "arguments": {"path": "Cargo.toml"}},
    ]},
    {"events": [
        {"type": "saying", "text": "## How a turn runs\n\n`Agent::turn` records the prompt, then loops: it "
                                   "**streams** the model's answer, runs each tool call, and sends the results back "
                                   "until the model asks for nothing.\n\n"},
        {"type": "saying", "text": "```rust\nlet outcome = loop {\n    let response = self.call_provider(request).await?;\n"
                                   "    if response.calls.is_empty() {\n        break self.finish(response.text);\n    }\n"
                                   "};\n```\n\n"},
        {"type": "saying", "text": "| kept in the conversation | dropped after the turn |\n|---|---|\n"
                                   "| your prompt, the final reply | tool calls and results |\n"},
    ]},
]


DEMO = "/tmp/demo-project"
DEMO_FILES = {
    "README.md": "# demo-project\n\nA small agent loop, for the screenshots.\n",
    "Cargo.toml": '[package]\nname = "demo-project"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/main.rs": "mod agent;\nmod tools;\nmod tui;\n\nfn main() {\n    agent::run();\n}\n",
    "src/agent/agent.rs": "".join(f"// line {i} of the agent loop\n" for i in range(40)),
    "src/agent/mod.rs": "pub mod agent;\n",
    "src/tools/mod.rs": "pub mod read;\n",
    "src/tools/read.rs": "pub fn read() {}\n",
    "src/tui/mod.rs": "pub mod composer;\npub mod conversation;\n",
    "src/tui/composer.rs": "pub struct Composer;\n",
    "src/tui/conversation.rs": "pub struct Conversation;\n",
    "src/tui/context.rs": "pub struct Context;\n",
}


def demo_project():
    """A neutral project to run in, made afresh: nobody's home or checkout shows."""
    import shutil
    shutil.rmtree(DEMO, ignore_errors=True)
    for name, text in DEMO_FILES.items():
        path = os.path.join(DEMO, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return DEMO


def binary_path():
    given = os.environ.get("ELELEM_BIN")
    if given:
        return os.path.abspath(given)
    subprocess.check_call(["cargo", "build", "--release", "--quiet"], cwd=ROOT)
    return os.path.join(ROOT, "target", "release", "elelem")


def conversation(binary, project, env):
    """Starts the app, clears the first screen (so the conversation starts with the
    prompt), asks the question and waits for the approval dialog."""
    app = App(binary, project, env)
    app.wait_for("Ask elelem")
    app.pump(1.0)  # the session is ready
    app.send("/clear\r")
    app.pump(0.3)
    app.send("\r")  # the full-screen app asks first: Enter again clears
    app.pump(0.5)
    app.send("how does the agent loop work?\r")
    app.wait_for("Allow execute?")
    app.wait_for("[1] yes")  # the dialog takes answers once the user has stopped typing
    return app


def main():
    binary = binary_path()
    out = os.environ.get("ELELEM_SCREENSHOTS_OUT") or os.path.join(ROOT, "screenshots")
    os.makedirs(out, exist_ok=True)
    project = demo_project()
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "script.json")
        with open(script, "w") as f:
            json.dump(SCRIPT, f)
        env = {k: v for k, v in os.environ.items()
               if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "COLORFGBG", "TMUX")}
        env.update({"TERM": "xterm-256color", "ELELEM_STUB_SCRIPT": script, "HOME": tmp,
                    "XDG_DATA_HOME": os.path.join(tmp, "data"), "ELELEM_THEME": "dark",
                    "OLLAMA_HOST": "http://127.0.0.1:9", "COLORTERM": "truecolor"})
        # Contained by the sandbox (the default), execute would run without asking: the
        # approval dialog is shown with the sandbox off, as where the kernel has none.
        app = conversation(binary, project, dict(env, ELELEM_SANDBOX="off"))
        render(app.screen, os.path.join(out, "approval.png"))
        app.send("1")
        app.wait_for("tool calls and results")
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
        # The same conversation as a light terminal gets it.
        app = conversation(binary, project, dict(env, ELELEM_SANDBOX="off", ELELEM_THEME="light"))
        app.send("1")
        app.wait_for("tool calls and results")
        app.pump(0.5)
        render(app.screen, os.path.join(out, "conversation-light.png"), LIGHT)
        app.close()
        approval_diff(binary, tmp, env, out)
        at_completion(binary, project, env, out)


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


def at_completion(binary, project, env, out):
    """The `@` file picker over the demo project's files."""
    app = App(binary, project, env)
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
