#!/usr/bin/python3
"""GPT-2's byte-level BPE, from a Hugging Face checkpoint's vocab.json and merges.txt.

Usage:
  gpt2_tokenize.py CHECKPOINT_DIR encode TEXT -o IN.json [--seq S] [--pad ID]
  gpt2_tokenize.py CHECKPOINT_DIR decode FILE.json [--field NAME] [--first N | --at I]

encode writes TEXT's token ids as einzk's input {"tok": {"shape": [S], "data": [...]}}
(padded with --pad, default 50256 <|endoftext|>, to S ids when --seq is given: causal
attention keeps the padding from changing earlier positions) and prints on stdout the
number n of the text's ids: the model's guess for the next token is `next[n - 1]`.
decode prints the text of a JSON file's ids: its field NAME (default `tok`; `next` for
`einzk run`'s output), all of them, the first N, or the one at index I.

The algorithm is the one GPT-2 published (Radford et al. 2019, the released encoder):
every byte of the UTF-8 text is mapped to a printable character, the text is split into
words by GPT-2's pattern

  's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+

and each word's characters are merged pairwise, lowest merge rank first, until no pair
of the word is in merges.txt. The pattern needs Unicode properties that Python's `re`
lacks, so `split_words` scans for it directly: letters and numbers by their Unicode
general category, spaces by the Unicode White_Space property. numpy-free, no network.
"""
import argparse
import json
import os
import sys
import unicodedata

# Unicode's White_Space property (PropList.txt): what \s matches in the `regex` module
WHITE_SPACE = frozenset([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F,
                         0x205F, 0x3000] + list(range(0x2000, 0x200B)))
CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")  # tried in this order, as the pattern does


def byte_chars():
    """The byte -> character map: printable Latin-1 bytes stand for themselves, the rest
    for 256, 257, ... in byte order (so no word holds whitespace or control characters)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def _is_space(c):
    return ord(c) in WHITE_SPACE


def _is_letter(c):
    return unicodedata.category(c).startswith("L")


def _is_number(c):
    return unicodedata.category(c).startswith("N")


def _is_other(c):
    return not (_is_space(c) or _is_letter(c) or _is_number(c))


def _run(text, i, pred):
    while i < len(text) and pred(text[i]):
        i += 1
    return i


def split_words(text):
    """GPT-2's pattern, its alternatives tried in order at each position (the first that
    matches wins, as in a regex alternation)."""
    words, i, n = [], 0, len(text)
    while i < n:
        c = next((c for c in CONTRACTIONS if text.startswith(c, i)), None)
        if c:
            words.append(c)
            i += len(c)
            continue
        j = i + 1 if text[i] == " " and i + 1 < n else i  # the optional leading space
        end = None
        for pred in (_is_letter, _is_number, _is_other):
            if pred(text[j]):
                end = _run(text, j, pred)
                break
        if end is None:  # text[i] is a space, and so is text[j]
            # \s+(?!\S): the whitespace run, less its last character when a non-space
            # follows; a single space before a non-space falls to the last \s+
            end = _run(text, i, _is_space)
            if end < n and end - i > 1:
                end -= 1
        words.append(text[i:end])
        i = end
    return words


def bpe(word, ranks):
    """Merge the lowest-ranked adjacent pair until none of the word's pairs is ranked."""
    parts = list(word)
    while len(parts) > 1:
        pairs = [(ranks.get((a, b)), k) for k, (a, b) in enumerate(zip(parts, parts[1:]))]
        best = min((r for r, _ in pairs if r is not None), default=None)
        if best is None:
            break
        a, b = next((parts[k], parts[k + 1]) for r, k in pairs if r == best)
        merged, k = [], 0
        while k < len(parts):  # every occurrence of the pair, left to right
            if k + 1 < len(parts) and parts[k] == a and parts[k + 1] == b:
                merged.append(a + b)
                k += 2
            else:
                merged.append(parts[k])
                k += 1
        parts = merged
    return parts


class Tokenizer:
    def __init__(self, ckpt):
        vpath, mpath = os.path.join(ckpt, "vocab.json"), os.path.join(ckpt, "merges.txt")
        with open(vpath, encoding="utf-8") as f:
            self.vocab = json.load(f)
        self.ranks = {}
        with open(mpath, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#version"):
                    continue
                pair = line.split(" ")
                if len(pair) != 2:
                    raise ValueError("%s: line '%s' is not two symbols" % (mpath, line))
                self.ranks.setdefault((pair[0], pair[1]), len(self.ranks))
        self.inverse = {i: t for t, i in self.vocab.items()}
        self.to_char = byte_chars()
        self.to_byte = {c: b for b, c in self.to_char.items()}
        self.vpath = vpath

    def encode(self, text):
        ids = []
        for word in split_words(text):
            chars = "".join(self.to_char[b] for b in word.encode("utf-8"))
            for piece in bpe(chars, self.ranks):
                if piece not in self.vocab:
                    raise ValueError("%s: no id for the piece '%s'" % (self.vpath, piece))
                ids.append(self.vocab[piece])
        return ids

    def decode(self, ids):
        chars = []
        for i in ids:
            if i not in self.inverse:
                raise ValueError("%s: no token has id %d" % (self.vpath, i))
            chars.append(self.inverse[i])
        return bytes(self.to_byte[c] for c in "".join(chars)).decode("utf-8", errors="replace")


def json_ids(path, field):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if field not in doc:
        raise ValueError("%s: no field '%s' (it has %s)" % (path, field, ", ".join(sorted(doc))))
    v = doc[field]
    data = v["data"] if isinstance(v, dict) else v
    return [int(x) for x in data]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    sub = ap.add_subparsers(dest="cmd", required=True)
    enc = sub.add_parser("encode")
    enc.add_argument("text")
    enc.add_argument("-o", "--output", required=True)
    enc.add_argument("--seq", type=int)
    enc.add_argument("--pad", type=int, default=50256)
    dec = sub.add_parser("decode")
    dec.add_argument("file")
    dec.add_argument("--field", default="tok")
    which = dec.add_mutually_exclusive_group()
    which.add_argument("--first", type=int)
    which.add_argument("--at", type=int)
    a = ap.parse_args()
    try:
        tok = Tokenizer(a.checkpoint)
        if a.cmd == "encode":
            ids = tok.encode(a.text)
            n = len(ids)
            if a.seq is not None:
                if not 1 <= n <= a.seq:
                    raise ValueError("the text is %d tokens; --seq %d must be at least that" % (n, a.seq))
                ids = ids + [a.pad] * (a.seq - n)
            with open(a.output, "w", encoding="utf-8") as f:
                json.dump({"tok": {"shape": [len(ids)], "data": ids}}, f)
            print(n)
        else:
            ids = json_ids(a.file, a.field)
            if a.at is not None:
                if not 0 <= a.at < len(ids):
                    raise ValueError("--at %d: %s has %d ids" % (a.at, a.field, len(ids)))
                ids = ids[a.at:a.at + 1]
            elif a.first is not None:
                ids = ids[:a.first]
            sys.stdout.write(tok.decode(ids) + "\n")
    except (OSError, ValueError, KeyError) as e:
        print("gpt2_tokenize: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
