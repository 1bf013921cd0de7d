"""DGL's `dgl.save_graphs` binary format, read and written with NumPy alone.

GADBench ships each dataset as one such file; installing DGL only to open it would pin
torch to the versions DGL builds for, so this reads the layout directly. Learnt from DGL's
sources (`src/graph/serialize/heterograph_serialize.cc`, `heterograph_data.h`,
`src/graph/heterograph.cc`, `unit_graph.cc`, `immutable_graph.cc`, `include/dgl/aten/coo.h`,
`csr.h`, `src/runtime/ndarray.cc`) and dmlc-core's `serializer.h`. Everything is little-endian
and unaligned:

- header: magic 0xDD2E4FF046B4A13F, version 2, graph type 2 (heterograph), number of graphs;
  zero padding to byte 4096; the offset of the first graph; the label dict
  (vector<pair<string, NDArray>>).
- per graph: a HeteroGraph (magic, metagraph, vector of relation UnitGraphs, vector<int64>
  nodes per type), then node tensors and edge tensors (one vector<pair<string, NDArray>> per
  type), node type names, edge type names.
- at the end: the vector<uint64> of graph offsets serialised into a string (so: its byte
  count, the vector), then that byte count again, for seeking from the end.

A string or vector is a uint64 count and its items; a bool is one byte; an NDArray is
magic 0xDD5E40F096B4A13F, a reserved uint64, device type and id (int32 each), ndim (int32),
dtype code/bits (uint8 each) and lanes (uint16), the shape (int64 each), the byte count
(int64) and the raw C-order data.

Only homogeneous graphs (one node type, one edge type) are supported: GADBench's are.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FILE_MAGIC = 0xDD2E4FF046B4A13F
FILE_VERSION = 2
HETEROGRAPH_TYPE = 2
HEADER_BYTES = 4096
_HETEROGRAPH_MAGIC = 0xDD589FBE35224ABF
_UNITGRAPH_MAGIC = 0xDD2E60F0F6B4A127
_IMMUTABLE_GRAPH_MAGIC = 0xDD3C5FFE20046ABF
_CSR_MAGIC = 0xDD6CD31205DFF127
_COO_MAGIC = 0xDD61FFD305DFF127
_NDARRAY_MAGIC = 0xDD5E40F096B4A13F
_COO_CODE, _CSR_CODE, _CSC_CODE = 1, 2, 4
_EXPLICIT_CODE = 0x100000000  # DGL >= 0.5 marks format codes as bit masks with bit 32

# DLPack type codes: 0 int, 1 uint, 2 float, 6 bool
_DTYPES = {(0, 8): "i1", (0, 16): "<i2", (0, 32): "<i4", (0, 64): "<i8",
           (1, 8): "u1", (1, 16): "<u2", (1, 32): "<u4", (1, 64): "<u8",
           (2, 16): "<f2", (2, 32): "<f4", (2, 64): "<f8", (6, 8): "?"}
_CODES = {np.dtype(v).newbyteorder("<"): k for k, v in _DTYPES.items()}


class DGLFormatError(ValueError):
    """The bytes do not follow DGL's layout; `offset` is where reading stopped."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} (at byte {offset})")
        self.offset = offset


