#!/usr/bin/env python3
"""The mutant list of tests/mutation/run.sh: parse, validate, apply.

mutants.txt, one mutant per line:   ID | SNIPPET | REPLACEMENT | WHAT [| SUITES]
  SNIPPET      exact code occurring exactly once in the .c files of lib/, runtime/ and
               compiler/; "\\n" in SNIPPET and REPLACEMENT stands for a newline (so a
               snippet may span lines), "\\|" for a "|", "\\\\" for a backslash
  REPLACEMENT  what the snippet becomes (typically: the check never fires)
  WHAT         what the mutant disables (the report's text)
  SUITES       optional, comma-separated: the unit suites run first (the ones expected
               to kill it); a wrong hint costs time, never a verdict
Lines starting with "#=" are REDUNDANT mutants, in the same format, whose WHAT must say
which other check implies theirs: they are listed and excluded from the kill rate (run
them with run.sh --redundant to see them survive). Other "#" lines are comments.

  mutants.py list FILE            TSV: kind(mutant|redundant) id hint what
  mutants.py locate FILE ID ROOT  the file the snippet is in (exit 1: not unique)
  mutants.py apply FILE ID ROOT   apply the mutant in ROOT (exit 1: not unique)
  mutants.py check FILE ROOT      validate every line (ids unique, snippets unique)
  mutants.py sync SRC DST         copy git's files SRC -> DST where the content differs
                                  (unchanged files keep their times: make stays incremental)
"""
import os
import re
import sys


def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "n\\|":
            out.append("\n" if s[i + 1] == "n" else s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def parse(path):
    muts = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            kind = "mutant"
            if line.startswith("#="):
                kind, line = "redundant", line[2:]
            elif line.strip() == "" or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in re.split(r"(?<!\\)\|", line)]
            if len(parts) < 4 or len(parts) > 5:
                sys.exit(f"{path}:{ln}: expected 'ID | SNIPPET | REPLACEMENT | WHAT [| SUITES]'")
            muts.append({"kind": kind, "id": parts[0], "snippet": unescape(parts[1]),
                         "repl": unescape(parts[2]), "what": parts[3],
                         "hint": parts[4] if len(parts) == 5 else "", "line": ln})
    return muts


_sources = {}


def sources(root):
    if root not in _sources:
        files = []
        for top in ("lib", "runtime", "compiler"):
            for d, _, names in os.walk(os.path.join(root, top)):
                files += [os.path.join(d, n) for n in names if n.endswith(".c")]
        _sources[root] = {p: open(p).read() for p in sorted(files)}
    return _sources[root]


def locate(m, root):
    hits = [(p, s.count(m["snippet"])) for p, s in sources(root).items() if m["snippet"] in s]
    if len(hits) != 1 or hits[0][1] != 1:
        return None, sum(c for _, c in hits)
    return hits[0][0], 1


def find(muts, ident):
    for m in muts:
        if m["id"] == ident:
            return m
    sys.exit(f"no mutant {ident}")


def sync(src, dst):
    import subprocess
    out = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         check=True, capture_output=True).stdout
    n = 0
    for rel in out.decode().split("\0"):
        if not rel or rel.startswith("build-"):
            continue
        a, b = os.path.join(src, rel), os.path.join(dst, rel)
        if not os.path.isfile(a):
            continue
        data = open(a, "rb").read()
        if os.path.isfile(b) and open(b, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        with open(b, "wb") as f:
            f.write(data)
        os.chmod(b, os.stat(a).st_mode)
        n += 1
    print(f"{n} files updated")


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "sync":
        sync(path, sys.argv[3])
        return
    muts = parse(path)
    if cmd == "list":
        for m in muts:
            print("\t".join([m["kind"], m["id"], m["hint"] or "-", m["what"]]))
    elif cmd in ("locate", "apply"):
        m = find(muts, sys.argv[3])
        root = sys.argv[4]
        p, n = locate(m, root)
        if p is None:
            print(f"the snippet occurs {n} times", file=sys.stderr)
            sys.exit(1)
        if cmd == "apply":
            s = sources(root)[p]
            with open(p, "w") as f:
                f.write(s.replace(m["snippet"], m["repl"], 1))
        print(os.path.relpath(p, root))
    elif cmd == "check":
        root, bad, seen = sys.argv[3], 0, set()
        for m in muts:
            if m["id"] in seen:
                print(f"line {m['line']}: duplicate id {m['id']}")
                bad += 1
            seen.add(m["id"])
            p, n = locate(m, root)
            if p is None:
                print(f"line {m['line']}: {m['id']}: the snippet occurs {n} times")
                bad += 1
        nm = sum(m["kind"] == "mutant" for m in muts)
        print(f"{len(muts)} entries ({nm} mutants, {len(muts) - nm} redundant), {bad} problems")
        sys.exit(1 if bad else 0)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
