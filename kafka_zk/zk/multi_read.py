"""ZooKeeper's multiRead request (3.6+): many getData in one round trip, each answered on its own.

kazoo sends any request object with ``type``, ``serialize()`` and ``deserialize(buffer, offset)``; this is
one for OpCode.multiRead (22) carrying getData (4) operations. Unlike a transaction it is not atomic: a
missing znode answers its own error (type -1) and the others still return data and stat.
"""

from kazoo.exceptions import EXCEPTIONS
from kazoo.protocol.serialization import MultiHeader, int_struct, multiheader_struct, read_buffer, stat_struct
from kazoo.protocol.states import ZnodeStat

MULTI_READ = 22
GET_DATA = 4
ERROR = -1


def _write_path(path):
    encoded = path.encode("utf-8")
    return int_struct.pack(len(encoded)) + encoded


class MultiRead:
    type = MULTI_READ

    def __init__(self, paths):
        self.paths = list(paths)

    def serialize(self):
        out = bytearray()
        for path in self.paths:
            out += MultiHeader(GET_DATA, False, -1).serialize()
            out += _write_path(path)
            out.append(0)  # no watch
        out += multiheader_struct.pack(-1, True, -1)
        return out

    def deserialize(self, buffer, offset):
        """[(data, ZnodeStat) or the KazooException of that path], in request order."""
        results = []
        header, offset = MultiHeader.deserialize(buffer, offset)
        while not header.done:
            if header.type == GET_DATA:
                data, offset = read_buffer(buffer, offset)
                stat = ZnodeStat._make(stat_struct.unpack_from(buffer, offset))
                offset += stat_struct.size
                results.append((data, stat))
            elif header.type == ERROR:
                code = int_struct.unpack_from(buffer, offset)[0]
                offset += int_struct.size
                results.append(EXCEPTIONS[code]())
            else:
                raise ValueError("unexpected multiRead result type %d" % header.type)
            header, offset = MultiHeader.deserialize(buffer, offset)
        return results

    def __repr__(self):
        return "MultiRead(%d paths)" % len(self.paths)
