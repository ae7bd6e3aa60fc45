"""The generated readers and writers of the hot messages (Produce, Fetch), for the twins to compile.

Written by `python -m kafka_zk.tools.compile_twins codecs` (kafka_zk/protocol/codec_module.py); never edit it by
hand. Each factory takes the environment its source names (readers, writers, structs, defaults) and returns the
function; kafka_zk/protocol/struct_source.py finds it by the digest of the source it generated, so a stale entry
is never used (that codec is exec'd instead).
"""

# mypy: ignore-errors
# ruff: noqa
# fmt: off


def _reader_ProduceRequest_v0(env):  # the reader of ProduceRequest v0
    default_22 = env['default_22']
    len_15 = env['len_15']
    len_20 = env['len_20']
    len_6 = env['len_6']
    len_9 = env['len_9']
    read_10 = env['read_10']
    read_11 = env['read_11']
    read_21 = env['read_21']
    unpack_17 = env['unpack_17']
    unpack_2 = env['unpack_2']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 6 > end:
            reader.pos = pos
            reader._truncated(6)
        v0, v1, = unpack_2(buf, pos)
        pos += 6
        count4 = len_6(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count4 <= end - pos - 4:
            pos += 4
            v3 = []
            for _ in range(count4):
                size8 = len_9(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size8 <= end - pos - 2:
                    try:
                        v7 = str(buf[pos + 2 : pos + 2 + size8], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_10(reader)
                        raise
                    pos += 2 + size8
                else:
                    reader.pos = pos
                    v7 = read_11(reader)
                    pos = reader.pos
                count13 = len_15(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count13 <= end - pos - 4:
                    pos += 4
                    v12 = []
                    for _ in range(count13):
                        if pos + 4 > end:
                            reader.pos = pos
                            reader._truncated(4)
                        v16, = unpack_17(buf, pos)
                        pos += 4
                        size19 = len_20(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= size19 <= end - pos - 4:
                            v18 = buf[pos + 4 : pos + 4 + size19]
                            pos += 4 + size19
                        elif size19 == -1:
                            v18 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v18 = read_21(reader)
                            pos = reader.pos
                        item14 = {'partition_index': v16, 'records': v18}
                        v12.append(item14)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v12 = None
                item5 = {'name': v7, 'partitions': v12}
                v3.append(item5)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v3 = None
        result = {'acks': v0, 'timeout_ms': v1, 'topics': v3, 'transactional_id': default_22}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceRequest_v0(env):  # the writer of ProduceRequest v0
    default_1 = env['default_1']
    default_13 = env['default_13']
    default_19 = env['default_19']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_3 = env['default_3']
    default_8 = env['default_8']
    errors_24 = env['errors_24']
    locate_25 = env['locate_25']
    pack_0 = env['pack_0']
    pack_11 = env['pack_11']
    pack_17 = env['pack_17']
    pack_18 = env['pack_18']
    pack_22 = env['pack_22']
    pack_7 = env['pack_7']
    write_12 = env['write_12']
    write_16 = env['write_16']
    write_23 = env['write_23']
    write_6 = env['write_6']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['acks'], obj['timeout_ms'])
            except KeyError:
                buf += pack_0(obj.get('acks', default_1), obj.get('timeout_ms', default_2))
            try:
                v4 = obj['topics']
            except KeyError:
                v4 = default_3
            if v4 is None:
                write_6(writer, None)
            else:
                buf += pack_7(len(v4))
                for item5 in v4:
                    try:
                        v9 = item5['name']
                    except KeyError:
                        v9 = default_8
                    if v9.__class__ is str:
                        data10 = v9.encode('utf-8')
                        buf += pack_11(len(data10))
                        buf += data10
                    else:
                        write_12(writer, v9)
                    try:
                        v14 = item5['partitions']
                    except KeyError:
                        v14 = default_13
                    if v14 is None:
                        write_16(writer, None)
                    else:
                        buf += pack_17(len(v14))
                        for item15 in v14:
                            try:
                                buf += pack_18(item15['partition_index'])
                            except KeyError:
                                buf += pack_18(item15.get('partition_index', default_19))
                            try:
                                v21 = item15['records']
                            except KeyError:
                                v21 = default_20
                            if v21.__class__ is bytes and len(v21) < 1024:
                                buf += pack_22(len(v21))
                                buf += v21
                            else:
                                write_23(writer, v21)
                                buf = writer.buf
        except errors_24 as exc:
            if not getattr(exc, 'located', False):
                locate_25(obj)
            raise
    return write_fields

def _reader_ProduceRequest_v3(env):  # the reader of ProduceRequest v3
    len_11 = env['len_11']
    len_14 = env['len_14']
    len_2 = env['len_2']
    len_20 = env['len_20']
    len_25 = env['len_25']
    read_15 = env['read_15']
    read_16 = env['read_16']
    read_26 = env['read_26']
    read_3 = env['read_3']
    read_4 = env['read_4']
    unpack_22 = env['unpack_22']
    unpack_7 = env['unpack_7']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        size1 = len_2(buf, pos)[0] if pos + 2 <= end else -2
        if 0 <= size1 <= end - pos - 2:
            try:
                v0 = str(buf[pos + 2 : pos + 2 + size1], 'utf-8')
            except UnicodeDecodeError:
                reader.pos = pos
                read_3(reader)
                raise
            pos += 2 + size1
        elif size1 == -1:
            v0 = None
            pos += 2
        else:
            reader.pos = pos
            v0 = read_4(reader)
            pos = reader.pos
        if pos + 6 > end:
            reader.pos = pos
            reader._truncated(6)
        v5, v6, = unpack_7(buf, pos)
        pos += 6
        count9 = len_11(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count9 <= end - pos - 4:
            pos += 4
            v8 = []
            for _ in range(count9):
                size13 = len_14(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size13 <= end - pos - 2:
                    try:
                        v12 = str(buf[pos + 2 : pos + 2 + size13], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_15(reader)
                        raise
                    pos += 2 + size13
                else:
                    reader.pos = pos
                    v12 = read_16(reader)
                    pos = reader.pos
                count18 = len_20(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count18 <= end - pos - 4:
                    pos += 4
                    v17 = []
                    for _ in range(count18):
                        if pos + 4 > end:
                            reader.pos = pos
                            reader._truncated(4)
                        v21, = unpack_22(buf, pos)
                        pos += 4
                        size24 = len_25(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= size24 <= end - pos - 4:
                            v23 = buf[pos + 4 : pos + 4 + size24]
                            pos += 4 + size24
                        elif size24 == -1:
                            v23 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v23 = read_26(reader)
                            pos = reader.pos
                        item19 = {'partition_index': v21, 'records': v23}
                        v17.append(item19)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v17 = None
                item10 = {'name': v12, 'partitions': v17}
                v8.append(item10)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v8 = None
        result = {'transactional_id': v0, 'acks': v5, 'timeout_ms': v6, 'topics': v8}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceRequest_v3(env):  # the writer of ProduceRequest v3
    default_0 = env['default_0']
    default_13 = env['default_13']
    default_18 = env['default_18']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_6 = env['default_6']
    default_7 = env['default_7']
    default_8 = env['default_8']
    errors_29 = env['errors_29']
    locate_30 = env['locate_30']
    pack_12 = env['pack_12']
    pack_16 = env['pack_16']
    pack_22 = env['pack_22']
    pack_23 = env['pack_23']
    pack_27 = env['pack_27']
    pack_3 = env['pack_3']
    pack_5 = env['pack_5']
    write_11 = env['write_11']
    write_17 = env['write_17']
    write_21 = env['write_21']
    write_28 = env['write_28']
    write_4 = env['write_4']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                v1 = obj['transactional_id']
            except KeyError:
                v1 = default_0
            if v1 is None:
                buf += b'\xff\xff'
            elif v1.__class__ is str:
                data2 = v1.encode('utf-8')
                buf += pack_3(len(data2))
                buf += data2
            else:
                write_4(writer, v1)
            try:
                buf += pack_5(obj['acks'], obj['timeout_ms'])
            except KeyError:
                buf += pack_5(obj.get('acks', default_6), obj.get('timeout_ms', default_7))
            try:
                v9 = obj['topics']
            except KeyError:
                v9 = default_8
            if v9 is None:
                write_11(writer, None)
            else:
                buf += pack_12(len(v9))
                for item10 in v9:
                    try:
                        v14 = item10['name']
                    except KeyError:
                        v14 = default_13
                    if v14.__class__ is str:
                        data15 = v14.encode('utf-8')
                        buf += pack_16(len(data15))
                        buf += data15
                    else:
                        write_17(writer, v14)
                    try:
                        v19 = item10['partitions']
                    except KeyError:
                        v19 = default_18
                    if v19 is None:
                        write_21(writer, None)
                    else:
                        buf += pack_22(len(v19))
                        for item20 in v19:
                            try:
                                buf += pack_23(item20['partition_index'])
                            except KeyError:
                                buf += pack_23(item20.get('partition_index', default_24))
                            try:
                                v26 = item20['records']
                            except KeyError:
                                v26 = default_25
                            if v26.__class__ is bytes and len(v26) < 1024:
                                buf += pack_27(len(v26))
                                buf += v26
                            else:
                                write_28(writer, v26)
                                buf = writer.buf
        except errors_29 as exc:
            if not getattr(exc, 'located', False):
                locate_30(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v0(env):  # the reader of ProduceResponse v0
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_20 = env['default_20']
    default_21 = env['default_21']
    len_12 = env['len_12']
    len_3 = env['len_3']
    len_6 = env['len_6']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_16 = env['unpack_16']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_3(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count1 <= end - pos - 4:
            pos += 4
            v0 = []
            for _ in range(count1):
                size5 = len_6(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size5 <= end - pos - 2:
                    try:
                        v4 = str(buf[pos + 2 : pos + 2 + size5], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_7(reader)
                        raise
                    pos += 2 + size5
                else:
                    reader.pos = pos
                    v4 = read_8(reader)
                    pos = reader.pos
                count10 = len_12(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 14 > end:
                            reader.pos = pos
                            reader._truncated(14)
                        v13, v14, v15, = unpack_16(buf, pos)
                        pos += 14
                        item11 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': default_17, 'log_start_offset': default_18, 'record_errors': list(default_19), 'error_message': default_20}
                        v9.append(item11)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item2 = {'name': v4, 'partitions': v9}
                v0.append(item2)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v0 = None
        result = {'responses': v0, 'throttle_time_ms': default_21}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceResponse_v0(env):  # the writer of ProduceResponse v0
    default_0 = env['default_0']
    default_10 = env['default_10']
    default_16 = env['default_16']
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_5 = env['default_5']
    errors_19 = env['errors_19']
    locate_20 = env['locate_20']
    pack_14 = env['pack_14']
    pack_15 = env['pack_15']
    pack_4 = env['pack_4']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_3 = env['write_3']
    write_9 = env['write_9']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                v1 = obj['responses']
            except KeyError:
                v1 = default_0
            if v1 is None:
                write_3(writer, None)
            else:
                buf += pack_4(len(v1))
                for item2 in v1:
                    try:
                        v6 = item2['name']
                    except KeyError:
                        v6 = default_5
                    if v6.__class__ is str:
                        data7 = v6.encode('utf-8')
                        buf += pack_8(len(data7))
                        buf += data7
                    else:
                        write_9(writer, v6)
                    try:
                        v11 = item2['partitions']
                    except KeyError:
                        v11 = default_10
                    if v11 is None:
                        write_13(writer, None)
                    else:
                        buf += pack_14(len(v11))
                        for item12 in v11:
                            try:
                                buf += pack_15(item12['partition_index'], item12['error_code'], item12['base_offset'])
                            except KeyError:
                                buf += pack_15(item12.get('partition_index', default_16), item12.get('error_code', default_17), item12.get('base_offset', default_18))
        except errors_19 as exc:
            if not getattr(exc, 'located', False):
                locate_20(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v1(env):  # the reader of ProduceResponse v1
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_20 = env['default_20']
    len_12 = env['len_12']
    len_3 = env['len_3']
    len_6 = env['len_6']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_16 = env['unpack_16']
    unpack_22 = env['unpack_22']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_3(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count1 <= end - pos - 4:
            pos += 4
            v0 = []
            for _ in range(count1):
                size5 = len_6(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size5 <= end - pos - 2:
                    try:
                        v4 = str(buf[pos + 2 : pos + 2 + size5], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_7(reader)
                        raise
                    pos += 2 + size5
                else:
                    reader.pos = pos
                    v4 = read_8(reader)
                    pos = reader.pos
                count10 = len_12(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 14 > end:
                            reader.pos = pos
                            reader._truncated(14)
                        v13, v14, v15, = unpack_16(buf, pos)
                        pos += 14
                        item11 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': default_17, 'log_start_offset': default_18, 'record_errors': list(default_19), 'error_message': default_20}
                        v9.append(item11)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item2 = {'name': v4, 'partitions': v9}
                v0.append(item2)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v0 = None
        if pos + 4 > end:
            reader.pos = pos
            reader._truncated(4)
        v21, = unpack_22(buf, pos)
        pos += 4
        result = {'responses': v0, 'throttle_time_ms': v21}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceResponse_v1(env):  # the writer of ProduceResponse v1
    default_0 = env['default_0']
    default_10 = env['default_10']
    default_16 = env['default_16']
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_20 = env['default_20']
    default_5 = env['default_5']
    errors_21 = env['errors_21']
    locate_22 = env['locate_22']
    pack_14 = env['pack_14']
    pack_15 = env['pack_15']
    pack_19 = env['pack_19']
    pack_4 = env['pack_4']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_3 = env['write_3']
    write_9 = env['write_9']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                v1 = obj['responses']
            except KeyError:
                v1 = default_0
            if v1 is None:
                write_3(writer, None)
            else:
                buf += pack_4(len(v1))
                for item2 in v1:
                    try:
                        v6 = item2['name']
                    except KeyError:
                        v6 = default_5
                    if v6.__class__ is str:
                        data7 = v6.encode('utf-8')
                        buf += pack_8(len(data7))
                        buf += data7
                    else:
                        write_9(writer, v6)
                    try:
                        v11 = item2['partitions']
                    except KeyError:
                        v11 = default_10
                    if v11 is None:
                        write_13(writer, None)
                    else:
                        buf += pack_14(len(v11))
                        for item12 in v11:
                            try:
                                buf += pack_15(item12['partition_index'], item12['error_code'], item12['base_offset'])
                            except KeyError:
                                buf += pack_15(item12.get('partition_index', default_16), item12.get('error_code', default_17), item12.get('base_offset', default_18))
            try:
                buf += pack_19(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_19(obj.get('throttle_time_ms', default_20))
        except errors_21 as exc:
            if not getattr(exc, 'located', False):
                locate_22(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v2(env):  # the reader of ProduceResponse v2
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_20 = env['default_20']
    len_12 = env['len_12']
    len_3 = env['len_3']
    len_6 = env['len_6']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_17 = env['unpack_17']
    unpack_22 = env['unpack_22']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_3(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count1 <= end - pos - 4:
            pos += 4
            v0 = []
            for _ in range(count1):
                size5 = len_6(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size5 <= end - pos - 2:
                    try:
                        v4 = str(buf[pos + 2 : pos + 2 + size5], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_7(reader)
                        raise
                    pos += 2 + size5
                else:
                    reader.pos = pos
                    v4 = read_8(reader)
                    pos = reader.pos
                count10 = len_12(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 22 > end:
                            reader.pos = pos
                            reader._truncated(22)
                        v13, v14, v15, v16, = unpack_17(buf, pos)
                        pos += 22
                        item11 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': v16, 'log_start_offset': default_18, 'record_errors': list(default_19), 'error_message': default_20}
                        v9.append(item11)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item2 = {'name': v4, 'partitions': v9}
                v0.append(item2)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v0 = None
        if pos + 4 > end:
            reader.pos = pos
            reader._truncated(4)
        v21, = unpack_22(buf, pos)
        pos += 4
        result = {'responses': v0, 'throttle_time_ms': v21}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceResponse_v2(env):  # the writer of ProduceResponse v2
    default_0 = env['default_0']
    default_10 = env['default_10']
    default_16 = env['default_16']
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_21 = env['default_21']
    default_5 = env['default_5']
    errors_22 = env['errors_22']
    locate_23 = env['locate_23']
    pack_14 = env['pack_14']
    pack_15 = env['pack_15']
    pack_20 = env['pack_20']
    pack_4 = env['pack_4']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_3 = env['write_3']
    write_9 = env['write_9']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                v1 = obj['responses']
            except KeyError:
                v1 = default_0
            if v1 is None:
                write_3(writer, None)
            else:
                buf += pack_4(len(v1))
                for item2 in v1:
                    try:
                        v6 = item2['name']
                    except KeyError:
                        v6 = default_5
                    if v6.__class__ is str:
                        data7 = v6.encode('utf-8')
                        buf += pack_8(len(data7))
                        buf += data7
                    else:
                        write_9(writer, v6)
                    try:
                        v11 = item2['partitions']
                    except KeyError:
                        v11 = default_10
                    if v11 is None:
                        write_13(writer, None)
                    else:
                        buf += pack_14(len(v11))
                        for item12 in v11:
                            try:
                                buf += pack_15(item12['partition_index'], item12['error_code'], item12['base_offset'], item12['log_append_time_ms'])
                            except KeyError:
                                buf += pack_15(item12.get('partition_index', default_16), item12.get('error_code', default_17), item12.get('base_offset', default_18), item12.get('log_append_time_ms', default_19))
            try:
                buf += pack_20(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_20(obj.get('throttle_time_ms', default_21))
        except errors_22 as exc:
            if not getattr(exc, 'located', False):
                locate_23(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v5(env):  # the reader of ProduceResponse v5
    default_19 = env['default_19']
    default_20 = env['default_20']
    len_12 = env['len_12']
    len_3 = env['len_3']
    len_6 = env['len_6']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_18 = env['unpack_18']
    unpack_22 = env['unpack_22']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_3(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count1 <= end - pos - 4:
            pos += 4
            v0 = []
            for _ in range(count1):
                size5 = len_6(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size5 <= end - pos - 2:
                    try:
                        v4 = str(buf[pos + 2 : pos + 2 + size5], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_7(reader)
                        raise
                    pos += 2 + size5
                else:
                    reader.pos = pos
                    v4 = read_8(reader)
                    pos = reader.pos
                count10 = len_12(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 30 > end:
                            reader.pos = pos
                            reader._truncated(30)
                        v13, v14, v15, v16, v17, = unpack_18(buf, pos)
                        pos += 30
                        item11 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': v16, 'log_start_offset': v17, 'record_errors': list(default_19), 'error_message': default_20}
                        v9.append(item11)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item2 = {'name': v4, 'partitions': v9}
                v0.append(item2)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v0 = None
        if pos + 4 > end:
            reader.pos = pos
            reader._truncated(4)
        v21, = unpack_22(buf, pos)
        pos += 4
        result = {'responses': v0, 'throttle_time_ms': v21}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceResponse_v5(env):  # the writer of ProduceResponse v5
    default_0 = env['default_0']
    default_10 = env['default_10']
    default_16 = env['default_16']
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_20 = env['default_20']
    default_22 = env['default_22']
    default_5 = env['default_5']
    errors_23 = env['errors_23']
    locate_24 = env['locate_24']
    pack_14 = env['pack_14']
    pack_15 = env['pack_15']
    pack_21 = env['pack_21']
    pack_4 = env['pack_4']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_3 = env['write_3']
    write_9 = env['write_9']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                v1 = obj['responses']
            except KeyError:
                v1 = default_0
            if v1 is None:
                write_3(writer, None)
            else:
                buf += pack_4(len(v1))
                for item2 in v1:
                    try:
                        v6 = item2['name']
                    except KeyError:
                        v6 = default_5
                    if v6.__class__ is str:
                        data7 = v6.encode('utf-8')
                        buf += pack_8(len(data7))
                        buf += data7
                    else:
                        write_9(writer, v6)
                    try:
                        v11 = item2['partitions']
                    except KeyError:
                        v11 = default_10
                    if v11 is None:
                        write_13(writer, None)
                    else:
                        buf += pack_14(len(v11))
                        for item12 in v11:
                            try:
                                buf += pack_15(item12['partition_index'], item12['error_code'], item12['base_offset'], item12['log_append_time_ms'], item12['log_start_offset'])
                            except KeyError:
                                buf += pack_15(item12.get('partition_index', default_16), item12.get('error_code', default_17), item12.get('base_offset', default_18), item12.get('log_append_time_ms', default_19), item12.get('log_start_offset', default_20))
            try:
                buf += pack_21(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_21(obj.get('throttle_time_ms', default_22))
        except errors_23 as exc:
            if not getattr(exc, 'located', False):
                locate_24(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v8(env):  # the reader of ProduceResponse v8
    len_12 = env['len_12']
    len_22 = env['len_22']
    len_27 = env['len_27']
    len_3 = env['len_3']
    len_32 = env['len_32']
    len_6 = env['len_6']
    read_28 = env['read_28']
    read_29 = env['read_29']
    read_33 = env['read_33']
    read_34 = env['read_34']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_18 = env['unpack_18']
    unpack_24 = env['unpack_24']
    unpack_36 = env['unpack_36']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_3(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count1 <= end - pos - 4:
            pos += 4
            v0 = []
            for _ in range(count1):
                size5 = len_6(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size5 <= end - pos - 2:
                    try:
                        v4 = str(buf[pos + 2 : pos + 2 + size5], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_7(reader)
                        raise
                    pos += 2 + size5
                else:
                    reader.pos = pos
                    v4 = read_8(reader)
                    pos = reader.pos
                count10 = len_12(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 30 > end:
                            reader.pos = pos
                            reader._truncated(30)
                        v13, v14, v15, v16, v17, = unpack_18(buf, pos)
                        pos += 30
                        count20 = len_22(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= count20 <= end - pos - 4:
                            pos += 4
                            v19 = []
                            for _ in range(count20):
                                if pos + 4 > end:
                                    reader.pos = pos
                                    reader._truncated(4)
                                v23, = unpack_24(buf, pos)
                                pos += 4
                                size26 = len_27(buf, pos)[0] if pos + 2 <= end else -2
                                if 0 <= size26 <= end - pos - 2:
                                    try:
                                        v25 = str(buf[pos + 2 : pos + 2 + size26], 'utf-8')
                                    except UnicodeDecodeError:
                                        reader.pos = pos
                                        read_28(reader)
                                        raise
                                    pos += 2 + size26
                                elif size26 == -1:
                                    v25 = None
                                    pos += 2
                                else:
                                    reader.pos = pos
                                    v25 = read_29(reader)
                                    pos = reader.pos
                                item21 = {'batch_index': v23, 'batch_index_error_message': v25}
                                v19.append(item21)
                        else:
                            reader.pos = pos
                            reader.array_length(False, False)
                            pos = reader.pos
                            v19 = None
                        size31 = len_32(buf, pos)[0] if pos + 2 <= end else -2
                        if 0 <= size31 <= end - pos - 2:
                            try:
                                v30 = str(buf[pos + 2 : pos + 2 + size31], 'utf-8')
                            except UnicodeDecodeError:
                                reader.pos = pos
                                read_33(reader)
                                raise
                            pos += 2 + size31
                        elif size31 == -1:
                            v30 = None
                            pos += 2
                        else:
                            reader.pos = pos
                            v30 = read_34(reader)
                            pos = reader.pos
                        item11 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': v16, 'log_start_offset': v17, 'record_errors': v19, 'error_message': v30}
                        v9.append(item11)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item2 = {'name': v4, 'partitions': v9}
                v0.append(item2)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v0 = None
        if pos + 4 > end:
            reader.pos = pos
            reader._truncated(4)
        v35, = unpack_36(buf, pos)
        pos += 4
        result = {'responses': v0, 'throttle_time_ms': v35}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceResponse_v8(env):  # the writer of ProduceResponse v8
    default_0 = env['default_0']
    default_10 = env['default_10']
    default_16 = env['default_16']
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_20 = env['default_20']
    default_21 = env['default_21']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_33 = env['default_33']
    default_38 = env['default_38']
    default_5 = env['default_5']
    errors_39 = env['errors_39']
    locate_40 = env['locate_40']
    pack_14 = env['pack_14']
    pack_15 = env['pack_15']
    pack_25 = env['pack_25']
    pack_26 = env['pack_26']
    pack_31 = env['pack_31']
    pack_37 = env['pack_37']
    pack_4 = env['pack_4']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_24 = env['write_24']
    write_3 = env['write_3']
    write_32 = env['write_32']
    write_36 = env['write_36']
    write_9 = env['write_9']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                v1 = obj['responses']
            except KeyError:
                v1 = default_0
            if v1 is None:
                write_3(writer, None)
            else:
                buf += pack_4(len(v1))
                for item2 in v1:
                    try:
                        v6 = item2['name']
                    except KeyError:
                        v6 = default_5
                    if v6.__class__ is str:
                        data7 = v6.encode('utf-8')
                        buf += pack_8(len(data7))
                        buf += data7
                    else:
                        write_9(writer, v6)
                    try:
                        v11 = item2['partitions']
                    except KeyError:
                        v11 = default_10
                    if v11 is None:
                        write_13(writer, None)
                    else:
                        buf += pack_14(len(v11))
                        for item12 in v11:
                            try:
                                buf += pack_15(item12['partition_index'], item12['error_code'], item12['base_offset'], item12['log_append_time_ms'], item12['log_start_offset'])
                            except KeyError:
                                buf += pack_15(item12.get('partition_index', default_16), item12.get('error_code', default_17), item12.get('base_offset', default_18), item12.get('log_append_time_ms', default_19), item12.get('log_start_offset', default_20))
                            try:
                                v22 = item12['record_errors']
                            except KeyError:
                                v22 = default_21
                            if v22 is None:
                                write_24(writer, None)
                            else:
                                buf += pack_25(len(v22))
                                for item23 in v22:
                                    try:
                                        buf += pack_26(item23['batch_index'])
                                    except KeyError:
                                        buf += pack_26(item23.get('batch_index', default_27))
                                    try:
                                        v29 = item23['batch_index_error_message']
                                    except KeyError:
                                        v29 = default_28
                                    if v29 is None:
                                        buf += b'\xff\xff'
                                    elif v29.__class__ is str:
                                        data30 = v29.encode('utf-8')
                                        buf += pack_31(len(data30))
                                        buf += data30
                                    else:
                                        write_32(writer, v29)
                            try:
                                v34 = item12['error_message']
                            except KeyError:
                                v34 = default_33
                            if v34 is None:
                                buf += b'\xff\xff'
                            else:
                                write_36(writer, v34)
            try:
                buf += pack_37(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_37(obj.get('throttle_time_ms', default_38))
        except errors_39 as exc:
            if not getattr(exc, 'located', False):
                locate_40(obj)
            raise
    return write_fields

def _reader_FetchRequest_v0(env):  # the reader of FetchRequest v0
    default_21 = env['default_21']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    len_10 = env['len_10']
    len_16 = env['len_16']
    len_7 = env['len_7']
    read_11 = env['read_11']
    read_12 = env['read_12']
    unpack_20 = env['unpack_20']
    unpack_3 = env['unpack_3']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 12 > end:
            reader.pos = pos
            reader._truncated(12)
        v0, v1, v2, = unpack_3(buf, pos)
        pos += 12
        count5 = len_7(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count5 <= end - pos - 4:
            pos += 4
            v4 = []
            for _ in range(count5):
                size9 = len_10(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size9 <= end - pos - 2:
                    try:
                        v8 = str(buf[pos + 2 : pos + 2 + size9], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_11(reader)
                        raise
                    pos += 2 + size9
                else:
                    reader.pos = pos
                    v8 = read_12(reader)
                    pos = reader.pos
                count14 = len_16(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count14 <= end - pos - 4:
                    pos += 4
                    v13 = []
                    for _ in range(count14):
                        if pos + 16 > end:
                            reader.pos = pos
                            reader._truncated(16)
                        v17, v18, v19, = unpack_20(buf, pos)
                        pos += 16
                        item15 = {'partition': v17, 'fetch_offset': v18, 'partition_max_bytes': v19, 'current_leader_epoch': default_21, 'log_start_offset': default_22}
                        v13.append(item15)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v13 = None
                item6 = {'topic': v8, 'partitions': v13}
                v4.append(item6)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v4 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'topics': v4, 'max_bytes': default_23, 'isolation_level': default_24, 'session_id': default_25, 'session_epoch': default_26, 'forgotten_topics_data': list(default_27), 'rack_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v0(env):  # the writer of FetchRequest v0
    default_1 = env['default_1']
    default_14 = env['default_14']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_21 = env['default_21']
    default_22 = env['default_22']
    default_3 = env['default_3']
    default_4 = env['default_4']
    default_9 = env['default_9']
    errors_23 = env['errors_23']
    locate_24 = env['locate_24']
    pack_0 = env['pack_0']
    pack_12 = env['pack_12']
    pack_18 = env['pack_18']
    pack_19 = env['pack_19']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_7 = env['write_7']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['replica_id'], obj['max_wait_ms'], obj['min_bytes'])
            except KeyError:
                buf += pack_0(obj.get('replica_id', default_1), obj.get('max_wait_ms', default_2), obj.get('min_bytes', default_3))
            try:
                v5 = obj['topics']
            except KeyError:
                v5 = default_4
            if v5 is None:
                write_7(writer, None)
            else:
                buf += pack_8(len(v5))
                for item6 in v5:
                    try:
                        v10 = item6['topic']
                    except KeyError:
                        v10 = default_9
                    if v10.__class__ is str:
                        data11 = v10.encode('utf-8')
                        buf += pack_12(len(data11))
                        buf += data11
                    else:
                        write_13(writer, v10)
                    try:
                        v15 = item6['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        buf += pack_18(len(v15))
                        for item16 in v15:
                            try:
                                buf += pack_19(item16['partition'], item16['fetch_offset'], item16['partition_max_bytes'])
                            except KeyError:
                                buf += pack_19(item16.get('partition', default_20), item16.get('fetch_offset', default_21), item16.get('partition_max_bytes', default_22))
        except errors_23 as exc:
            if not getattr(exc, 'located', False):
                locate_24(obj)
            raise
    return write_fields

def _reader_FetchRequest_v3(env):  # the reader of FetchRequest v3
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    len_11 = env['len_11']
    len_17 = env['len_17']
    len_8 = env['len_8']
    read_12 = env['read_12']
    read_13 = env['read_13']
    unpack_21 = env['unpack_21']
    unpack_4 = env['unpack_4']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 16 > end:
            reader.pos = pos
            reader._truncated(16)
        v0, v1, v2, v3, = unpack_4(buf, pos)
        pos += 16
        count6 = len_8(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count6 <= end - pos - 4:
            pos += 4
            v5 = []
            for _ in range(count6):
                size10 = len_11(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size10 <= end - pos - 2:
                    try:
                        v9 = str(buf[pos + 2 : pos + 2 + size10], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_12(reader)
                        raise
                    pos += 2 + size10
                else:
                    reader.pos = pos
                    v9 = read_13(reader)
                    pos = reader.pos
                count15 = len_17(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count15 <= end - pos - 4:
                    pos += 4
                    v14 = []
                    for _ in range(count15):
                        if pos + 16 > end:
                            reader.pos = pos
                            reader._truncated(16)
                        v18, v19, v20, = unpack_21(buf, pos)
                        pos += 16
                        item16 = {'partition': v18, 'fetch_offset': v19, 'partition_max_bytes': v20, 'current_leader_epoch': default_22, 'log_start_offset': default_23}
                        v14.append(item16)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v14 = None
                item7 = {'topic': v9, 'partitions': v14}
                v5.append(item7)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v5 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'topics': v5, 'isolation_level': default_24, 'session_id': default_25, 'session_epoch': default_26, 'forgotten_topics_data': list(default_27), 'rack_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v3(env):  # the writer of FetchRequest v3
    default_1 = env['default_1']
    default_10 = env['default_10']
    default_15 = env['default_15']
    default_2 = env['default_2']
    default_21 = env['default_21']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_3 = env['default_3']
    default_4 = env['default_4']
    default_5 = env['default_5']
    errors_24 = env['errors_24']
    locate_25 = env['locate_25']
    pack_0 = env['pack_0']
    pack_13 = env['pack_13']
    pack_19 = env['pack_19']
    pack_20 = env['pack_20']
    pack_9 = env['pack_9']
    write_14 = env['write_14']
    write_18 = env['write_18']
    write_8 = env['write_8']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['replica_id'], obj['max_wait_ms'], obj['min_bytes'], obj['max_bytes'])
            except KeyError:
                buf += pack_0(obj.get('replica_id', default_1), obj.get('max_wait_ms', default_2), obj.get('min_bytes', default_3), obj.get('max_bytes', default_4))
            try:
                v6 = obj['topics']
            except KeyError:
                v6 = default_5
            if v6 is None:
                write_8(writer, None)
            else:
                buf += pack_9(len(v6))
                for item7 in v6:
                    try:
                        v11 = item7['topic']
                    except KeyError:
                        v11 = default_10
                    if v11.__class__ is str:
                        data12 = v11.encode('utf-8')
                        buf += pack_13(len(data12))
                        buf += data12
                    else:
                        write_14(writer, v11)
                    try:
                        v16 = item7['partitions']
                    except KeyError:
                        v16 = default_15
                    if v16 is None:
                        write_18(writer, None)
                    else:
                        buf += pack_19(len(v16))
                        for item17 in v16:
                            try:
                                buf += pack_20(item17['partition'], item17['fetch_offset'], item17['partition_max_bytes'])
                            except KeyError:
                                buf += pack_20(item17.get('partition', default_21), item17.get('fetch_offset', default_22), item17.get('partition_max_bytes', default_23))
        except errors_24 as exc:
            if not getattr(exc, 'located', False):
                locate_25(obj)
            raise
    return write_fields

def _reader_FetchRequest_v4(env):  # the reader of FetchRequest v4
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    len_12 = env['len_12']
    len_18 = env['len_18']
    len_9 = env['len_9']
    read_13 = env['read_13']
    read_14 = env['read_14']
    unpack_22 = env['unpack_22']
    unpack_5 = env['unpack_5']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 17 > end:
            reader.pos = pos
            reader._truncated(17)
        v0, v1, v2, v3, v4, = unpack_5(buf, pos)
        pos += 17
        count7 = len_9(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count7 <= end - pos - 4:
            pos += 4
            v6 = []
            for _ in range(count7):
                size11 = len_12(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size11 <= end - pos - 2:
                    try:
                        v10 = str(buf[pos + 2 : pos + 2 + size11], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_13(reader)
                        raise
                    pos += 2 + size11
                else:
                    reader.pos = pos
                    v10 = read_14(reader)
                    pos = reader.pos
                count16 = len_18(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count16 <= end - pos - 4:
                    pos += 4
                    v15 = []
                    for _ in range(count16):
                        if pos + 16 > end:
                            reader.pos = pos
                            reader._truncated(16)
                        v19, v20, v21, = unpack_22(buf, pos)
                        pos += 16
                        item17 = {'partition': v19, 'fetch_offset': v20, 'partition_max_bytes': v21, 'current_leader_epoch': default_23, 'log_start_offset': default_24}
                        v15.append(item17)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v15 = None
                item8 = {'topic': v10, 'partitions': v15}
                v6.append(item8)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v6 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'topics': v6, 'session_id': default_25, 'session_epoch': default_26, 'forgotten_topics_data': list(default_27), 'rack_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v4(env):  # the writer of FetchRequest v4
    default_1 = env['default_1']
    default_11 = env['default_11']
    default_16 = env['default_16']
    default_2 = env['default_2']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_3 = env['default_3']
    default_4 = env['default_4']
    default_5 = env['default_5']
    default_6 = env['default_6']
    errors_25 = env['errors_25']
    locate_26 = env['locate_26']
    pack_0 = env['pack_0']
    pack_10 = env['pack_10']
    pack_14 = env['pack_14']
    pack_20 = env['pack_20']
    pack_21 = env['pack_21']
    write_15 = env['write_15']
    write_19 = env['write_19']
    write_9 = env['write_9']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['replica_id'], obj['max_wait_ms'], obj['min_bytes'], obj['max_bytes'], obj['isolation_level'])
            except KeyError:
                buf += pack_0(obj.get('replica_id', default_1), obj.get('max_wait_ms', default_2), obj.get('min_bytes', default_3), obj.get('max_bytes', default_4), obj.get('isolation_level', default_5))
            try:
                v7 = obj['topics']
            except KeyError:
                v7 = default_6
            if v7 is None:
                write_9(writer, None)
            else:
                buf += pack_10(len(v7))
                for item8 in v7:
                    try:
                        v12 = item8['topic']
                    except KeyError:
                        v12 = default_11
                    if v12.__class__ is str:
                        data13 = v12.encode('utf-8')
                        buf += pack_14(len(data13))
                        buf += data13
                    else:
                        write_15(writer, v12)
                    try:
                        v17 = item8['partitions']
                    except KeyError:
                        v17 = default_16
                    if v17 is None:
                        write_19(writer, None)
                    else:
                        buf += pack_20(len(v17))
                        for item18 in v17:
                            try:
                                buf += pack_21(item18['partition'], item18['fetch_offset'], item18['partition_max_bytes'])
                            except KeyError:
                                buf += pack_21(item18.get('partition', default_22), item18.get('fetch_offset', default_23), item18.get('partition_max_bytes', default_24))
        except errors_25 as exc:
            if not getattr(exc, 'located', False):
                locate_26(obj)
            raise
    return write_fields

def _reader_FetchRequest_v5(env):  # the reader of FetchRequest v5
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    len_12 = env['len_12']
    len_18 = env['len_18']
    len_9 = env['len_9']
    read_13 = env['read_13']
    read_14 = env['read_14']
    unpack_23 = env['unpack_23']
    unpack_5 = env['unpack_5']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 17 > end:
            reader.pos = pos
            reader._truncated(17)
        v0, v1, v2, v3, v4, = unpack_5(buf, pos)
        pos += 17
        count7 = len_9(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count7 <= end - pos - 4:
            pos += 4
            v6 = []
            for _ in range(count7):
                size11 = len_12(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size11 <= end - pos - 2:
                    try:
                        v10 = str(buf[pos + 2 : pos + 2 + size11], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_13(reader)
                        raise
                    pos += 2 + size11
                else:
                    reader.pos = pos
                    v10 = read_14(reader)
                    pos = reader.pos
                count16 = len_18(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count16 <= end - pos - 4:
                    pos += 4
                    v15 = []
                    for _ in range(count16):
                        if pos + 24 > end:
                            reader.pos = pos
                            reader._truncated(24)
                        v19, v20, v21, v22, = unpack_23(buf, pos)
                        pos += 24
                        item17 = {'partition': v19, 'fetch_offset': v20, 'log_start_offset': v21, 'partition_max_bytes': v22, 'current_leader_epoch': default_24}
                        v15.append(item17)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v15 = None
                item8 = {'topic': v10, 'partitions': v15}
                v6.append(item8)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v6 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'topics': v6, 'session_id': default_25, 'session_epoch': default_26, 'forgotten_topics_data': list(default_27), 'rack_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v5(env):  # the writer of FetchRequest v5
    default_1 = env['default_1']
    default_11 = env['default_11']
    default_16 = env['default_16']
    default_2 = env['default_2']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_3 = env['default_3']
    default_4 = env['default_4']
    default_5 = env['default_5']
    default_6 = env['default_6']
    errors_26 = env['errors_26']
    locate_27 = env['locate_27']
    pack_0 = env['pack_0']
    pack_10 = env['pack_10']
    pack_14 = env['pack_14']
    pack_20 = env['pack_20']
    pack_21 = env['pack_21']
    write_15 = env['write_15']
    write_19 = env['write_19']
    write_9 = env['write_9']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['replica_id'], obj['max_wait_ms'], obj['min_bytes'], obj['max_bytes'], obj['isolation_level'])
            except KeyError:
                buf += pack_0(obj.get('replica_id', default_1), obj.get('max_wait_ms', default_2), obj.get('min_bytes', default_3), obj.get('max_bytes', default_4), obj.get('isolation_level', default_5))
            try:
                v7 = obj['topics']
            except KeyError:
                v7 = default_6
            if v7 is None:
                write_9(writer, None)
            else:
                buf += pack_10(len(v7))
                for item8 in v7:
                    try:
                        v12 = item8['topic']
                    except KeyError:
                        v12 = default_11
                    if v12.__class__ is str:
                        data13 = v12.encode('utf-8')
                        buf += pack_14(len(data13))
                        buf += data13
                    else:
                        write_15(writer, v12)
                    try:
                        v17 = item8['partitions']
                    except KeyError:
                        v17 = default_16
                    if v17 is None:
                        write_19(writer, None)
                    else:
                        buf += pack_20(len(v17))
                        for item18 in v17:
                            try:
                                buf += pack_21(item18['partition'], item18['fetch_offset'], item18['log_start_offset'], item18['partition_max_bytes'])
                            except KeyError:
                                buf += pack_21(item18.get('partition', default_22), item18.get('fetch_offset', default_23), item18.get('log_start_offset', default_24), item18.get('partition_max_bytes', default_25))
        except errors_26 as exc:
            if not getattr(exc, 'located', False):
                locate_27(obj)
            raise
    return write_fields

def _reader_FetchRequest_v7(env):  # the reader of FetchRequest v7
    default_26 = env['default_26']
    default_38 = env['default_38']
    len_11 = env['len_11']
    len_14 = env['len_14']
    len_20 = env['len_20']
    len_30 = env['len_30']
    len_33 = env['len_33']
    read_15 = env['read_15']
    read_16 = env['read_16']
    read_34 = env['read_34']
    read_35 = env['read_35']
    read_37 = env['read_37']
    unpack_25 = env['unpack_25']
    unpack_7 = env['unpack_7']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 25 > end:
            reader.pos = pos
            reader._truncated(25)
        v0, v1, v2, v3, v4, v5, v6, = unpack_7(buf, pos)
        pos += 25
        count9 = len_11(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count9 <= end - pos - 4:
            pos += 4
            v8 = []
            for _ in range(count9):
                size13 = len_14(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size13 <= end - pos - 2:
                    try:
                        v12 = str(buf[pos + 2 : pos + 2 + size13], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_15(reader)
                        raise
                    pos += 2 + size13
                else:
                    reader.pos = pos
                    v12 = read_16(reader)
                    pos = reader.pos
                count18 = len_20(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count18 <= end - pos - 4:
                    pos += 4
                    v17 = []
                    for _ in range(count18):
                        if pos + 24 > end:
                            reader.pos = pos
                            reader._truncated(24)
                        v21, v22, v23, v24, = unpack_25(buf, pos)
                        pos += 24
                        item19 = {'partition': v21, 'fetch_offset': v22, 'log_start_offset': v23, 'partition_max_bytes': v24, 'current_leader_epoch': default_26}
                        v17.append(item19)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v17 = None
                item10 = {'topic': v12, 'partitions': v17}
                v8.append(item10)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v8 = None
        count28 = len_30(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count28 <= end - pos - 4:
            pos += 4
            v27 = []
            for _ in range(count28):
                size32 = len_33(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size32 <= end - pos - 2:
                    try:
                        v31 = str(buf[pos + 2 : pos + 2 + size32], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_34(reader)
                        raise
                    pos += 2 + size32
                else:
                    reader.pos = pos
                    v31 = read_35(reader)
                    pos = reader.pos
                reader.pos = pos
                v36 = read_37(reader)
                pos = reader.pos
                item29 = {'topic': v31, 'partitions': v36}
                v27.append(item29)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v27 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'session_id': v5, 'session_epoch': v6, 'topics': v8, 'forgotten_topics_data': v27, 'rack_id': default_38}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v7(env):  # the writer of FetchRequest v7
    default_1 = env['default_1']
    default_13 = env['default_13']
    default_18 = env['default_18']
    default_2 = env['default_2']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_3 = env['default_3']
    default_33 = env['default_33']
    default_38 = env['default_38']
    default_4 = env['default_4']
    default_5 = env['default_5']
    default_6 = env['default_6']
    default_7 = env['default_7']
    default_8 = env['default_8']
    errors_41 = env['errors_41']
    locate_42 = env['locate_42']
    pack_0 = env['pack_0']
    pack_12 = env['pack_12']
    pack_16 = env['pack_16']
    pack_22 = env['pack_22']
    pack_23 = env['pack_23']
    pack_32 = env['pack_32']
    pack_36 = env['pack_36']
    write_11 = env['write_11']
    write_17 = env['write_17']
    write_21 = env['write_21']
    write_31 = env['write_31']
    write_37 = env['write_37']
    write_40 = env['write_40']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['replica_id'], obj['max_wait_ms'], obj['min_bytes'], obj['max_bytes'], obj['isolation_level'], obj['session_id'], obj['session_epoch'])
            except KeyError:
                buf += pack_0(obj.get('replica_id', default_1), obj.get('max_wait_ms', default_2), obj.get('min_bytes', default_3), obj.get('max_bytes', default_4), obj.get('isolation_level', default_5), obj.get('session_id', default_6), obj.get('session_epoch', default_7))
            try:
                v9 = obj['topics']
            except KeyError:
                v9 = default_8
            if v9 is None:
                write_11(writer, None)
            else:
                buf += pack_12(len(v9))
                for item10 in v9:
                    try:
                        v14 = item10['topic']
                    except KeyError:
                        v14 = default_13
                    if v14.__class__ is str:
                        data15 = v14.encode('utf-8')
                        buf += pack_16(len(data15))
                        buf += data15
                    else:
                        write_17(writer, v14)
                    try:
                        v19 = item10['partitions']
                    except KeyError:
                        v19 = default_18
                    if v19 is None:
                        write_21(writer, None)
                    else:
                        buf += pack_22(len(v19))
                        for item20 in v19:
                            try:
                                buf += pack_23(item20['partition'], item20['fetch_offset'], item20['log_start_offset'], item20['partition_max_bytes'])
                            except KeyError:
                                buf += pack_23(item20.get('partition', default_24), item20.get('fetch_offset', default_25), item20.get('log_start_offset', default_26), item20.get('partition_max_bytes', default_27))
            try:
                v29 = obj['forgotten_topics_data']
            except KeyError:
                v29 = default_28
            if v29 is None:
                write_31(writer, None)
            else:
                buf += pack_32(len(v29))
                for item30 in v29:
                    try:
                        v34 = item30['topic']
                    except KeyError:
                        v34 = default_33
                    if v34.__class__ is str:
                        data35 = v34.encode('utf-8')
                        buf += pack_36(len(data35))
                        buf += data35
                    else:
                        write_37(writer, v34)
                    try:
                        v39 = item30['partitions']
                    except KeyError:
                        v39 = default_38
                    write_40(writer, v39)
                    buf = writer.buf
        except errors_41 as exc:
            if not getattr(exc, 'located', False):
                locate_42(obj)
            raise
    return write_fields

def _reader_FetchRequest_v9(env):  # the reader of FetchRequest v9
    default_38 = env['default_38']
    len_11 = env['len_11']
    len_14 = env['len_14']
    len_20 = env['len_20']
    len_30 = env['len_30']
    len_33 = env['len_33']
    read_15 = env['read_15']
    read_16 = env['read_16']
    read_34 = env['read_34']
    read_35 = env['read_35']
    read_37 = env['read_37']
    unpack_26 = env['unpack_26']
    unpack_7 = env['unpack_7']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 25 > end:
            reader.pos = pos
            reader._truncated(25)
        v0, v1, v2, v3, v4, v5, v6, = unpack_7(buf, pos)
        pos += 25
        count9 = len_11(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count9 <= end - pos - 4:
            pos += 4
            v8 = []
            for _ in range(count9):
                size13 = len_14(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size13 <= end - pos - 2:
                    try:
                        v12 = str(buf[pos + 2 : pos + 2 + size13], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_15(reader)
                        raise
                    pos += 2 + size13
                else:
                    reader.pos = pos
                    v12 = read_16(reader)
                    pos = reader.pos
                count18 = len_20(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count18 <= end - pos - 4:
                    pos += 4
                    v17 = []
                    for _ in range(count18):
                        if pos + 28 > end:
                            reader.pos = pos
                            reader._truncated(28)
                        v21, v22, v23, v24, v25, = unpack_26(buf, pos)
                        pos += 28
                        item19 = {'partition': v21, 'current_leader_epoch': v22, 'fetch_offset': v23, 'log_start_offset': v24, 'partition_max_bytes': v25}
                        v17.append(item19)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v17 = None
                item10 = {'topic': v12, 'partitions': v17}
                v8.append(item10)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v8 = None
        count28 = len_30(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count28 <= end - pos - 4:
            pos += 4
            v27 = []
            for _ in range(count28):
                size32 = len_33(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size32 <= end - pos - 2:
                    try:
                        v31 = str(buf[pos + 2 : pos + 2 + size32], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_34(reader)
                        raise
                    pos += 2 + size32
                else:
                    reader.pos = pos
                    v31 = read_35(reader)
                    pos = reader.pos
                reader.pos = pos
                v36 = read_37(reader)
                pos = reader.pos
                item29 = {'topic': v31, 'partitions': v36}
                v27.append(item29)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v27 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'session_id': v5, 'session_epoch': v6, 'topics': v8, 'forgotten_topics_data': v27, 'rack_id': default_38}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v9(env):  # the writer of FetchRequest v9
    default_1 = env['default_1']
    default_13 = env['default_13']
    default_18 = env['default_18']
    default_2 = env['default_2']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_3 = env['default_3']
    default_34 = env['default_34']
    default_39 = env['default_39']
    default_4 = env['default_4']
    default_5 = env['default_5']
    default_6 = env['default_6']
    default_7 = env['default_7']
    default_8 = env['default_8']
    errors_42 = env['errors_42']
    locate_43 = env['locate_43']
    pack_0 = env['pack_0']
    pack_12 = env['pack_12']
    pack_16 = env['pack_16']
    pack_22 = env['pack_22']
    pack_23 = env['pack_23']
    pack_33 = env['pack_33']
    pack_37 = env['pack_37']
    write_11 = env['write_11']
    write_17 = env['write_17']
    write_21 = env['write_21']
    write_32 = env['write_32']
    write_38 = env['write_38']
    write_41 = env['write_41']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['replica_id'], obj['max_wait_ms'], obj['min_bytes'], obj['max_bytes'], obj['isolation_level'], obj['session_id'], obj['session_epoch'])
            except KeyError:
                buf += pack_0(obj.get('replica_id', default_1), obj.get('max_wait_ms', default_2), obj.get('min_bytes', default_3), obj.get('max_bytes', default_4), obj.get('isolation_level', default_5), obj.get('session_id', default_6), obj.get('session_epoch', default_7))
            try:
                v9 = obj['topics']
            except KeyError:
                v9 = default_8
            if v9 is None:
                write_11(writer, None)
            else:
                buf += pack_12(len(v9))
                for item10 in v9:
                    try:
                        v14 = item10['topic']
                    except KeyError:
                        v14 = default_13
                    if v14.__class__ is str:
                        data15 = v14.encode('utf-8')
                        buf += pack_16(len(data15))
                        buf += data15
                    else:
                        write_17(writer, v14)
                    try:
                        v19 = item10['partitions']
                    except KeyError:
                        v19 = default_18
                    if v19 is None:
                        write_21(writer, None)
                    else:
                        buf += pack_22(len(v19))
                        for item20 in v19:
                            try:
                                buf += pack_23(item20['partition'], item20['current_leader_epoch'], item20['fetch_offset'], item20['log_start_offset'], item20['partition_max_bytes'])
                            except KeyError:
                                buf += pack_23(item20.get('partition', default_24), item20.get('current_leader_epoch', default_25), item20.get('fetch_offset', default_26), item20.get('log_start_offset', default_27), item20.get('partition_max_bytes', default_28))
            try:
                v30 = obj['forgotten_topics_data']
            except KeyError:
                v30 = default_29
            if v30 is None:
                write_32(writer, None)
            else:
                buf += pack_33(len(v30))
                for item31 in v30:
                    try:
                        v35 = item31['topic']
                    except KeyError:
                        v35 = default_34
                    if v35.__class__ is str:
                        data36 = v35.encode('utf-8')
                        buf += pack_37(len(data36))
                        buf += data36
                    else:
                        write_38(writer, v35)
                    try:
                        v40 = item31['partitions']
                    except KeyError:
                        v40 = default_39
                    write_41(writer, v40)
                    buf = writer.buf
        except errors_42 as exc:
            if not getattr(exc, 'located', False):
                locate_43(obj)
            raise
    return write_fields

def _reader_FetchRequest_v11(env):  # the reader of FetchRequest v11
    len_11 = env['len_11']
    len_14 = env['len_14']
    len_20 = env['len_20']
    len_30 = env['len_30']
    len_33 = env['len_33']
    len_40 = env['len_40']
    read_15 = env['read_15']
    read_16 = env['read_16']
    read_34 = env['read_34']
    read_35 = env['read_35']
    read_37 = env['read_37']
    read_41 = env['read_41']
    read_42 = env['read_42']
    unpack_26 = env['unpack_26']
    unpack_7 = env['unpack_7']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 25 > end:
            reader.pos = pos
            reader._truncated(25)
        v0, v1, v2, v3, v4, v5, v6, = unpack_7(buf, pos)
        pos += 25
        count9 = len_11(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count9 <= end - pos - 4:
            pos += 4
            v8 = []
            for _ in range(count9):
                size13 = len_14(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size13 <= end - pos - 2:
                    try:
                        v12 = str(buf[pos + 2 : pos + 2 + size13], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_15(reader)
                        raise
                    pos += 2 + size13
                else:
                    reader.pos = pos
                    v12 = read_16(reader)
                    pos = reader.pos
                count18 = len_20(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count18 <= end - pos - 4:
                    pos += 4
                    v17 = []
                    for _ in range(count18):
                        if pos + 28 > end:
                            reader.pos = pos
                            reader._truncated(28)
                        v21, v22, v23, v24, v25, = unpack_26(buf, pos)
                        pos += 28
                        item19 = {'partition': v21, 'current_leader_epoch': v22, 'fetch_offset': v23, 'log_start_offset': v24, 'partition_max_bytes': v25}
                        v17.append(item19)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v17 = None
                item10 = {'topic': v12, 'partitions': v17}
                v8.append(item10)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v8 = None
        count28 = len_30(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count28 <= end - pos - 4:
            pos += 4
            v27 = []
            for _ in range(count28):
                size32 = len_33(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size32 <= end - pos - 2:
                    try:
                        v31 = str(buf[pos + 2 : pos + 2 + size32], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_34(reader)
                        raise
                    pos += 2 + size32
                else:
                    reader.pos = pos
                    v31 = read_35(reader)
                    pos = reader.pos
                reader.pos = pos
                v36 = read_37(reader)
                pos = reader.pos
                item29 = {'topic': v31, 'partitions': v36}
                v27.append(item29)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v27 = None
        size39 = len_40(buf, pos)[0] if pos + 2 <= end else -2
        if 0 <= size39 <= end - pos - 2:
            try:
                v38 = str(buf[pos + 2 : pos + 2 + size39], 'utf-8')
            except UnicodeDecodeError:
                reader.pos = pos
                read_41(reader)
                raise
            pos += 2 + size39
        else:
            reader.pos = pos
            v38 = read_42(reader)
            pos = reader.pos
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'session_id': v5, 'session_epoch': v6, 'topics': v8, 'forgotten_topics_data': v27, 'rack_id': v38}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v11(env):  # the writer of FetchRequest v11
    default_1 = env['default_1']
    default_13 = env['default_13']
    default_18 = env['default_18']
    default_2 = env['default_2']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_3 = env['default_3']
    default_34 = env['default_34']
    default_39 = env['default_39']
    default_4 = env['default_4']
    default_42 = env['default_42']
    default_5 = env['default_5']
    default_6 = env['default_6']
    default_7 = env['default_7']
    default_8 = env['default_8']
    errors_47 = env['errors_47']
    locate_48 = env['locate_48']
    pack_0 = env['pack_0']
    pack_12 = env['pack_12']
    pack_16 = env['pack_16']
    pack_22 = env['pack_22']
    pack_23 = env['pack_23']
    pack_33 = env['pack_33']
    pack_37 = env['pack_37']
    pack_45 = env['pack_45']
    write_11 = env['write_11']
    write_17 = env['write_17']
    write_21 = env['write_21']
    write_32 = env['write_32']
    write_38 = env['write_38']
    write_41 = env['write_41']
    write_46 = env['write_46']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['replica_id'], obj['max_wait_ms'], obj['min_bytes'], obj['max_bytes'], obj['isolation_level'], obj['session_id'], obj['session_epoch'])
            except KeyError:
                buf += pack_0(obj.get('replica_id', default_1), obj.get('max_wait_ms', default_2), obj.get('min_bytes', default_3), obj.get('max_bytes', default_4), obj.get('isolation_level', default_5), obj.get('session_id', default_6), obj.get('session_epoch', default_7))
            try:
                v9 = obj['topics']
            except KeyError:
                v9 = default_8
            if v9 is None:
                write_11(writer, None)
            else:
                buf += pack_12(len(v9))
                for item10 in v9:
                    try:
                        v14 = item10['topic']
                    except KeyError:
                        v14 = default_13
                    if v14.__class__ is str:
                        data15 = v14.encode('utf-8')
                        buf += pack_16(len(data15))
                        buf += data15
                    else:
                        write_17(writer, v14)
                    try:
                        v19 = item10['partitions']
                    except KeyError:
                        v19 = default_18
                    if v19 is None:
                        write_21(writer, None)
                    else:
                        buf += pack_22(len(v19))
                        for item20 in v19:
                            try:
                                buf += pack_23(item20['partition'], item20['current_leader_epoch'], item20['fetch_offset'], item20['log_start_offset'], item20['partition_max_bytes'])
                            except KeyError:
                                buf += pack_23(item20.get('partition', default_24), item20.get('current_leader_epoch', default_25), item20.get('fetch_offset', default_26), item20.get('log_start_offset', default_27), item20.get('partition_max_bytes', default_28))
            try:
                v30 = obj['forgotten_topics_data']
            except KeyError:
                v30 = default_29
            if v30 is None:
                write_32(writer, None)
            else:
                buf += pack_33(len(v30))
                for item31 in v30:
                    try:
                        v35 = item31['topic']
                    except KeyError:
                        v35 = default_34
                    if v35.__class__ is str:
                        data36 = v35.encode('utf-8')
                        buf += pack_37(len(data36))
                        buf += data36
                    else:
                        write_38(writer, v35)
                    try:
                        v40 = item31['partitions']
                    except KeyError:
                        v40 = default_39
                    write_41(writer, v40)
                    buf = writer.buf
            try:
                v43 = obj['rack_id']
            except KeyError:
                v43 = default_42
            if v43.__class__ is str:
                data44 = v43.encode('utf-8')
                buf += pack_45(len(data44))
                buf += data44
            else:
                write_46(writer, v43)
        except errors_47 as exc:
            if not getattr(exc, 'located', False):
                locate_48(obj)
            raise
    return write_fields

def _reader_FetchResponse_v0(env):  # the reader of FetchResponse v0
    default_21 = env['default_21']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    len_12 = env['len_12']
    len_19 = env['len_19']
    len_3 = env['len_3']
    len_6 = env['len_6']
    read_20 = env['read_20']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_16 = env['unpack_16']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_3(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count1 <= end - pos - 4:
            pos += 4
            v0 = []
            for _ in range(count1):
                size5 = len_6(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size5 <= end - pos - 2:
                    try:
                        v4 = str(buf[pos + 2 : pos + 2 + size5], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_7(reader)
                        raise
                    pos += 2 + size5
                else:
                    reader.pos = pos
                    v4 = read_8(reader)
                    pos = reader.pos
                count10 = len_12(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 14 > end:
                            reader.pos = pos
                            reader._truncated(14)
                        v13, v14, v15, = unpack_16(buf, pos)
                        pos += 14
                        size18 = len_19(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= size18 <= end - pos - 4:
                            v17 = buf[pos + 4 : pos + 4 + size18]
                            pos += 4 + size18
                        elif size18 == -1:
                            v17 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v17 = read_20(reader)
                            pos = reader.pos
                        item11 = {'partition_index': v13, 'error_code': v14, 'high_watermark': v15, 'records': v17, 'last_stable_offset': default_21, 'log_start_offset': default_22, 'aborted_transactions': list(default_23), 'preferred_read_replica': default_24}
                        v9.append(item11)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item2 = {'topic': v4, 'partitions': v9}
                v0.append(item2)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v0 = None
        result = {'responses': v0, 'throttle_time_ms': default_25, 'error_code': default_26, 'session_id': default_27}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v0(env):  # the writer of FetchResponse v0
    default_0 = env['default_0']
    default_10 = env['default_10']
    default_16 = env['default_16']
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_5 = env['default_5']
    errors_23 = env['errors_23']
    locate_24 = env['locate_24']
    pack_14 = env['pack_14']
    pack_15 = env['pack_15']
    pack_21 = env['pack_21']
    pack_4 = env['pack_4']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_22 = env['write_22']
    write_3 = env['write_3']
    write_9 = env['write_9']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                v1 = obj['responses']
            except KeyError:
                v1 = default_0
            if v1 is None:
                write_3(writer, None)
            else:
                buf += pack_4(len(v1))
                for item2 in v1:
                    try:
                        v6 = item2['topic']
                    except KeyError:
                        v6 = default_5
                    if v6.__class__ is str:
                        data7 = v6.encode('utf-8')
                        buf += pack_8(len(data7))
                        buf += data7
                    else:
                        write_9(writer, v6)
                    try:
                        v11 = item2['partitions']
                    except KeyError:
                        v11 = default_10
                    if v11 is None:
                        write_13(writer, None)
                    else:
                        buf += pack_14(len(v11))
                        for item12 in v11:
                            try:
                                buf += pack_15(item12['partition_index'], item12['error_code'], item12['high_watermark'])
                            except KeyError:
                                buf += pack_15(item12.get('partition_index', default_16), item12.get('error_code', default_17), item12.get('high_watermark', default_18))
                            try:
                                v20 = item12['records']
                            except KeyError:
                                v20 = default_19
                            if v20.__class__ is bytes and len(v20) < 1024:
                                buf += pack_21(len(v20))
                                buf += v20
                            else:
                                write_22(writer, v20)
                                buf = writer.buf
        except errors_23 as exc:
            if not getattr(exc, 'located', False):
                locate_24(obj)
            raise
    return write_fields

def _reader_FetchResponse_v1(env):  # the reader of FetchResponse v1
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    len_14 = env['len_14']
    len_21 = env['len_21']
    len_5 = env['len_5']
    len_8 = env['len_8']
    read_10 = env['read_10']
    read_22 = env['read_22']
    read_9 = env['read_9']
    unpack_1 = env['unpack_1']
    unpack_18 = env['unpack_18']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 4 > end:
            reader.pos = pos
            reader._truncated(4)
        v0, = unpack_1(buf, pos)
        pos += 4
        count3 = len_5(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count3 <= end - pos - 4:
            pos += 4
            v2 = []
            for _ in range(count3):
                size7 = len_8(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size7 <= end - pos - 2:
                    try:
                        v6 = str(buf[pos + 2 : pos + 2 + size7], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_9(reader)
                        raise
                    pos += 2 + size7
                else:
                    reader.pos = pos
                    v6 = read_10(reader)
                    pos = reader.pos
                count12 = len_14(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count12 <= end - pos - 4:
                    pos += 4
                    v11 = []
                    for _ in range(count12):
                        if pos + 14 > end:
                            reader.pos = pos
                            reader._truncated(14)
                        v15, v16, v17, = unpack_18(buf, pos)
                        pos += 14
                        size20 = len_21(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= size20 <= end - pos - 4:
                            v19 = buf[pos + 4 : pos + 4 + size20]
                            pos += 4 + size20
                        elif size20 == -1:
                            v19 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v19 = read_22(reader)
                            pos = reader.pos
                        item13 = {'partition_index': v15, 'error_code': v16, 'high_watermark': v17, 'records': v19, 'last_stable_offset': default_23, 'log_start_offset': default_24, 'aborted_transactions': list(default_25), 'preferred_read_replica': default_26}
                        v11.append(item13)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v11 = None
                item4 = {'topic': v6, 'partitions': v11}
                v2.append(item4)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v2 = None
        result = {'throttle_time_ms': v0, 'responses': v2, 'error_code': default_27, 'session_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v1(env):  # the writer of FetchResponse v1
    default_1 = env['default_1']
    default_12 = env['default_12']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_21 = env['default_21']
    default_7 = env['default_7']
    errors_25 = env['errors_25']
    locate_26 = env['locate_26']
    pack_0 = env['pack_0']
    pack_10 = env['pack_10']
    pack_16 = env['pack_16']
    pack_17 = env['pack_17']
    pack_23 = env['pack_23']
    pack_6 = env['pack_6']
    write_11 = env['write_11']
    write_15 = env['write_15']
    write_24 = env['write_24']
    write_5 = env['write_5']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_0(obj.get('throttle_time_ms', default_1))
            try:
                v3 = obj['responses']
            except KeyError:
                v3 = default_2
            if v3 is None:
                write_5(writer, None)
            else:
                buf += pack_6(len(v3))
                for item4 in v3:
                    try:
                        v8 = item4['topic']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        buf += pack_10(len(data9))
                        buf += data9
                    else:
                        write_11(writer, v8)
                    try:
                        v13 = item4['partitions']
                    except KeyError:
                        v13 = default_12
                    if v13 is None:
                        write_15(writer, None)
                    else:
                        buf += pack_16(len(v13))
                        for item14 in v13:
                            try:
                                buf += pack_17(item14['partition_index'], item14['error_code'], item14['high_watermark'])
                            except KeyError:
                                buf += pack_17(item14.get('partition_index', default_18), item14.get('error_code', default_19), item14.get('high_watermark', default_20))
                            try:
                                v22 = item14['records']
                            except KeyError:
                                v22 = default_21
                            if v22.__class__ is bytes and len(v22) < 1024:
                                buf += pack_23(len(v22))
                                buf += v22
                            else:
                                write_24(writer, v22)
                                buf = writer.buf
        except errors_25 as exc:
            if not getattr(exc, 'located', False):
                locate_26(obj)
            raise
    return write_fields

def _reader_FetchResponse_v4(env):  # the reader of FetchResponse v4
    default_31 = env['default_31']
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_34 = env['default_34']
    len_14 = env['len_14']
    len_23 = env['len_23']
    len_29 = env['len_29']
    len_5 = env['len_5']
    len_8 = env['len_8']
    read_10 = env['read_10']
    read_30 = env['read_30']
    read_9 = env['read_9']
    unpack_1 = env['unpack_1']
    unpack_19 = env['unpack_19']
    unpack_26 = env['unpack_26']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 4 > end:
            reader.pos = pos
            reader._truncated(4)
        v0, = unpack_1(buf, pos)
        pos += 4
        count3 = len_5(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count3 <= end - pos - 4:
            pos += 4
            v2 = []
            for _ in range(count3):
                size7 = len_8(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size7 <= end - pos - 2:
                    try:
                        v6 = str(buf[pos + 2 : pos + 2 + size7], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_9(reader)
                        raise
                    pos += 2 + size7
                else:
                    reader.pos = pos
                    v6 = read_10(reader)
                    pos = reader.pos
                count12 = len_14(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count12 <= end - pos - 4:
                    pos += 4
                    v11 = []
                    for _ in range(count12):
                        if pos + 22 > end:
                            reader.pos = pos
                            reader._truncated(22)
                        v15, v16, v17, v18, = unpack_19(buf, pos)
                        pos += 22
                        count21 = len_23(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= count21 <= end - pos - 4:
                            pos += 4
                            v20 = []
                            for _ in range(count21):
                                if pos + 16 > end:
                                    reader.pos = pos
                                    reader._truncated(16)
                                v24, v25, = unpack_26(buf, pos)
                                pos += 16
                                item22 = {'producer_id': v24, 'first_offset': v25}
                                v20.append(item22)
                        else:
                            reader.pos = pos
                            reader.array_length(True, False)
                            pos = reader.pos
                            v20 = None
                        size28 = len_29(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= size28 <= end - pos - 4:
                            v27 = buf[pos + 4 : pos + 4 + size28]
                            pos += 4 + size28
                        elif size28 == -1:
                            v27 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v27 = read_30(reader)
                            pos = reader.pos
                        item13 = {'partition_index': v15, 'error_code': v16, 'high_watermark': v17, 'last_stable_offset': v18, 'aborted_transactions': v20, 'records': v27, 'log_start_offset': default_31, 'preferred_read_replica': default_32}
                        v11.append(item13)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v11 = None
                item4 = {'topic': v6, 'partitions': v11}
                v2.append(item4)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v2 = None
        result = {'throttle_time_ms': v0, 'responses': v2, 'error_code': default_33, 'session_id': default_34}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v4(env):  # the writer of FetchResponse v4
    default_1 = env['default_1']
    default_12 = env['default_12']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_21 = env['default_21']
    default_22 = env['default_22']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_30 = env['default_30']
    default_7 = env['default_7']
    errors_34 = env['errors_34']
    locate_35 = env['locate_35']
    pack_0 = env['pack_0']
    pack_10 = env['pack_10']
    pack_16 = env['pack_16']
    pack_17 = env['pack_17']
    pack_26 = env['pack_26']
    pack_27 = env['pack_27']
    pack_32 = env['pack_32']
    pack_6 = env['pack_6']
    write_11 = env['write_11']
    write_15 = env['write_15']
    write_25 = env['write_25']
    write_33 = env['write_33']
    write_5 = env['write_5']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_0(obj.get('throttle_time_ms', default_1))
            try:
                v3 = obj['responses']
            except KeyError:
                v3 = default_2
            if v3 is None:
                write_5(writer, None)
            else:
                buf += pack_6(len(v3))
                for item4 in v3:
                    try:
                        v8 = item4['topic']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        buf += pack_10(len(data9))
                        buf += data9
                    else:
                        write_11(writer, v8)
                    try:
                        v13 = item4['partitions']
                    except KeyError:
                        v13 = default_12
                    if v13 is None:
                        write_15(writer, None)
                    else:
                        buf += pack_16(len(v13))
                        for item14 in v13:
                            try:
                                buf += pack_17(item14['partition_index'], item14['error_code'], item14['high_watermark'], item14['last_stable_offset'])
                            except KeyError:
                                buf += pack_17(item14.get('partition_index', default_18), item14.get('error_code', default_19), item14.get('high_watermark', default_20), item14.get('last_stable_offset', default_21))
                            try:
                                v23 = item14['aborted_transactions']
                            except KeyError:
                                v23 = default_22
                            if v23 is None:
                                write_25(writer, None)
                            else:
                                buf += pack_26(len(v23))
                                for item24 in v23:
                                    try:
                                        buf += pack_27(item24['producer_id'], item24['first_offset'])
                                    except KeyError:
                                        buf += pack_27(item24.get('producer_id', default_28), item24.get('first_offset', default_29))
                            try:
                                v31 = item14['records']
                            except KeyError:
                                v31 = default_30
                            if v31.__class__ is bytes and len(v31) < 1024:
                                buf += pack_32(len(v31))
                                buf += v31
                            else:
                                write_33(writer, v31)
                                buf = writer.buf
        except errors_34 as exc:
            if not getattr(exc, 'located', False):
                locate_35(obj)
            raise
    return write_fields

def _reader_FetchResponse_v5(env):  # the reader of FetchResponse v5
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_34 = env['default_34']
    len_14 = env['len_14']
    len_24 = env['len_24']
    len_30 = env['len_30']
    len_5 = env['len_5']
    len_8 = env['len_8']
    read_10 = env['read_10']
    read_31 = env['read_31']
    read_9 = env['read_9']
    unpack_1 = env['unpack_1']
    unpack_20 = env['unpack_20']
    unpack_27 = env['unpack_27']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 4 > end:
            reader.pos = pos
            reader._truncated(4)
        v0, = unpack_1(buf, pos)
        pos += 4
        count3 = len_5(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count3 <= end - pos - 4:
            pos += 4
            v2 = []
            for _ in range(count3):
                size7 = len_8(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size7 <= end - pos - 2:
                    try:
                        v6 = str(buf[pos + 2 : pos + 2 + size7], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_9(reader)
                        raise
                    pos += 2 + size7
                else:
                    reader.pos = pos
                    v6 = read_10(reader)
                    pos = reader.pos
                count12 = len_14(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count12 <= end - pos - 4:
                    pos += 4
                    v11 = []
                    for _ in range(count12):
                        if pos + 30 > end:
                            reader.pos = pos
                            reader._truncated(30)
                        v15, v16, v17, v18, v19, = unpack_20(buf, pos)
                        pos += 30
                        count22 = len_24(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= count22 <= end - pos - 4:
                            pos += 4
                            v21 = []
                            for _ in range(count22):
                                if pos + 16 > end:
                                    reader.pos = pos
                                    reader._truncated(16)
                                v25, v26, = unpack_27(buf, pos)
                                pos += 16
                                item23 = {'producer_id': v25, 'first_offset': v26}
                                v21.append(item23)
                        else:
                            reader.pos = pos
                            reader.array_length(True, False)
                            pos = reader.pos
                            v21 = None
                        size29 = len_30(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= size29 <= end - pos - 4:
                            v28 = buf[pos + 4 : pos + 4 + size29]
                            pos += 4 + size29
                        elif size29 == -1:
                            v28 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v28 = read_31(reader)
                            pos = reader.pos
                        item13 = {'partition_index': v15, 'error_code': v16, 'high_watermark': v17, 'last_stable_offset': v18, 'log_start_offset': v19, 'aborted_transactions': v21, 'records': v28, 'preferred_read_replica': default_32}
                        v11.append(item13)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v11 = None
                item4 = {'topic': v6, 'partitions': v11}
                v2.append(item4)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v2 = None
        result = {'throttle_time_ms': v0, 'responses': v2, 'error_code': default_33, 'session_id': default_34}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v5(env):  # the writer of FetchResponse v5
    default_1 = env['default_1']
    default_12 = env['default_12']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_21 = env['default_21']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_29 = env['default_29']
    default_30 = env['default_30']
    default_31 = env['default_31']
    default_7 = env['default_7']
    errors_35 = env['errors_35']
    locate_36 = env['locate_36']
    pack_0 = env['pack_0']
    pack_10 = env['pack_10']
    pack_16 = env['pack_16']
    pack_17 = env['pack_17']
    pack_27 = env['pack_27']
    pack_28 = env['pack_28']
    pack_33 = env['pack_33']
    pack_6 = env['pack_6']
    write_11 = env['write_11']
    write_15 = env['write_15']
    write_26 = env['write_26']
    write_34 = env['write_34']
    write_5 = env['write_5']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_0(obj.get('throttle_time_ms', default_1))
            try:
                v3 = obj['responses']
            except KeyError:
                v3 = default_2
            if v3 is None:
                write_5(writer, None)
            else:
                buf += pack_6(len(v3))
                for item4 in v3:
                    try:
                        v8 = item4['topic']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        buf += pack_10(len(data9))
                        buf += data9
                    else:
                        write_11(writer, v8)
                    try:
                        v13 = item4['partitions']
                    except KeyError:
                        v13 = default_12
                    if v13 is None:
                        write_15(writer, None)
                    else:
                        buf += pack_16(len(v13))
                        for item14 in v13:
                            try:
                                buf += pack_17(item14['partition_index'], item14['error_code'], item14['high_watermark'], item14['last_stable_offset'], item14['log_start_offset'])
                            except KeyError:
                                buf += pack_17(item14.get('partition_index', default_18), item14.get('error_code', default_19), item14.get('high_watermark', default_20), item14.get('last_stable_offset', default_21), item14.get('log_start_offset', default_22))
                            try:
                                v24 = item14['aborted_transactions']
                            except KeyError:
                                v24 = default_23
                            if v24 is None:
                                write_26(writer, None)
                            else:
                                buf += pack_27(len(v24))
                                for item25 in v24:
                                    try:
                                        buf += pack_28(item25['producer_id'], item25['first_offset'])
                                    except KeyError:
                                        buf += pack_28(item25.get('producer_id', default_29), item25.get('first_offset', default_30))
                            try:
                                v32 = item14['records']
                            except KeyError:
                                v32 = default_31
                            if v32.__class__ is bytes and len(v32) < 1024:
                                buf += pack_33(len(v32))
                                buf += v32
                            else:
                                write_34(writer, v32)
                                buf = writer.buf
        except errors_35 as exc:
            if not getattr(exc, 'located', False):
                locate_36(obj)
            raise
    return write_fields

def _reader_FetchResponse_v7(env):  # the reader of FetchResponse v7
    default_34 = env['default_34']
    len_10 = env['len_10']
    len_16 = env['len_16']
    len_26 = env['len_26']
    len_32 = env['len_32']
    len_7 = env['len_7']
    read_11 = env['read_11']
    read_12 = env['read_12']
    read_33 = env['read_33']
    unpack_22 = env['unpack_22']
    unpack_29 = env['unpack_29']
    unpack_3 = env['unpack_3']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 10 > end:
            reader.pos = pos
            reader._truncated(10)
        v0, v1, v2, = unpack_3(buf, pos)
        pos += 10
        count5 = len_7(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count5 <= end - pos - 4:
            pos += 4
            v4 = []
            for _ in range(count5):
                size9 = len_10(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size9 <= end - pos - 2:
                    try:
                        v8 = str(buf[pos + 2 : pos + 2 + size9], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_11(reader)
                        raise
                    pos += 2 + size9
                else:
                    reader.pos = pos
                    v8 = read_12(reader)
                    pos = reader.pos
                count14 = len_16(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count14 <= end - pos - 4:
                    pos += 4
                    v13 = []
                    for _ in range(count14):
                        if pos + 30 > end:
                            reader.pos = pos
                            reader._truncated(30)
                        v17, v18, v19, v20, v21, = unpack_22(buf, pos)
                        pos += 30
                        count24 = len_26(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= count24 <= end - pos - 4:
                            pos += 4
                            v23 = []
                            for _ in range(count24):
                                if pos + 16 > end:
                                    reader.pos = pos
                                    reader._truncated(16)
                                v27, v28, = unpack_29(buf, pos)
                                pos += 16
                                item25 = {'producer_id': v27, 'first_offset': v28}
                                v23.append(item25)
                        else:
                            reader.pos = pos
                            reader.array_length(True, False)
                            pos = reader.pos
                            v23 = None
                        size31 = len_32(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= size31 <= end - pos - 4:
                            v30 = buf[pos + 4 : pos + 4 + size31]
                            pos += 4 + size31
                        elif size31 == -1:
                            v30 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v30 = read_33(reader)
                            pos = reader.pos
                        item15 = {'partition_index': v17, 'error_code': v18, 'high_watermark': v19, 'last_stable_offset': v20, 'log_start_offset': v21, 'aborted_transactions': v23, 'records': v30, 'preferred_read_replica': default_34}
                        v13.append(item15)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v13 = None
                item6 = {'topic': v8, 'partitions': v13}
                v4.append(item6)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v4 = None
        result = {'throttle_time_ms': v0, 'error_code': v1, 'session_id': v2, 'responses': v4}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v7(env):  # the writer of FetchResponse v7
    default_1 = env['default_1']
    default_14 = env['default_14']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_21 = env['default_21']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_3 = env['default_3']
    default_31 = env['default_31']
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_4 = env['default_4']
    default_9 = env['default_9']
    errors_37 = env['errors_37']
    locate_38 = env['locate_38']
    pack_0 = env['pack_0']
    pack_12 = env['pack_12']
    pack_18 = env['pack_18']
    pack_19 = env['pack_19']
    pack_29 = env['pack_29']
    pack_30 = env['pack_30']
    pack_35 = env['pack_35']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_28 = env['write_28']
    write_36 = env['write_36']
    write_7 = env['write_7']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['throttle_time_ms'], obj['error_code'], obj['session_id'])
            except KeyError:
                buf += pack_0(obj.get('throttle_time_ms', default_1), obj.get('error_code', default_2), obj.get('session_id', default_3))
            try:
                v5 = obj['responses']
            except KeyError:
                v5 = default_4
            if v5 is None:
                write_7(writer, None)
            else:
                buf += pack_8(len(v5))
                for item6 in v5:
                    try:
                        v10 = item6['topic']
                    except KeyError:
                        v10 = default_9
                    if v10.__class__ is str:
                        data11 = v10.encode('utf-8')
                        buf += pack_12(len(data11))
                        buf += data11
                    else:
                        write_13(writer, v10)
                    try:
                        v15 = item6['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        buf += pack_18(len(v15))
                        for item16 in v15:
                            try:
                                buf += pack_19(item16['partition_index'], item16['error_code'], item16['high_watermark'], item16['last_stable_offset'], item16['log_start_offset'])
                            except KeyError:
                                buf += pack_19(item16.get('partition_index', default_20), item16.get('error_code', default_21), item16.get('high_watermark', default_22), item16.get('last_stable_offset', default_23), item16.get('log_start_offset', default_24))
                            try:
                                v26 = item16['aborted_transactions']
                            except KeyError:
                                v26 = default_25
                            if v26 is None:
                                write_28(writer, None)
                            else:
                                buf += pack_29(len(v26))
                                for item27 in v26:
                                    try:
                                        buf += pack_30(item27['producer_id'], item27['first_offset'])
                                    except KeyError:
                                        buf += pack_30(item27.get('producer_id', default_31), item27.get('first_offset', default_32))
                            try:
                                v34 = item16['records']
                            except KeyError:
                                v34 = default_33
                            if v34.__class__ is bytes and len(v34) < 1024:
                                buf += pack_35(len(v34))
                                buf += v34
                            else:
                                write_36(writer, v34)
                                buf = writer.buf
        except errors_37 as exc:
            if not getattr(exc, 'located', False):
                locate_38(obj)
            raise
    return write_fields

def _reader_FetchResponse_v11(env):  # the reader of FetchResponse v11
    len_10 = env['len_10']
    len_16 = env['len_16']
    len_26 = env['len_26']
    len_34 = env['len_34']
    len_7 = env['len_7']
    read_11 = env['read_11']
    read_12 = env['read_12']
    read_35 = env['read_35']
    unpack_22 = env['unpack_22']
    unpack_29 = env['unpack_29']
    unpack_3 = env['unpack_3']
    unpack_31 = env['unpack_31']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 10 > end:
            reader.pos = pos
            reader._truncated(10)
        v0, v1, v2, = unpack_3(buf, pos)
        pos += 10
        count5 = len_7(buf, pos)[0] if pos + 4 <= end else -2
        if 0 <= count5 <= end - pos - 4:
            pos += 4
            v4 = []
            for _ in range(count5):
                size9 = len_10(buf, pos)[0] if pos + 2 <= end else -2
                if 0 <= size9 <= end - pos - 2:
                    try:
                        v8 = str(buf[pos + 2 : pos + 2 + size9], 'utf-8')
                    except UnicodeDecodeError:
                        reader.pos = pos
                        read_11(reader)
                        raise
                    pos += 2 + size9
                else:
                    reader.pos = pos
                    v8 = read_12(reader)
                    pos = reader.pos
                count14 = len_16(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count14 <= end - pos - 4:
                    pos += 4
                    v13 = []
                    for _ in range(count14):
                        if pos + 30 > end:
                            reader.pos = pos
                            reader._truncated(30)
                        v17, v18, v19, v20, v21, = unpack_22(buf, pos)
                        pos += 30
                        count24 = len_26(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= count24 <= end - pos - 4:
                            pos += 4
                            v23 = []
                            for _ in range(count24):
                                if pos + 16 > end:
                                    reader.pos = pos
                                    reader._truncated(16)
                                v27, v28, = unpack_29(buf, pos)
                                pos += 16
                                item25 = {'producer_id': v27, 'first_offset': v28}
                                v23.append(item25)
                        else:
                            reader.pos = pos
                            reader.array_length(True, False)
                            pos = reader.pos
                            v23 = None
                        if pos + 4 > end:
                            reader.pos = pos
                            reader._truncated(4)
                        v30, = unpack_31(buf, pos)
                        pos += 4
                        size33 = len_34(buf, pos)[0] if pos + 4 <= end else -2
                        if 0 <= size33 <= end - pos - 4:
                            v32 = buf[pos + 4 : pos + 4 + size33]
                            pos += 4 + size33
                        elif size33 == -1:
                            v32 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v32 = read_35(reader)
                            pos = reader.pos
                        item15 = {'partition_index': v17, 'error_code': v18, 'high_watermark': v19, 'last_stable_offset': v20, 'log_start_offset': v21, 'aborted_transactions': v23, 'preferred_read_replica': v30, 'records': v32}
                        v13.append(item15)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v13 = None
                item6 = {'topic': v8, 'partitions': v13}
                v4.append(item6)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v4 = None
        result = {'throttle_time_ms': v0, 'error_code': v1, 'session_id': v2, 'responses': v4}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v11(env):  # the writer of FetchResponse v11
    default_1 = env['default_1']
    default_14 = env['default_14']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_21 = env['default_21']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_3 = env['default_3']
    default_31 = env['default_31']
    default_32 = env['default_32']
    default_34 = env['default_34']
    default_35 = env['default_35']
    default_4 = env['default_4']
    default_9 = env['default_9']
    errors_39 = env['errors_39']
    locate_40 = env['locate_40']
    pack_0 = env['pack_0']
    pack_12 = env['pack_12']
    pack_18 = env['pack_18']
    pack_19 = env['pack_19']
    pack_29 = env['pack_29']
    pack_30 = env['pack_30']
    pack_33 = env['pack_33']
    pack_37 = env['pack_37']
    pack_8 = env['pack_8']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_28 = env['write_28']
    write_38 = env['write_38']
    write_7 = env['write_7']
    def write_fields(writer, obj):
        try:
            buf = writer.buf
            try:
                buf += pack_0(obj['throttle_time_ms'], obj['error_code'], obj['session_id'])
            except KeyError:
                buf += pack_0(obj.get('throttle_time_ms', default_1), obj.get('error_code', default_2), obj.get('session_id', default_3))
            try:
                v5 = obj['responses']
            except KeyError:
                v5 = default_4
            if v5 is None:
                write_7(writer, None)
            else:
                buf += pack_8(len(v5))
                for item6 in v5:
                    try:
                        v10 = item6['topic']
                    except KeyError:
                        v10 = default_9
                    if v10.__class__ is str:
                        data11 = v10.encode('utf-8')
                        buf += pack_12(len(data11))
                        buf += data11
                    else:
                        write_13(writer, v10)
                    try:
                        v15 = item6['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        buf += pack_18(len(v15))
                        for item16 in v15:
                            try:
                                buf += pack_19(item16['partition_index'], item16['error_code'], item16['high_watermark'], item16['last_stable_offset'], item16['log_start_offset'])
                            except KeyError:
                                buf += pack_19(item16.get('partition_index', default_20), item16.get('error_code', default_21), item16.get('high_watermark', default_22), item16.get('last_stable_offset', default_23), item16.get('log_start_offset', default_24))
                            try:
                                v26 = item16['aborted_transactions']
                            except KeyError:
                                v26 = default_25
                            if v26 is None:
                                write_28(writer, None)
                            else:
                                buf += pack_29(len(v26))
                                for item27 in v26:
                                    try:
                                        buf += pack_30(item27['producer_id'], item27['first_offset'])
                                    except KeyError:
                                        buf += pack_30(item27.get('producer_id', default_31), item27.get('first_offset', default_32))
                            try:
                                buf += pack_33(item16['preferred_read_replica'])
                            except KeyError:
                                buf += pack_33(item16.get('preferred_read_replica', default_34))
                            try:
                                v36 = item16['records']
                            except KeyError:
                                v36 = default_35
                            if v36.__class__ is bytes and len(v36) < 1024:
                                buf += pack_37(len(v36))
                                buf += v36
                            else:
                                write_38(writer, v36)
                                buf = writer.buf
        except errors_39 as exc:
            if not getattr(exc, 'located', False):
                locate_40(obj)
            raise
    return write_fields


FACTORIES = {
    'c4dbba3a2fbfb0034dd7f6341d186f58': _reader_ProduceRequest_v0,
    'faa8e8507ade519790918bc71f9b8bcf': _writer_ProduceRequest_v0,
    'dd2219ead8cdaf060f095f5302550006': _reader_ProduceRequest_v3,
    'beda7cad688c447a9b4483e1ff444c31': _writer_ProduceRequest_v3,
    '97f1ccf4378575db32a5e825e8d56d70': _reader_ProduceResponse_v0,
    '84fdd4e6cc1c71df65173fd83c0726be': _writer_ProduceResponse_v0,
    '08752deffe02997ad54603c407e99486': _reader_ProduceResponse_v1,
    '53cde2876c98c80e2124066cd9990560': _writer_ProduceResponse_v1,
    'b50ce26f1957c6f183fe87a018094367': _reader_ProduceResponse_v2,
    'b57ce84a3be766bf31907e80b8b7a9d0': _writer_ProduceResponse_v2,
    'b7e0b7fcb55302ee9ff4c9b514881395': _reader_ProduceResponse_v5,
    'ed708127769efc70dc0954db5af51691': _writer_ProduceResponse_v5,
    'd56688a4db91652aecd9eae9bd204d0c': _reader_ProduceResponse_v8,
    '83a627f66ccc6044cc38257f41a6442b': _writer_ProduceResponse_v8,
    '8218e70303abf134731de78847213cae': _reader_FetchRequest_v0,
    '58a481caf21c517ea989f0b6aad940f3': _writer_FetchRequest_v0,
    '91e13b47cd6a1c4dddfe7df7c270bbea': _reader_FetchRequest_v3,
    '829fda24498a54264c2a68c9834d9d6b': _writer_FetchRequest_v3,
    'b18df6fa646be1ce03fb2581fe860bd1': _reader_FetchRequest_v4,
    'c03f38f70570b0aaefa68ee02eb8c41c': _writer_FetchRequest_v4,
    '457bbfac26ae0b346c4b4c9bfd6be58e': _reader_FetchRequest_v5,
    '5d4967a9d228af65c2a64ba77fec068f': _writer_FetchRequest_v5,
    '4b3a5c7cc5ece30ed7715a2a8fc7619f': _reader_FetchRequest_v7,
    '41f6caa8378b6d4eb3f78be128feb591': _writer_FetchRequest_v7,
    'f43eadb0551a175f2120f9fab3440f09': _reader_FetchRequest_v9,
    '11c4c5e30f8576bb5a7cc3bdd5709fca': _writer_FetchRequest_v9,
    'd22e6983cd2077af556a481130f0cf3e': _reader_FetchRequest_v11,
    '3b2f8dc4c66279f315547b9e4b6ba705': _writer_FetchRequest_v11,
    '9afb854e4782191357e60f3ca35f61ce': _reader_FetchResponse_v0,
    'e9e45492ea40de46305105145d306556': _writer_FetchResponse_v0,
    'c02aaf3b6f76415062f7496341aff2e8': _reader_FetchResponse_v1,
    'd53cd81efd649e0d0e3404608fc4b5e1': _writer_FetchResponse_v1,
    '9ed73d6ebebe9b44f88fab396b14fd90': _reader_FetchResponse_v4,
    'dd42f13a15a405144d0c0829aa951bed': _writer_FetchResponse_v4,
    'd0da3407e98fe942913c5137a69e6153': _reader_FetchResponse_v5,
    'd98c50bdd489911ade8635681586c524': _writer_FetchResponse_v5,
    '48ed66cbf3f0d800474436d001d2f54f': _reader_FetchResponse_v7,
    '968e934b500076a0bcb120f995aa0c11': _writer_FetchResponse_v7,
    'fd65a04d3e56fe7196e718a9d17d16ca': _reader_FetchResponse_v11,
    '2bd0f30256350e6aec0639ae1f6ce176': _writer_FetchResponse_v11,
}
