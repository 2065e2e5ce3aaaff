"""Raw tool for qdrant-client's local on-disk points: decodes and encodes the pickled PointStruct blobs of its SQLite
`points` table with the Python standard library only (pickle, pickletools, base64, json), never qdrant-client's or
mem0's code. Run it as `python3 -I -S qdrant_local_points.py <op>` (no site-packages: nothing else is importable).

qdrant-client (qdrant_client/local/persistence.py) stores each point as `pickle.dumps(PointStruct)`: the class named
by module and name, then its pydantic state, plain data: {"__dict__": {id, vector, payload}, "__pydantic_extra__",
"__pydantic_fields_set__" (a set), "__pydantic_private__"}. Its row key is base64(pickle.dumps(point_id, protocol=4)).

stdin: one JSON request per line; stdout: one JSON answer per line.
  decode {"blob": hex}          -> {"fields": {id, vector, payload}, "fields_set": [...], "extra": ..., "private": ...}
  encode {that same object}     -> {"blob": hex}: the class reference written as a pickle GLOBAL, the state pickled as is
  key    {"id": "<point id>"}   -> {"key": base64 of the pickled id, as qdrant-client keys its rows}
"""

import base64
import io
import json
import pickle
import pickletools
import sys

MODULE = "qdrant_client.http.models.models"
CLASS = "PointStruct"


class PointState:
    """Stands in for the one class a point pickle names; keeps the state BUILD hands it."""

    def __setstate__(self, state):
        self.state = state


class PointUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) != (MODULE, CLASS):
            raise pickle.UnpicklingError(f"unexpected class {module}.{name} in a point blob")
        return PointState


def decode(blob_hex):
    point = PointUnpickler(io.BytesIO(bytes.fromhex(blob_hex))).load()
    if not isinstance(point, PointState):
        raise ValueError("the blob is not a pickled PointStruct")
    state = point.state
    return {"fields": state["__dict__"], "fields_set": sorted(state["__pydantic_fields_set__"]), "extra": state["__pydantic_extra__"], "private": state["__pydantic_private__"]}


def encode(decoded):
    state = {"__dict__": decoded["fields"], "__pydantic_extra__": decoded["extra"], "__pydantic_fields_set__": set(decoded["fields_set"]), "__pydantic_private__": decoded["private"]}
    body = pickle.dumps(state, protocol=4)
    out = bytearray(b"\x80\x04")  # PROTO 4
    out += f"c{MODULE}\n{CLASS}\n".encode("ascii")  # GLOBAL (no memo entry, so the state's memo indices stay valid)
    out += b")\x81"  # EMPTY_TUPLE, NEWOBJ: cls.__new__(cls)
    ops = list(pickletools.genops(body))
    for index, (opcode, _arg, position) in enumerate(ops):
        if opcode.name in ("PROTO", "FRAME", "STOP"):
            continue
        out += body[position : ops[index + 1][2]]
    out += b"b."  # BUILD (the state), STOP
    return {"blob": bytes(out).hex()}


def key(point_id):
    return {"key": base64.b64encode(pickle.dumps(point_id, protocol=4)).decode("ascii")}


def main():
    op = sys.argv[1]
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if op == "decode":
            answer = decode(request["blob"])
        elif op == "encode":
            answer = encode(request)
        elif op == "key":
            answer = key(request["id"])
        else:
            raise SystemExit(f"unknown op {op!r}: decode, encode or key")
        sys.stdout.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    main()
