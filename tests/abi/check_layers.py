#!/usr/bin/env python3
"""The source tree keeps its layers: a file uses only its own layer and the
layers below it, no two files of the library use each other (directly or
round a longer cycle), and no source file grows past what one person can
hold.

Usage: check_layers.py SRC_DIR OBJECT_DIR
       check_layers.py --self-test   (the check fails on a tree made to
                                      break each rule: it can fail)

SRC_DIR is src/; OBJECT_DIR holds the library's object files as CMake
builds them (.../ddbst_objects.dir/src/<layer>/<file>.c.o). "Uses" is read
twice: from the quoted #includes of every file under SRC_DIR, and from the
objects' symbols (an undefined symbol of one object that another defines),
which also catches a declaration written by hand instead of included.
Layer order (lowest first) is LAYERS below; src/README.md explains it.
"""
import os
import re
import subprocess
import sys

LAYERS = ["base", "json", "model", "item", "cursor", "request", "response",
          "evolve", "review", "ffi", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
MAX_LINES = 900

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    return rel.split("/", 1)[0] if "/" in rel else None


def check_includes(src, problems):
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src)
            layer = layer_of(rel)
            if layer not in RANK:
                problems.append(f"{rel}: not in a layer folder ({', '.join(LAYERS)})")
                continue
            text = open(path, encoding="utf-8").read()
            lines = text.count("\n")
            if lines > MAX_LINES:
                problems.append(f"{rel}: {lines} lines; split it by concern "
                                f"(at most {MAX_LINES})")
            for inc in INCLUDE.findall(text):
                if inc == "ddbst.h":
                    continue
                target = layer_of(inc)
                if target is None:
                    if layer == "cli" and os.path.exists(os.path.join(dirpath, inc)):
                        continue  # the command's own headers
                    problems.append(f'{rel}: #include "{inc}" names no layer '
                                    f'(write "<layer>/{inc}")')
                    continue
                if target not in RANK:
                    problems.append(f'{rel}: #include "{inc}": no layer {target}')
                elif RANK[target] > RANK[layer]:
                    problems.append(f'{rel} ({layer}) includes {inc}: {target} '
                                    f'is a higher layer')


def symbols(paths):
    """{path: (defined, undefined)} for every object, from one nm run: two
    nm runs a file (0.15 s each to start on a busy machine) made this check
    take 37.04 s of a CI run's unit tests; one run, 2.85 s."""
    out = subprocess.run(["nm", "--print-file-name", *paths],
                         capture_output=True, text=True, check=True).stdout
    syms = {p: (set(), set()) for p in paths}
    for line in out.splitlines():
        # "path.c.o:0000000000000000 T name" or "path.c.o:   U name"
        path, _, rest = line.partition(".o:")
        fields = rest.split()
        entry = syms.get(path + ".o")
        if entry is None or not fields:
            continue
        if len(fields) == 3 and fields[1] in "TDBRVW":
            entry[0].add(fields[2])
        elif len(fields) == 2:  # no address: undefined (U, or weak w / v)
            entry[1].add(fields[1])
    return syms


def check_symbols(objdir, problems, src=None):
    objs = {}
    for dirpath, _, files in os.walk(objdir):
        for f in files:
            if f.endswith(".c.o"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, objdir)
                rel = rel[rel.index("src/") + 4:] if "src/" in rel else rel
                # an object left by a file since renamed or removed
                if src and not os.path.exists(os.path.join(src, rel[:-2])):
                    continue
                objs[rel[:-2]] = path  # src/item/keys.c.o -> item/keys.c
    if not objs:
        problems.append(f"no object files under {objdir}")
        return
    owner, uses = {}, {}
    syms = symbols(sorted(objs.values()))
    for rel, path in objs.items():
        defined, undefined = syms[path]
        for s in defined:
            owner[s] = rel
        uses[rel] = undefined
    edges = {rel: set() for rel in objs}
    for rel, undefined in uses.items():
        for s in undefined:
            target = owner.get(s)
            if not target or target == rel:
                continue
            edges[rel].add(target)
            a, b = layer_of(rel), layer_of(target)
            if a in RANK and b in RANK and RANK[b] > RANK[a]:
                problems.append(f"{rel} ({a}) calls {s}, defined in {target} "
                                f"({b}): a higher layer")
    # Tarjan's strongly connected components: a component of more than one
    # file is a cycle.
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    for comp in comps:
        if len(comp) > 1:
            problems.append("files that use each other: " + " <-> ".join(sorted(comp)))
    return len(objs)


def self_test():
    """Builds a small tree that breaks every rule once (a base file that
    includes a request header, a base object calling into request, two
    request files calling each other, a file past MAX_LINES) and one that
    keeps them, and checks the verdicts."""
    import shutil
    import tempfile
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        sys.exit("check_layers: no C compiler for the self-test")
    work = tempfile.mkdtemp(prefix="check_layers.")
    try:
        def tree(name, files):
            root = os.path.join(work, name)
            for rel, text in files.items():
                path = os.path.join(root, "src", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            for rel in files:
                if rel.endswith(".c"):
                    obj = os.path.join(root, "obj", "src", rel + ".o")
                    os.makedirs(os.path.dirname(obj), exist_ok=True)
                    subprocess.run([cc, "-c", "-I", os.path.join(root, "src"),
                                    os.path.join(root, "src", rel), "-o", obj],
                                   check=True)
            problems = []
            check_includes(os.path.join(root, "src"), problems)
            check_symbols(os.path.join(root, "obj"), problems,
                          os.path.join(root, "src"))
            return problems

        good = tree("good", {
            "base/low.h": "int low(void);\n",
            "base/low.c": '#include "base/low.h"\nint low(void) { return 1; }\n',
            "request/high.c": '#include "base/low.h"\n'
                              "int high(void) { return low(); }\n",
        })
        bad = tree("bad", {
            "base/low.c": '#include "request/high.h"\n'
                          "int low(void) { return high(); }\n",
            "request/high.h": "int high(void);\nint other(void);\n",
            "request/high.c": '#include "request/high.h"\n'
                              "int high(void) { return other(); }\n",
            "request/other.c": '#include "request/high.h"\n'
                               "int other(void) { return high(); }\n"
                               + "/* */\n" * (MAX_LINES + 1),
        })
        want = ["base/low.c (base) includes request/high.h",
                "base/low.c (base) calls high",
                "files that use each other: request/high.c <-> request/other.c",
                "request/other.c: %d lines" % (MAX_LINES + 3)]
        missing = [w for w in want if not any(p.startswith(w) for p in bad)]
        if good or missing:
            print("the layer check is broken:")
            for p in good:
                print("  reported on a good tree:", p)
            for w in missing:
                print("  not reported on a bad tree:", w)
            sys.exit(1)
        print("self-test: a good tree passes; a tree breaking each rule "
              "fails with %d problems" % len(bad))
    finally:
        shutil.rmtree(work)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        self_test()
        return
    if len(sys.argv) != 3:
        sys.exit("usage: check_layers.py SRC_DIR OBJECT_DIR | --self-test")
    src, objdir = sys.argv[1], sys.argv[2]
    problems = []
    check_includes(src, problems)
    n = check_symbols(objdir, problems, src)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) in the layers")
        sys.exit(1)
    print(f"{n} library objects: every use goes to its own layer or one "
          f"below, no cycles, no file over {MAX_LINES} lines")


if __name__ == "__main__":
    main()
