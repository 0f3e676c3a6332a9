#!/usr/bin/env python3
"""Every `$` example of the docs runs and prints what the page says.

A console block (```console) holds commands, each on a line starting with
"$ " (a heredoc's lines, up to its terminator, belong to its command), and
after each command the output the page shows for it, stdout and stderr as
a terminal interleaves them. Each page's commands run in order in one bash
(so a variable set by one is there for the next), from a copy of the tree's
docs/, examples/, schema/ and tests' data, with the `ddbst` under test first
on PATH; each command's output must equal the page's.

Output that cannot be the same twice is written in the page as it looked
once, and matched by kind, not by text (VARIABLE below): a ULID the
command generated, a pagination cursor (random nonces). A line "..." alone
in a page's output stands for lines it leaves out; "# (output trimmed)"
leaves a command's whole output out.

Every C example of those pages is a whole program: a ```c block names its
file (```c page.c), is compiled with -Wall -Wextra -Werror against the
library built beside the `ddbst` under test, and is then there for the
page's commands to run (./page ANSWER.json); a program no command runs is
run once with no arguments and must succeed. A block named ddbst.h quotes
declarations of the header, and must compile beside it. A ```c block without a name
fails the test. The language pages (c.md, python.md, ...) hold programs of
their own that tests/doc/pages.sh builds and runs: they are left to it.

Usage: examples.py PATH_TO_DDBST SOURCE_DIR [PAGE.md...]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

PAGES = ["docs/*.md", "bindings/*/README.md", "bindings/README.md"]
# run by tests/doc/pages.sh, through the bindings they are about
LANGUAGE_PAGES = {"docs/c.md", "docs/python.md", "docs/node.md", "docs/go.md",
                  "docs/rust.md", "docs/lambda.md"}
COPY = ["docs", "examples", "schema", "tests/data", "tests/evolve",
        "tests/integration/models",
        "tests/lint", "tests/workbench"]

# Things a command makes anew each run, each matched by its shape.
VARIABLE = [
    # a ULID generated now: the time part of today (01K..., 01J...) is not
    # knowable, the shape is
    (re.compile(r"\b01[0-9A-HJKMNP-TV-Z]{24}\b"), "<ULID>"),
    # a cursor: base64url of at least 40 characters
    (re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{40,}(?![A-Za-z0-9_-])"),
     "<CURSOR>"),
]


def blocks(text):
    """(line number, [lines]) of every console block."""
    out, inside, start, lines = [], False, 0, []
    for n, line in enumerate(text.split("\n"), 1):
        if not inside and line.startswith("```console"):
            inside, start, lines = True, n, []
        elif inside and line.startswith("```"):
            out.append((start, lines))
            inside = False
        elif inside:
            lines.append(line)
    return out


HEREDOC = re.compile(r"<<-?\s*'?\"?([A-Za-z_]+)'?\"?\s*$")


def examples(path):
    """(line, command, expected output or None) of a page, in order."""
    out = []
    text = open(path, encoding="utf-8").read()
    for start, lines in blocks(text):
        i = 0
        while i < len(lines):
            line = lines[i]
            if not line.startswith("$ "):
                i += 1
                continue
            at = start + i + 1
            command = line[2:]
            i += 1
            m = HEREDOC.search(command)
            if m:
                body = []
                while i < len(lines) and lines[i] != m.group(1):
                    body.append(lines[i])
                    i += 1
                i += 1
                command = "\n".join([command] + body + [m.group(1)])
            expected = []
            while i < len(lines) and not lines[i].startswith("$ "):
                expected.append(lines[i])
                i += 1
            trimmed = any(l.strip() == "# (output trimmed)" for l in expected)
            out.append((at, command, None if trimmed else "\n".join(expected)))
    return out


def programs(path):
    """(line, file name or None, source) of every C block of a page."""
    out, inside, start, name, lines = [], False, 0, None, []
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = re.match(r"^```c(?:\s+(\S+))?\s*$", line)
        if not inside and m:
            inside, start, name, lines = True, n, m.group(1), []
        elif inside and line.startswith("```"):
            out.append((start, name, "\n".join(lines) + "\n"))
            inside = False
        elif inside:
            lines.append(line)
    return out


def build(ddbst, src, page, work):
    """Compiles the page's programs into `work`; (built names, failures)."""
    libdir = os.path.dirname(ddbst)
    names, failures = [], []
    for line, name, source in programs(os.path.join(src, page)):
        if name == "ddbst.h":
            # declarations quoted from the header: they must be its own
            with open(os.path.join(work, "excerpt.c"), "w") as f:
                f.write("#include <ddbst.h>\n" + source)
            done = subprocess.run(
                [os.environ.get("CC", "cc"), "-std=c11", "-Werror", "-fsyntax-only",
                 "-I" + os.path.join(src, "include"), "excerpt.c"],
                cwd=work, capture_output=True, text=True)
            if done.returncode:
                failures.append(f"FAIL {page}:{line}: the ddbst.h excerpt is "
                                f"not ddbst.h's:\n" + indent(done.stderr))
            continue
        if not name or not name.endswith(".c") or "/" in name:
            failures.append(f"FAIL {page}:{line}: a C example is a whole "
                            f"program: name its file (```c page.c)")
            continue
        with open(os.path.join(work, name), "w", encoding="utf-8") as f:
            f.write(source)
        exe = name[:-2]
        cc = os.environ.get("CC", "cc")
        done = subprocess.run(
            [cc, "-std=c11", "-Wall", "-Wextra", "-Werror",
             *os.environ.get("DDBST_DOC_CFLAGS", "").split(),
             "-I" + os.path.join(src, "include"), name, "-o", exe,
             "-L" + libdir, "-lddbst", "-Wl,-rpath," + libdir],
            cwd=work, capture_output=True, text=True)
        if done.returncode:
            failures.append(f"FAIL {page}:{line}: {name} does not compile:\n"
                            + indent(done.stderr))
        else:
            names.append((line, exe))
    return names, failures


