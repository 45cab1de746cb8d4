#!/usr/bin/env python3
"""Generates a source tree for search benchmarks: ~10,000 Rust-like files, ~150 MB, in
nested directories, the same bytes on every run (seeded). Usage:
    scripts/gen_tree.py DIR [FILES] [MB]
Prints the number of files and bytes written."""

import os
import random
import sys

WORDS = (
    "self value result error config buffer index count state parser token stream "
    "handle request response client server message window layout render cache path "
    "file reader writer options builder context session agent tool event frame"
).split()
TEMPLATES = [
    "    let {a} = {b}.{c}({d});",
    "    if {a}.is_empty() {{ return Err(Error::{C}); }}",
    "    for {a} in {b}.iter() {{ {c}.push({a}); }}",
    "    // {a} the {b} before the {c} is {d}",
    "    match {a} {{ Some({b}) => {c}({b}), None => {d}() }}",
    "    {a}.{b} = {c}::{d}({a}.{b});",
    "pub fn {a}_{b}(&mut self, {c}: &{C}) -> Result<{D}, Error> {{",
    "}}",
    "",
    "impl {C} for {D} {{",
    "    #[inline] fn {a}(&self) -> usize {{ self.{b}.len() }}",
]


def line(rng):
    w = lambda: rng.choice(WORDS)
    cap = lambda: rng.choice(WORDS).capitalize()
    return rng.choice(TEMPLATES).format(a=w(), b=w(), c=w(), d=w(), C=cap(), D=cap())


def main():
    root = sys.argv[1]
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    megabytes = int(sys.argv[3]) if len(sys.argv) > 3 else 150
    per_file = megabytes * 1024 * 1024 // files
    rng = random.Random(42)
    written = 0
    for i in range(files):
        folder = os.path.join(root, f"crate{i % 20:02}", f"mod{(i // 20) % 25:02}")
        os.makedirs(folder, exist_ok=True)
        parts, size = [], 0
        while size < per_file:
            text = line(rng)
            if rng.random() < 0.0005:
                text = "    pub fn new(config: Config) -> Self {"
            parts.append(text)
            size += len(text) + 1
        data = "\n".join(parts) + "\n"
        with open(os.path.join(folder, f"file{i:05}.rs"), "w") as f:
            f.write(data)
        written += len(data)
    print(f"{files} files, {written} bytes")


if __name__ == "__main__":
    main()
