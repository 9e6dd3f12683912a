#!/usr/bin/env python3
"""The README's commands, run as written (the C++ example has its own test,
readme_example_e2e_test.cpp).

- ```sql blocks run in order, in one session of the stock DuckDB CLI that
  setup installs (.cache/deps/venv/bin/duckdb, started with -unsigned, as the
  README's shell line says), with HOME and the working directory in a
  temporary directory, so the extensions the README installs from the local
  repository land there.
- ```sh blocks, line by line: `build/moraine ...` runs against the lake the SQL
  wrote, after the session has closed it; `make <target>` must name a target
  the Makefile declares (not run); the DuckDB CLI line must be the one this
  test starts the session with. Any other command fails the test.
- A block right after `<!-- readme-test: skip (why) -->` is left out, saying so.

Only the example paths change: `/data/` becomes a temporary directory, and
`build/` (the repository's build directory) the one given by --build-dir.
Exit 0 when every command worked, 1 otherwise.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^\s*```(\w*)\s*$")
SKIP = re.compile(r"^\s*<!--\s*readme-test:\s*skip\s*\((.+)\)\s*-->\s*$")
SHELL_LANGUAGES = {"sh", "bash", "shell"}
README_DUCKDB = ".cache/deps/venv/bin/duckdb"


def blocks(readme_text):
    """(language, text, skip reason or None, line number) of every fenced block."""
    found = []
    lines = readme_text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening or not opening.group(1):
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not FENCE.match(lines[j]):
            j += 1
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        skip = SKIP.match(lines[k]) if k >= 0 else None
        found.append((opening.group(1), "\n".join(lines[start + 1:j]) + "\n",
                      skip.group(1) if skip else None, start + 1))
        i = j + 1
    return found


def makefile_targets(makefile):
    targets = set()
    with open(makefile) as text:
        for line in text:
            rule = re.match(r"^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:(?!=)", line)
            if rule:
                targets.update(rule.group(1).split())
    return targets - {".PHONY"}


class Paths:
    def __init__(self, scratch, build_dir):
        self.data = os.path.join(scratch, "data")
        self.build_dir = build_dir

    def sql(self, text):
        # In a string literal, alone or after a prefix ('ducklake:moraine:/data/...').
        text = re.sub(r"(?<=['\":])/data/", lambda _: self.data + "/", text)
        text = re.sub(r"(?<=')build/", lambda _: self.build_dir + "/", text)
        if re.search(r"(?<![\w.])/data/", text):
            raise ValueError("an example path under /data/ the test did not replace: " + text)
        return text

    def word(self, word):
        if word.startswith("/data/"):
            return self.data + word[len("/data"):]
        if word.startswith("build/"):
            return os.path.join(self.build_dir, word[len("build/"):])
        return word


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", default=os.path.normpath(os.path.join(here, "..", "..")))
    parser.add_argument("--build-dir", help="the build directory (default: <source>/build)")
    parser.add_argument("--duckdb", help="the stock DuckDB CLI (default: <source>/" + README_DUCKDB + ")")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    source = os.path.abspath(args.source_dir)
    build_dir = os.path.abspath(args.build_dir or os.path.join(source, "build"))
    duckdb = os.path.abspath(args.duckdb or os.path.join(source, README_DUCKDB))
    for need in (duckdb, os.path.join(build_dir, "moraine"), os.path.join(build_dir, "repository")):
        if not os.path.exists(need):
            print(f"missing {need}: run `make build extension` first", file=sys.stderr)
            return 1

    with open(os.path.join(source, "README.md")) as text:
        readme = text.read()
    targets = makefile_targets(os.path.join(source, "Makefile"))
    scratch = tempfile.mkdtemp(prefix="moraine-readme-")
    paths = Paths(scratch, build_dir)
    os.makedirs(paths.data)
    os.makedirs(os.path.join(scratch, "home"))
    env = dict(os.environ, HOME=os.path.join(scratch, "home"))
    failures = []

    sql_parts = []
    moraine_lines = []
    for language, text, skip, line in blocks(readme):
        if language != "sql" and language not in SHELL_LANGUAGES:
            continue
        if skip:
            print(f"README.md:{line}: ```{language} block skipped ({skip})")
            continue
        if language == "sql":
            sql_parts.append(f"-- README.md:{line}\n" + paths.sql(text))
            continue
        for offset, command in enumerate(text.splitlines(), start=1):
            where = f"README.md:{line + offset}"
            words = shlex.split(command, comments=True)
            if not words:
                continue
            while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
                words = words[1:]
            if words[0] == "make":
                named = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
                unknown = [t for t in named if t not in targets]
                if unknown:
                    failures.append(f"{where}: `{command.strip()}`: the Makefile declares no {unknown}")
                else:
                    print(f"{where}: make targets {named or ['(default)']} declared")
            elif words[0] == README_DUCKDB:
                if words[1:] != ["-unsigned"]:
                    failures.append(f"{where}: the DuckDB CLI line is not `{README_DUCKDB} -unsigned`")
            elif words[0] == "build/moraine":
                moraine_lines.append((where, [paths.word(w) for w in words]))
            else:
                failures.append(f"{where}: `{command.strip()}`: no rule to check this command")

    script = os.path.join(scratch, "readme.sql")
    with open(script, "w") as out:
        out.write("\n".join(sql_parts))
    session = [duckdb, "-unsigned", "-init", "/dev/null", "-bail", "-f", script]
    print(f"$ {README_DUCKDB} -unsigned < the README's {len(sql_parts)} sql blocks", flush=True)
    run = subprocess.run(session, cwd=scratch, env=env, capture_output=True, text=True, timeout=600)
    sys.stdout.write(run.stdout)
    sys.stdout.write(run.stderr)
    if run.returncode != 0 or "Error" in run.stderr:
        failures.append(f"the README's SQL failed (exit {run.returncode}): {run.stderr.strip()}")
    else:
        for where, argv in moraine_lines:
            print(f"$ {' '.join(argv)}", flush=True)
            tool = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True,
                                  timeout=300)
            sys.stdout.write(tool.stdout)
            sys.stdout.write(tool.stderr)
            if tool.returncode != 0:
                failures.append(f"{where}: `{' '.join(argv)}` exited {tool.returncode}")

    if args.keep:
        print(f"kept {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    for failure in failures:
        print(f"FAILED {failure}", file=sys.stderr)
    if not failures:
        print(f"the README's commands work as written: {len(sql_parts)} sql blocks, "
              f"{len(moraine_lines)} build/moraine lines")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
