"""Minimal safetensors reader and F32 writer with numpy only (no torch, no network).

Format: u64 little-endian header length N, N bytes of JSON header
{"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
then the data area; offsets are relative to its first byte, data little-endian row-major.

    from safetensors_np import SafeTensors, write_f32
    st = SafeTensors("model.safetensors")      # validates the header, maps the file
    st.names(); st.shape("wte.weight"); st.get("wte.weight")   # float32 array (copy)
    write_f32("out.safetensors", [("wte", arr), ("wpe", (shape, make_array))])

Errors are SafeTensorsError with the file (and tensor) named.
"""
import json
import struct

import numpy as np

# little-endian numpy dtype per safetensors dtype; BF16 is decoded by hand below
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2",
          "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
          "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "u1"}


class SafeTensorsError(Exception):
    pass


class SafeTensors:
    """A safetensors file: header parsed and checked, tensors read on demand."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                head = f.read(8)
                if len(head) < 8:
                    raise SafeTensorsError(f"{path}: not a safetensors file (shorter than 8 bytes)")
                (n,) = struct.unpack("<Q", head)
                f.seek(0, 2)
                size = f.tell()
                if n > 100 << 20 or 8 + n > size:
                    raise SafeTensorsError(f"{path}: header length {n} does not fit the file ({size} bytes)")
                f.seek(8)
                raw = f.read(n)
        except OSError as e:
            raise SafeTensorsError(f"{path}: {e.strerror}") from None
        try:
            header = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as e:
            raise SafeTensorsError(f"{path}: header is not valid JSON ({e})") from None
        if not isinstance(header, dict):
            raise SafeTensorsError(f"{path}: header is not a JSON object")
        self.metadata = header.pop("__metadata__", {})
        self.data_start = 8 + n
        data_len = size - self.data_start
        self.entries = {}
        for name, e in header.items():
            where = f"{path}: tensor '{name}'"
            if not isinstance(e, dict) or set(e) != {"dtype", "shape", "data_offsets"}:
                raise SafeTensorsError(f"{where}: entry needs exactly dtype, shape, data_offsets")
            if e["dtype"] not in DTYPES:
                raise SafeTensorsError(f"{where}: unsupported dtype {e['dtype']!r}")
            shape, offs = e["shape"], e["data_offsets"]
            if not (isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape)):
                raise SafeTensorsError(f"{where}: bad shape {shape!r}")
            if not (isinstance(offs, list) and len(offs) == 2 and all(isinstance(o, int) for o in offs)
                    and 0 <= offs[0] <= offs[1] <= data_len):
                raise SafeTensorsError(f"{where}: data_offsets {offs!r} outside the data area ({data_len} bytes)")
            nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(DTYPES[e["dtype"]]).itemsize
            if offs[1] - offs[0] != nbytes:
                raise SafeTensorsError(f"{where}: {offs[1] - offs[0]} data bytes, shape {shape} "
                                       f"of {e['dtype']} needs {nbytes}")
            self.entries[name] = (e["dtype"], tuple(shape), offs[0])
        # a read-only map: a multi-GB checkpoint costs no memory until a tensor is read
        self._map = np.memmap(path, dtype=np.uint8, mode="r") if size > 0 else None

    def names(self):
        return list(self.entries)

    def __contains__(self, name):
        return name in self.entries

    def dtype(self, name):
        return self.entries[name][0]

    def shape(self, name):
        return self.entries[name][1]

    def get(self, name, dtype=np.float32):
        """The tensor as a new array of `dtype` (float32 by default; BF16/F16 exactly widened)."""
        st, shape, off = self.entries[name]
        count = int(np.prod(shape, dtype=np.int64))
        raw_dt = np.dtype(DTYPES[st])
        begin = self.data_start + off
        raw = np.frombuffer(self._map, dtype=raw_dt, count=count, offset=begin) if count else \
            np.zeros(0, raw_dt)
        if st == "BF16":  # the high half of an IEEE binary32
            raw = (raw.astype(np.uint32) << 16).view(np.float32)
        return raw.astype(dtype).reshape(shape)


def write_f32(path, items, metadata=None):
    """Write F32 tensors in the given order. items: (name, array) or (name, (shape, fn)) where
    fn() returns the array; fn is called only when its data is written, so a large model is
    converted one tensor at a time. The header is padded with spaces to a multiple of 8."""
    header, offset, plan = {}, 0, []
    for name, val in items:
        if isinstance(val, tuple):
            shape, fn = val
        else:
            shape, fn = val.shape, (lambda v=val: v)
        shape = [int(d) for d in shape]
        nbytes = int(np.prod(shape, dtype=np.int64)) * 4
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + nbytes]}
        plan.append((name, tuple(shape), fn))
        offset += nbytes
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    hb = json.dumps(header, separators=(",", ":")).encode()
    hb += b" " * (-len(hb) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for name, shape, fn in plan:
            a = np.asarray(fn())
            if a.shape != shape:
                raise SafeTensorsError(f"{path}: tensor '{name}': produced shape {list(a.shape)}, "
                                       f"header says {list(shape)}")
            f.write(np.ascontiguousarray(a, dtype="<f4").tobytes())