@dataclass(frozen=True)
class DGLGraph:
    """One homogeneous graph: edges in DGL's edge-id order and its node and edge tensors."""

    num_nodes: int
    src: np.ndarray
    dst: np.ndarray
    ndata: dict[str, np.ndarray] = field(default_factory=dict)
    edata: dict[str, np.ndarray] = field(default_factory=dict)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, size: int) -> bytes:
        if size < 0 or self.pos + size > len(self.data):
            raise DGLFormatError(f"file ends early: {size} more bytes needed, {len(self.data) - self.pos} left",
                                 self.pos)
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def unpack(self, fmt: str) -> tuple:
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))

    def u64(self) -> int:
        return self.unpack("Q")[0]

    def i64(self) -> int:
        return self.unpack("q")[0]

    def flag(self) -> bool:
        return bool(self.take(1)[0])

    def magic(self, expected: int, what: str) -> None:
        at, found = self.pos, self.u64()
        if found != expected:
            raise DGLFormatError(f"expected the {what} magic number {expected:#x}, found {found:#x}", at)

    def count(self) -> int:
        """A vector or string length, checked against the bytes left so garbage fails fast."""
        at, n = self.pos, self.u64()
        if n > len(self.data) - self.pos:
            left = len(self.data) - self.pos
            raise DGLFormatError(f"file ends early: a length of {n} exceeds the {left} bytes left", at)
        return n

    def string(self) -> str:
        return self.take(self.count()).decode("utf-8")

    def ndarray(self) -> np.ndarray:
        self.magic(_NDARRAY_MAGIC, "NDArray")
        self.u64()  # reserved
        at = self.pos
        _device_type, _device_id, ndim, code, bits, lanes = self.unpack("iiiBBH")
        if (code, bits) not in _DTYPES or lanes != 1 or not 0 <= ndim <= 32:
            raise DGLFormatError(f"unsupported NDArray dtype code {code}, {bits} bits, {lanes} lanes, ndim {ndim}", at)
        shape = self.unpack(f"{ndim}q")
        nbytes = self.i64()
        dtype = np.dtype(_DTYPES[code, bits])
        if nbytes != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
            raise DGLFormatError(f"NDArray of shape {shape} and dtype {dtype} cannot hold {nbytes} bytes", at)
        return np.frombuffer(self.take(nbytes), dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))

    def named_tensors(self) -> dict[str, np.ndarray]:
        return {self.string(): self.ndarray() for _ in range(self.count())}

    def csr(self) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray]:
        self.magic(_CSR_MAGIC, "CSR matrix")
        at = self.pos
        num_cols, num_rows = self.i64(), self.i64()
        indptr, indices, data = self.ndarray(), self.ndarray(), self.ndarray()
        self.flag()  # sorted
        consistent = indptr.shape == (num_rows + 1,) and indptr[0] == 0 and indptr[-1] == indices.size
        if not consistent or np.any(np.diff(indptr) < 0):
            raise DGLFormatError(f"a CSR matrix with {num_rows} rows has an inconsistent indptr", at)
        return num_rows, num_cols, indptr, indices, data

    def coo(self) -> tuple[int, int, np.ndarray, np.ndarray]:
        self.magic(_COO_MAGIC, "COO matrix")
        num_cols, num_rows = self.i64(), self.i64()
        row, col, _data = self.ndarray(), self.ndarray(), self.ndarray()
        self.flag(), self.flag()  # row_sorted, col_sorted
        return num_rows, num_cols, row, col

    def metagraph(self) -> int:
        """The metagraph (node types as nodes, edge types as edges); returns its edge count."""
        self.magic(_IMMUTABLE_GRAPH_MAGIC, "metagraph")
        return int(self.csr()[2][-1])


def read_graphs(path: str | Path) -> tuple[list[DGLGraph], dict[str, np.ndarray]]:
    """The graphs and the label dict of a `dgl.save_graphs` file; `DGLFormatError` if malformed."""
    reader = _Reader(Path(path).read_bytes())
    magic = reader.u64()
    if magic != FILE_MAGIC:
        raise DGLFormatError(f"not a DGL graph file: magic number {magic:#x}, expected {FILE_MAGIC:#x}", 0)
    version, graph_type, num_graphs = reader.u64(), reader.u64(), reader.u64()
    if (version, graph_type) != (FILE_VERSION, HETEROGRAPH_TYPE):
        raise DGLFormatError(
            f"DGL file version {version}, graph type {graph_type}; only version 2 heterograph files "
            "(DGL >= 0.5) are supported", 8)
    reader.pos = HEADER_BYTES
    graphs_start = reader.u64()
    labels = reader.named_tensors()
    if reader.pos != graphs_start:
        raise DGLFormatError(f"label dict ends at byte {reader.pos}, but graphs start at {graphs_start}", reader.pos)
    starts, graphs = [], []
    for _ in range(num_graphs):
        starts.append(reader.pos)
        graphs.append(_graph(reader))
    _check_index(reader, starts)
    return graphs, labels


def _check_index(reader: _Reader, starts: list[int]) -> None:
    """The trailing graph offsets must match where the graphs were found: this catches cut files."""
    at = reader.pos
    blob_size = reader.count()  # the index is written as a string: its byte count, then the vector
    index = [reader.u64() for _ in range(reader.count())]
    size = reader.u64()
    if index != starts or not size == blob_size == 8 * (len(index) + 1) or reader.pos != len(reader.data):
        raise DGLFormatError(f"the graph index (offsets {index[:4]}, {size} bytes) does not match graphs found at "
                             f"{starts[:4]} or is followed by {len(reader.data) - reader.pos} stray bytes", at)


def _graph(reader: _Reader) -> DGLGraph:
    reader.magic(_HETEROGRAPH_MAGIC, "heterograph")
    at = reader.pos
    num_etypes = reader.metagraph()
    num_relations = reader.count()
    if num_etypes != 1 or num_relations != 1:
        raise DGLFormatError(f"a heterogeneous graph with {max(num_etypes, num_relations)} edge types; only "
                             "homogeneous graphs are supported", at)
    src, dst = _unit_graph(reader)
    nodes_per_type = [reader.i64() for _ in range(reader.count())]
    node_tensors = [reader.named_tensors() for _ in range(reader.count())]
    edge_tensors = [reader.named_tensors() for _ in range(reader.count())]
    ntypes = [reader.string() for _ in range(reader.count())]
    _etypes = [reader.string() for _ in range(reader.count())]
    if len(nodes_per_type) != 1 or len(ntypes) != 1 or len(node_tensors) != 1 or len(edge_tensors) != 1:
        raise DGLFormatError(f"{len(ntypes)} node types; only homogeneous graphs are supported", at)
    return DGLGraph(nodes_per_type[0], src, dst, node_tensors[0], edge_tensors[0])


