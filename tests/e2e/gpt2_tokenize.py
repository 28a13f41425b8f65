#!/usr/bin/python3
"""Helper of tests/e2e/gpt2_tokenize.sh: checks tools/gpt2_tokenize.py.

  gpt2_tokenize.py check          the word split and the BPE, in process (below)
  gpt2_tokenize.py vocab DIR      writes a small vocab.json and merges.txt into DIR (the
                                  256 byte characters, ids 0-255 in byte order, the
                                  MERGES' results, ids 256 on, then filler to 512 ids):
                                  every text encodes, every id decodes

The word split is checked against Python's `re` running GPT-2's published pattern on
ASCII text (where \\p{L}, \\p{N} and \\s are [A-Za-z], [0-9] and [ \\t\\n\\r\\f\\v]:
`re` is then an exact reference nobody here wrote), against the `regex` module on any
text when it is installed, and on hand-picked non-ASCII cases by Unicode category. The
BPE on hand-worked merges: rank order decides, every occurrence of a pair merges, bytes
of one UTF-8 character merge; and decode(encode(t)) == t on random Unicode text.
"""
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from gpt2_tokenize import Tokenizer, bpe, byte_chars, split_words  # noqa: E402

ASCII_PATTERN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""",
                           re.ASCII)
UNICODE_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# merges as GPT-2 writes them: symbols of byte_chars (Ġ is the space, Ã© is é's two bytes)
MERGES = ["Ġ t", "h e", "Ġt he", "b c", "a b", "a a", "aa aa", "Ã ©", "Ġ Ã©"]


def fail(msg):
    sys.exit("gpt2_tokenize: FAIL: " + msg)


def random_text(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def check_split(rng):
    ascii_alpha = list("ab Z9 0'stremvld!.,-\t\n\r\x0b\x0c\x1c\x1f_") + ["'s", "'ll", "  ", " \n"]
    for _ in range(3000):
        t = random_text(rng, ascii_alpha, rng.randrange(0, 24))
        if split_words(t) != ASCII_PATTERN.findall(t):
            fail("split %r: %r, re gives %r" % (t, split_words(t), ASCII_PATTERN.findall(t)))
        if "".join(split_words(t)) != t:
            fail("split %r loses characters" % t)
    # by Unicode category: ² ½ are numbers (No), é ß 中 letters, U+00A0 and U+3000 spaces,
    # U+0301 (a combining accent, Mn) and 😀 (So) neither
    cases = {"é²½ a\u00a0b": ["é", "²½", " a", "\u00a0", "b"],
             "中文 123\u3000x": ["中文", " 123", "\u3000", "x"],
             "e\u0301 😀!": ["e", "\u0301", " 😀!"],
             "ßtraße's\u2003\u2003z": ["ßtraße", "'s", "\u2003", "\u2003", "z"]}
    for t, want in cases.items():
        if split_words(t) != want:
            fail("split %r: %r, expected %r" % (t, split_words(t), want))
    try:
        import regex
    except ImportError:
        print("gpt2_tokenize: the regex module is not installed: non-ASCII split checked by hand only")
        return
    pattern = regex.compile(UNICODE_PATTERN)
    uni_alpha = ascii_alpha + list("é²½\u00a0\u3000中\u0301😀\u2003ß\u0085")
    for _ in range(3000):
        t = random_text(rng, uni_alpha, rng.randrange(0, 24))
        if split_words(t) != pattern.findall(t):
            fail("split %r: %r, regex gives %r" % (t, split_words(t), pattern.findall(t)))
    print("gpt2_tokenize: the split agrees with the regex module on 3000 Unicode texts")


def write_vocab(d):
    os.makedirs(d, exist_ok=True)
    vocab = {c: b for b, c in byte_chars().items()}
    for m in MERGES:
        a, b = m.split(" ")
        vocab.setdefault(a + b, len(vocab))
    # filler up to 512 ids (the test checkpoint's vocab_size): two-byte pieces no merge makes
    fill = (a + b for a in "0123456789" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    while len(vocab) < 512:
        vocab.setdefault(next(fill), len(vocab))
    with open(os.path.join(d, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "\n".join(MERGES) + "\n")


def check_bpe(rng, d):
    ranks = {tuple(m.split(" ")): r for r, m in enumerate(MERGES)}
    worked = {"abc": ["a", "bc"],          # "b c" (rank 3) before "a b" (rank 4)
              "ab": ["ab"],
              "aaaaa": ["aaaa", "a"],      # "a a" twice, left to right, then "aa aa"
              "Ġthe": ["Ġthe"],            # Ġ t -> Ġt, h e -> he, Ġt he
              "the": ["t", "he"],
              "ÃĠ": ["Ã", "Ġ"]}
    for w, want in worked.items():
        if bpe(w, ranks) != want:
            fail("bpe %r: %r, expected %r" % (w, bpe(w, ranks), want))
    ranks_swapped = {("a", "b"): 0, ("b", "c"): 1}
    if bpe("abc", ranks_swapped) != ["ab", "c"]:
        fail("bpe does not follow the ranks")
    tok = Tokenizer(d)
    v = tok.vocab
    want = [v["t"], v["he"], v["Ġthe"], v["ĠÃ©"]]
    if tok.encode("the the é") != want:
        fail("encode 'the the é': %r, expected %r" % (tok.encode("the the é"), want))
    if tok.encode("\n") != [v["Ċ"]]:  # byte 10 is the 11th unprintable byte: chr(256 + 10)
        fail("encode newline: %r" % tok.encode("\n"))
    alpha = list("the abcé中😀\u0301\u00a0\n\t '") + ["'s", "  "]
    for _ in range(500):
        t = random_text(rng, alpha, rng.randrange(0, 30))
        if tok.decode(tok.encode(t)) != t:
            fail("round trip %r -> %r" % (t, tok.decode(tok.encode(t))))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "vocab":
        write_vocab(sys.argv[2])
        return
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        sys.exit(__doc__)
    rng = random.Random(int(os.environ.get("EZ_TEST_SEED", "1")))
    check_split(rng)
    write_vocab(sys.argv[2])
    check_bpe(rng, sys.argv[2])
    print("gpt2_tokenize: split (3000 ASCII texts against re, 4 by category), bpe, 500 round trips: ok")


if __name__ == "__main__":
    main()
