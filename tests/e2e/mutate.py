"""mutate - what the end-to-end tamper scripts share (imported from their python
heredocs; common.sh puts this directory on PYTHONPATH):

  read_file(path) -> (data, sections): a binary einzk file (proof, vk, pk: an 8-byte
      header, then sections of u32 tag, u64 length, payload) and its sections as
      [(tag, header offset, payload offset, payload length)];
  Mutations(dir): numbered mutated copies written to dir, put(bytes, name);
  flipped(data, off, bit): a copy of data with one bit flipped.
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


class Mutations:
    def __init__(self, out):
        os.makedirs(out, exist_ok=True)
        self.out, self.n = out, 0

    def put(self, b, name=""):
        path = os.path.join(self.out, "%03d%s" % (self.n, "_" + name if name else ""))
        open(path, "wb").write(bytes(b))
        self.n += 1