def _unit_graph(reader: _Reader) -> tuple[np.ndarray, np.ndarray]:
    """(src, dst) in edge-id order from whichever stored format comes first: COO, CSR or CSC."""
    reader.magic(_UNITGRAPH_MAGIC, "unit graph")
    at = reader.pos
    save_code, _allowed = reader.i64(), reader.i64()
    if not save_code & _EXPLICIT_CODE:
        raise DGLFormatError(f"format code {save_code:#x} predates DGL 0.5; re-save the file with a newer DGL", at)
    edges = None
    for code in (_COO_CODE, _CSR_CODE, _CSC_CODE):
        if not save_code & code:
            continue
        reader.metagraph()
        if code == _COO_CODE:
            _rows, _cols, row, col = reader.coo()
            found = (row, col)
        else:
            _rows, _cols, indptr, indices, eids = reader.csr()
            owner = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
            order = np.argsort(eids, kind="stable") if eids.size else np.arange(indices.size)
            pair = (owner[order], indices[order])
            found = pair if code == _CSR_CODE else pair[::-1]
        edges = edges or found
    if edges is None:
        raise DGLFormatError(f"format code {save_code:#x} names no sparse format", at)
    return edges[0].astype(np.int64), edges[1].astype(np.int64)


class _Writer:
    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def pack(self, fmt: str, *values: object) -> None:
        self.parts.append(struct.pack("<" + fmt, *values))

    def string(self, text: str) -> None:
        raw = text.encode("utf-8")
        self.pack("Q", len(raw))
        self.parts.append(raw)

    def ndarray(self, array: np.ndarray) -> None:
        array = np.ascontiguousarray(array)
        little = array.dtype.newbyteorder("<") if array.dtype.itemsize > 1 else array.dtype
        if little not in _CODES:
            raise ValueError(f"DGL cannot store dtype {array.dtype}")
        code, bits = _CODES[little]
        self.pack("QQiiiBBH", _NDARRAY_MAGIC, 0, 1, 0, array.ndim, code, bits, 1)  # device 1 = CPU
        self.pack(f"{array.ndim}q", *array.shape)
        self.pack("q", array.nbytes)
        self.parts.append(array.astype(little, copy=False).tobytes())

    def named_tensors(self, tensors: dict[str, np.ndarray]) -> None:
        self.pack("Q", len(tensors))
        for name, array in tensors.items():
            self.string(name)
            self.ndarray(array)

    def metagraph(self) -> None:
        """One node type with one edge type: the 1 x 1 CSR matrix holding the self loop 0 -> 0."""
        ids = np.zeros(1, dtype=np.int64)
        self.pack("QQqq", _IMMUTABLE_GRAPH_MAGIC, _CSR_MAGIC, 1, 1)
        for array in (np.array([0, 1], dtype=np.int64), ids, ids):
            self.ndarray(array)
        self.pack("?", False)

    def graph(self, graph: DGLGraph) -> None:
        self.pack("Q", _HETEROGRAPH_MAGIC)
        self.metagraph()
        self.pack("QQqq", 1, _UNITGRAPH_MAGIC, _COO_CODE | _EXPLICIT_CODE,
                  _COO_CODE | _CSR_CODE | _CSC_CODE | _EXPLICIT_CODE)
        self.metagraph()
        self.pack("Qqq", _COO_MAGIC, graph.num_nodes, graph.num_nodes)
        for array in (graph.src, graph.dst, np.zeros(0, dtype=np.int64)):
            self.ndarray(np.asarray(array, dtype=np.int64))
        self.pack("??", False, False)
        self.pack("Qq", 1, graph.num_nodes)
        for tensors in (graph.ndata, graph.edata):
            self.pack("Q", 1)
            self.named_tensors(tensors)
        for name in ("_N", "_E"):  # DGL's default type names
            self.pack("Q", 1)
            self.string(name)


def write_graphs(path: str | Path, graphs: list[DGLGraph], labels: dict[str, np.ndarray] | None = None) -> None:
    """Write homogeneous graphs as `dgl.save_graphs` would (COO only), so tests can make small files."""
    header = struct.pack("<QQQQ", FILE_MAGIC, FILE_VERSION, HETEROGRAPH_TYPE, len(graphs))
    label_part = _Writer()
    label_part.named_tensors(labels or {})
    label_bytes = b"".join(label_part.parts)
    offset = HEADER_BYTES + 8 + len(label_bytes)
    body, starts = [], []
    for graph in graphs:
        part = _Writer()
        part.graph(graph)
        starts.append(offset)
        body.append(b"".join(part.parts))
        offset += len(body[-1])
    index = struct.pack(f"<Q{len(starts)}Q", len(starts), *starts)
    Path(path).write_bytes(
        header.ljust(HEADER_BYTES, b"\0") + struct.pack("<Q", HEADER_BYTES + 8 + len(label_bytes)) + label_bytes
        + b"".join(body) + struct.pack("<Q", len(index)) + index + struct.pack("<Q", len(index))
    )