def normal(text):
    # comments after a command's output are for the reader
    text = "\n".join(l.rstrip() for l in text.rstrip("\n").split("\n"))
    for pattern, name in VARIABLE:
        text = pattern.sub(name, text)
    return text


def run_page(ddbst, src, page, work):
    if page in LANGUAGE_PAGES:
        return 0, 0, []
    built, failures = build(ddbst, src, page, work)
    found = examples(os.path.join(src, page))
    # a program no command runs runs once, alone, and must succeed
    for line, exe in built:
        if not any(re.search(r"(^|[\s;|&(])\./" + re.escape(exe) + r"\b", c)
                   for _, c, _ in found):
            done = subprocess.run(["./" + exe], cwd=work, capture_output=True,
                                  text=True, timeout=60)
            if done.returncode:
                failures.append(f"FAIL {page}:{line}: ./{exe} exits "
                                f"{done.returncode}:\n"
                                + indent(done.stdout + done.stderr))
    passed = len(built) - sum(1 for f in failures if "./" in f and "exits" in f)
    if not found:
        return passed, len(failures), failures
    script = ["set +e", "exec 2>&1"]
    for k, (_, command, _) in enumerate(found):
        script.append(f"printf '\\n@@example {k}@@\\n'")
        # a comment after the command is for the reader
        script.append(command)
    script.append(f"printf '\\n@@example {len(found)}@@\\n'")
    bindir = os.path.join(work, ".bin")
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
               LC_ALL="C.UTF-8", TZ="UTC")
    env.pop("DDBST_CURSOR_KEY", None)
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=work,
                          env=env, capture_output=True, text=True, timeout=300)
    parts = re.split(r"\n@@example (\d+)@@\n", "\n" + done.stdout)
    got = {}
    for j in range(1, len(parts) - 1, 2):
        got[int(parts[j])] = parts[j + 1]
    failed, report = len(failures), failures
    for k, (line, command, expected) in enumerate(found):
        if expected is None:
            passed += 1
            continue
        have = got.get(k, "")
        if matches(normal(have).split("\n"), normal(expected).split("\n")):
            passed += 1
        else:
            failed += 1
            first = command.split("\n")[0]
            report.append(f"FAIL {page}:{line}: $ {first}\n"
                          f"  the page says:\n{indent(expected)}\n"
                          f"  it prints:\n{indent(have)}")
    return passed, failed, report


def matches(have, want):
    """Whether the lines `have` are the lines `want`, where a line of the
    page that is "..." alone (indented or not) stands for any lines the
    page leaves out."""
    if not want:
        return not have
    if want[0].strip() == "...":
        return any(matches(have[i:], want[1:]) for i in range(len(have) + 1))
    return bool(have) and have[0] == want[0] and matches(have[1:], want[1:])


def indent(text):
    return "\n".join("    | " + l for l in text.rstrip("\n").split("\n"))


def main():
    ddbst, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    pages = sys.argv[3:]
    if not pages:
        import glob
        for pattern in PAGES:
            pages += sorted(os.path.relpath(p, src)
                            for p in glob.glob(os.path.join(src, pattern)))
    work = tempfile.mkdtemp(prefix="ddbst-doc-")
    try:
        for d in COPY:
            if os.path.isdir(os.path.join(src, d)):
                shutil.copytree(os.path.join(src, d), os.path.join(work, d))
        os.makedirs(os.path.join(work, ".bin"))
        os.symlink(ddbst, os.path.join(work, ".bin", "ddbst"))
        passed = failed = 0
        for page in pages:
            p, f, report = run_page(ddbst, src, page, work)
            passed, failed = passed + p, failed + f
            for r in report:
                print(r)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
