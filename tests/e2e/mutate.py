"""mutate - what the end-to-end tamper scripts share (imported from their python
heredocs; common.sh puts this directory on PYTHONPATH):

  read_file(path) -> (data, sections): a binary einzk file (proof, vk, pk: an 8-byte
      header, then sections of u32 tag, u64 length, payload) and its sections as
      [(tag, header offset, payload offset, payload length)];
  Mutations(dir): numbered mutated copies written to dir, put(bytes, name);
  flipped(data, off, bit): a copy of data with one bit flipped;
  statement(data, secs): a proof's statement section (tag 1: u64 count, then per
      tensor u32 id, u64 n, u8 w, n values of w bytes, then the binding: a 32-byte plan
      digest, a u8 flag and, when set, a 32-byte weight root) as [(tensor id, offset of
      its first value, n, w)], the inputs first, then the claimed outputs (plan order);
  added(data, off, delta, w): a copy of data with the w-byte value at off increased by
      delta.
"""
import os
import struct


def read_file(path):
    data = open(path, "rb").read()
    secs, pos = [], 8
    while pos < len(data):
        tag, ln = struct.unpack_from("<IQ", data, pos)
        secs.append((tag, pos, pos + 12, ln))
        pos += 12 + ln
    return data, secs


def flipped(data, off, bit):
    b = bytearray(data)
    b[off] ^= 1 << bit
    return bytes(b)


def statement(data, secs):
    tag, h, p, ln = secs[0]
    assert tag == 1, "the first section of a proof is its statement"
    cnt = struct.unpack_from("<Q", data, p)[0]
    out, q = [], p + 8
    for _ in range(cnt):
        tid, num, w = struct.unpack_from("<IQB", data, q)
        out.append((tid, q + 13, num, w))
        q += 13 + w * num
    assert q + 33 <= p + ln, "statement length"
    assert q + 33 + 32 * data[q + 32] == p + ln, "statement length (binding)"
    return out


def added(data, off, delta, w=8):
    """data with the w-byte two's complement value at off increased by delta (wrapping
    inside its w bytes)."""
    b = bytearray(data)
    v = int.from_bytes(b[off:off + w], "little") + delta
    b[off:off + w] = (v % (1 << (8 * w))).to_bytes(w, "little")
    return bytes(b)


class Mutations:
    def __init__(self, out):
        os.makedirs(out, exist_ok=True)
        self.out, self.n = out, 0

    def put(self, b, name=""):
        path = os.path.join(self.out, "%03d%s" % (self.n, "_" + name if name else ""))
        open(path, "wb").write(bytes(b))
        self.n += 1
