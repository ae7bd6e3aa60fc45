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
    len_14 = env['len_14']
    len_9 = env['len_9']
    read_10 = env['read_10']
    read_11 = env['read_11']
    read_21 = env['read_21']
    unpack_18 = env['unpack_18']
    unpack_19 = env['unpack_19']
    unpack_3 = env['unpack_3']
    unpack_4 = env['unpack_4']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 10 <= end:
            v0, v1, prefix2, = unpack_3(buf, pos)
        else:
            if pos + 6 > end:
                reader.pos = pos
                reader._truncated(6)
            v0, v1, = unpack_4(buf, pos)
            prefix2 = -2
        pos += 6
        if 0 <= prefix2 <= end - pos - 4:
            pos += 4
            v5 = []
            for _ in range(prefix2):
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
                count13 = len_14(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count13 <= end - pos - 4:
                    pos += 4
                    v12 = []
                    for _ in range(count13):
                        if pos + 8 <= end:
                            v16, prefix17, = unpack_18(buf, pos)
                        else:
                            if pos + 4 > end:
                                reader.pos = pos
                                reader._truncated(4)
                            v16, = unpack_19(buf, pos)
                            prefix17 = -2
                        pos += 4
                        if 0 <= prefix17 <= end - pos - 4:
                            v20 = buf[pos + 4 : pos + 4 + prefix17]
                            pos += 4 + prefix17
                        elif prefix17 == -1:
                            v20 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v20 = read_21(reader)
                            pos = reader.pos
                        item15 = {'partition_index': v16, 'records': v20}
                        v12.append(item15)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v12 = None
                item6 = {'name': v7, 'partitions': v12}
                v5.append(item6)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v5 = None
        result = {'acks': v0, 'timeout_ms': v1, 'topics': v5, 'transactional_id': default_22}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceRequest_v0(env):  # the writer of ProduceRequest v0
    default_1 = env['default_1']
    default_10 = env['default_10']
    default_17 = env['default_17']
    default_2 = env['default_2']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_3 = env['default_3']
    errors_32 = env['errors_32']
    locate_33 = env['locate_33']
    pack_0 = env['pack_0']
    pack_15 = env['pack_15']
    pack_23 = env['pack_23']
    pack_24 = env['pack_24']
    pack_30 = env['pack_30']
    pack_9 = env['pack_9']
    small_14 = env['small_14']
    small_22 = env['small_22']
    small_29 = env['small_29']
    small_8 = env['small_8']
    write_16 = env['write_16']
    write_20 = env['write_20']
    write_31 = env['write_31']
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
                n7 = len(v4)
                buf += small_8[n7] if n7 < 256 else pack_9(n7)
                for item5 in v4:
                    try:
                        v11 = item5['name']
                    except KeyError:
                        v11 = default_10
                    if v11.__class__ is str:
                        data12 = v11.encode('utf-8')
                        n13 = len(data12)
                        buf += small_14[n13] if n13 < 256 else pack_15(n13)
                        buf += data12
                    else:
                        write_16(writer, v11)
                    try:
                        v18 = item5['partitions']
                    except KeyError:
                        v18 = default_17
                    if v18 is None:
                        write_20(writer, None)
                    else:
                        n21 = len(v18)
                        buf += small_22[n21] if n21 < 256 else pack_23(n21)
                        for item19 in v18:
                            try:
                                buf += pack_24(item19['partition_index'])
                            except KeyError:
                                buf += pack_24(item19.get('partition_index', default_25))
                            try:
                                v27 = item19['records']
                            except KeyError:
                                v27 = default_26
                            if v27.__class__ is bytes and len(v27) < 1024:
                                n28 = len(v27)
                                buf += small_29[n28] if n28 < 256 else pack_30(n28)
                                buf += v27
                            else:
                                write_31(writer, v27)
                                buf = writer.buf
        except errors_32 as exc:
            if not getattr(exc, 'located', False):
                locate_33(obj)
            raise
    return write_fields

def _reader_ProduceRequest_v3(env):  # the reader of ProduceRequest v3
    len_14 = env['len_14']
    len_19 = env['len_19']
    len_2 = env['len_2']
    read_15 = env['read_15']
    read_16 = env['read_16']
    read_26 = env['read_26']
    read_3 = env['read_3']
    read_4 = env['read_4']
    unpack_23 = env['unpack_23']
    unpack_24 = env['unpack_24']
    unpack_8 = env['unpack_8']
    unpack_9 = env['unpack_9']
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
        if pos + 10 <= end:
            v5, v6, prefix7, = unpack_8(buf, pos)
        else:
            if pos + 6 > end:
                reader.pos = pos
                reader._truncated(6)
            v5, v6, = unpack_9(buf, pos)
            prefix7 = -2
        pos += 6
        if 0 <= prefix7 <= end - pos - 4:
            pos += 4
            v10 = []
            for _ in range(prefix7):
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
                count18 = len_19(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count18 <= end - pos - 4:
                    pos += 4
                    v17 = []
                    for _ in range(count18):
                        if pos + 8 <= end:
                            v21, prefix22, = unpack_23(buf, pos)
                        else:
                            if pos + 4 > end:
                                reader.pos = pos
                                reader._truncated(4)
                            v21, = unpack_24(buf, pos)
                            prefix22 = -2
                        pos += 4
                        if 0 <= prefix22 <= end - pos - 4:
                            v25 = buf[pos + 4 : pos + 4 + prefix22]
                            pos += 4 + prefix22
                        elif prefix22 == -1:
                            v25 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v25 = read_26(reader)
                            pos = reader.pos
                        item20 = {'partition_index': v21, 'records': v25}
                        v17.append(item20)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v17 = None
                item11 = {'name': v12, 'partitions': v17}
                v10.append(item11)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v10 = None
        result = {'transactional_id': v0, 'acks': v5, 'timeout_ms': v6, 'topics': v10}
        reader.pos = pos
        return result
    return read_fields

def _writer_ProduceRequest_v3(env):  # the writer of ProduceRequest v3
    default_0 = env['default_0']
    default_10 = env['default_10']
    default_17 = env['default_17']
    default_24 = env['default_24']
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_8 = env['default_8']
    default_9 = env['default_9']
    errors_39 = env['errors_39']
    locate_40 = env['locate_40']
    pack_16 = env['pack_16']
    pack_22 = env['pack_22']
    pack_30 = env['pack_30']
    pack_31 = env['pack_31']
    pack_37 = env['pack_37']
    pack_5 = env['pack_5']
    pack_7 = env['pack_7']
    small_15 = env['small_15']
    small_21 = env['small_21']
    small_29 = env['small_29']
    small_36 = env['small_36']
    small_4 = env['small_4']
    write_13 = env['write_13']
    write_23 = env['write_23']
    write_27 = env['write_27']
    write_38 = env['write_38']
    write_6 = env['write_6']
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
                n3 = len(data2)
                buf += small_4[n3] if n3 < 256 else pack_5(n3)
                buf += data2
            else:
                write_6(writer, v1)
            try:
                buf += pack_7(obj['acks'], obj['timeout_ms'])
            except KeyError:
                buf += pack_7(obj.get('acks', default_8), obj.get('timeout_ms', default_9))
            try:
                v11 = obj['topics']
            except KeyError:
                v11 = default_10
            if v11 is None:
                write_13(writer, None)
            else:
                n14 = len(v11)
                buf += small_15[n14] if n14 < 256 else pack_16(n14)
                for item12 in v11:
                    try:
                        v18 = item12['name']
                    except KeyError:
                        v18 = default_17
                    if v18.__class__ is str:
                        data19 = v18.encode('utf-8')
                        n20 = len(data19)
                        buf += small_21[n20] if n20 < 256 else pack_22(n20)
                        buf += data19
                    else:
                        write_23(writer, v18)
                    try:
                        v25 = item12['partitions']
                    except KeyError:
                        v25 = default_24
                    if v25 is None:
                        write_27(writer, None)
                    else:
                        n28 = len(v25)
                        buf += small_29[n28] if n28 < 256 else pack_30(n28)
                        for item26 in v25:
                            try:
                                buf += pack_31(item26['partition_index'])
                            except KeyError:
                                buf += pack_31(item26.get('partition_index', default_32))
                            try:
                                v34 = item26['records']
                            except KeyError:
                                v34 = default_33
                            if v34.__class__ is bytes and len(v34) < 1024:
                                n35 = len(v34)
                                buf += small_36[n35] if n35 < 256 else pack_37(n35)
                                buf += v34
                            else:
                                write_38(writer, v34)
                                buf = writer.buf
        except errors_39 as exc:
            if not getattr(exc, 'located', False):
                locate_40(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v0(env):  # the reader of ProduceResponse v0
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_20 = env['default_20']
    default_21 = env['default_21']
    len_11 = env['len_11']
    len_2 = env['len_2']
    len_6 = env['len_6']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_16 = env['unpack_16']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_2(buf, pos)[0] if pos + 4 <= end else -2
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
                count10 = len_11(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 14 > end:
                            reader.pos = pos
                            reader._truncated(14)
                        v13, v14, v15, = unpack_16(buf, pos)
                        pos += 14
                        item12 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': default_17, 'log_start_offset': default_18, 'record_errors': list(default_19), 'error_message': default_20}
                        v9.append(item12)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item3 = {'name': v4, 'partitions': v9}
                v0.append(item3)
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
    default_14 = env['default_14']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_7 = env['default_7']
    errors_25 = env['errors_25']
    locate_26 = env['locate_26']
    pack_12 = env['pack_12']
    pack_20 = env['pack_20']
    pack_21 = env['pack_21']
    pack_6 = env['pack_6']
    small_11 = env['small_11']
    small_19 = env['small_19']
    small_5 = env['small_5']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_3 = env['write_3']
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
                n4 = len(v1)
                buf += small_5[n4] if n4 < 256 else pack_6(n4)
                for item2 in v1:
                    try:
                        v8 = item2['name']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        n10 = len(data9)
                        buf += small_11[n10] if n10 < 256 else pack_12(n10)
                        buf += data9
                    else:
                        write_13(writer, v8)
                    try:
                        v15 = item2['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        n18 = len(v15)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        for item16 in v15:
                            try:
                                buf += pack_21(item16['partition_index'], item16['error_code'], item16['base_offset'])
                            except KeyError:
                                buf += pack_21(item16.get('partition_index', default_22), item16.get('error_code', default_23), item16.get('base_offset', default_24))
        except errors_25 as exc:
            if not getattr(exc, 'located', False):
                locate_26(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v1(env):  # the reader of ProduceResponse v1
    default_17 = env['default_17']
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_20 = env['default_20']
    len_11 = env['len_11']
    len_2 = env['len_2']
    len_6 = env['len_6']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_16 = env['unpack_16']
    unpack_22 = env['unpack_22']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_2(buf, pos)[0] if pos + 4 <= end else -2
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
                count10 = len_11(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 14 > end:
                            reader.pos = pos
                            reader._truncated(14)
                        v13, v14, v15, = unpack_16(buf, pos)
                        pos += 14
                        item12 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': default_17, 'log_start_offset': default_18, 'record_errors': list(default_19), 'error_message': default_20}
                        v9.append(item12)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item3 = {'name': v4, 'partitions': v9}
                v0.append(item3)
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
    default_14 = env['default_14']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_26 = env['default_26']
    default_7 = env['default_7']
    errors_27 = env['errors_27']
    locate_28 = env['locate_28']
    pack_12 = env['pack_12']
    pack_20 = env['pack_20']
    pack_21 = env['pack_21']
    pack_25 = env['pack_25']
    pack_6 = env['pack_6']
    small_11 = env['small_11']
    small_19 = env['small_19']
    small_5 = env['small_5']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_3 = env['write_3']
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
                n4 = len(v1)
                buf += small_5[n4] if n4 < 256 else pack_6(n4)
                for item2 in v1:
                    try:
                        v8 = item2['name']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        n10 = len(data9)
                        buf += small_11[n10] if n10 < 256 else pack_12(n10)
                        buf += data9
                    else:
                        write_13(writer, v8)
                    try:
                        v15 = item2['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        n18 = len(v15)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        for item16 in v15:
                            try:
                                buf += pack_21(item16['partition_index'], item16['error_code'], item16['base_offset'])
                            except KeyError:
                                buf += pack_21(item16.get('partition_index', default_22), item16.get('error_code', default_23), item16.get('base_offset', default_24))
            try:
                buf += pack_25(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_25(obj.get('throttle_time_ms', default_26))
        except errors_27 as exc:
            if not getattr(exc, 'located', False):
                locate_28(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v2(env):  # the reader of ProduceResponse v2
    default_18 = env['default_18']
    default_19 = env['default_19']
    default_20 = env['default_20']
    len_11 = env['len_11']
    len_2 = env['len_2']
    len_6 = env['len_6']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_17 = env['unpack_17']
    unpack_22 = env['unpack_22']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_2(buf, pos)[0] if pos + 4 <= end else -2
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
                count10 = len_11(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 22 > end:
                            reader.pos = pos
                            reader._truncated(22)
                        v13, v14, v15, v16, = unpack_17(buf, pos)
                        pos += 22
                        item12 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': v16, 'log_start_offset': default_18, 'record_errors': list(default_19), 'error_message': default_20}
                        v9.append(item12)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item3 = {'name': v4, 'partitions': v9}
                v0.append(item3)
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
    default_14 = env['default_14']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_27 = env['default_27']
    default_7 = env['default_7']
    errors_28 = env['errors_28']
    locate_29 = env['locate_29']
    pack_12 = env['pack_12']
    pack_20 = env['pack_20']
    pack_21 = env['pack_21']
    pack_26 = env['pack_26']
    pack_6 = env['pack_6']
    small_11 = env['small_11']
    small_19 = env['small_19']
    small_5 = env['small_5']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_3 = env['write_3']
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
                n4 = len(v1)
                buf += small_5[n4] if n4 < 256 else pack_6(n4)
                for item2 in v1:
                    try:
                        v8 = item2['name']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        n10 = len(data9)
                        buf += small_11[n10] if n10 < 256 else pack_12(n10)
                        buf += data9
                    else:
                        write_13(writer, v8)
                    try:
                        v15 = item2['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        n18 = len(v15)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        for item16 in v15:
                            try:
                                buf += pack_21(item16['partition_index'], item16['error_code'], item16['base_offset'], item16['log_append_time_ms'])
                            except KeyError:
                                buf += pack_21(item16.get('partition_index', default_22), item16.get('error_code', default_23), item16.get('base_offset', default_24), item16.get('log_append_time_ms', default_25))
            try:
                buf += pack_26(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_26(obj.get('throttle_time_ms', default_27))
        except errors_28 as exc:
            if not getattr(exc, 'located', False):
                locate_29(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v5(env):  # the reader of ProduceResponse v5
    default_19 = env['default_19']
    default_20 = env['default_20']
    len_11 = env['len_11']
    len_2 = env['len_2']
    len_6 = env['len_6']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_18 = env['unpack_18']
    unpack_22 = env['unpack_22']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_2(buf, pos)[0] if pos + 4 <= end else -2
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
                count10 = len_11(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 30 > end:
                            reader.pos = pos
                            reader._truncated(30)
                        v13, v14, v15, v16, v17, = unpack_18(buf, pos)
                        pos += 30
                        item12 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': v16, 'log_start_offset': v17, 'record_errors': list(default_19), 'error_message': default_20}
                        v9.append(item12)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item3 = {'name': v4, 'partitions': v9}
                v0.append(item3)
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
    default_14 = env['default_14']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_28 = env['default_28']
    default_7 = env['default_7']
    errors_29 = env['errors_29']
    locate_30 = env['locate_30']
    pack_12 = env['pack_12']
    pack_20 = env['pack_20']
    pack_21 = env['pack_21']
    pack_27 = env['pack_27']
    pack_6 = env['pack_6']
    small_11 = env['small_11']
    small_19 = env['small_19']
    small_5 = env['small_5']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_3 = env['write_3']
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
                n4 = len(v1)
                buf += small_5[n4] if n4 < 256 else pack_6(n4)
                for item2 in v1:
                    try:
                        v8 = item2['name']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        n10 = len(data9)
                        buf += small_11[n10] if n10 < 256 else pack_12(n10)
                        buf += data9
                    else:
                        write_13(writer, v8)
                    try:
                        v15 = item2['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        n18 = len(v15)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        for item16 in v15:
                            try:
                                buf += pack_21(item16['partition_index'], item16['error_code'], item16['base_offset'], item16['log_append_time_ms'], item16['log_start_offset'])
                            except KeyError:
                                buf += pack_21(item16.get('partition_index', default_22), item16.get('error_code', default_23), item16.get('base_offset', default_24), item16.get('log_append_time_ms', default_25), item16.get('log_start_offset', default_26))
            try:
                buf += pack_27(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_27(obj.get('throttle_time_ms', default_28))
        except errors_29 as exc:
            if not getattr(exc, 'located', False):
                locate_30(obj)
            raise
    return write_fields

def _reader_ProduceResponse_v8(env):  # the reader of ProduceResponse v8
    len_11 = env['len_11']
    len_2 = env['len_2']
    len_32 = env['len_32']
    len_6 = env['len_6']
    read_28 = env['read_28']
    read_29 = env['read_29']
    read_33 = env['read_33']
    read_34 = env['read_34']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_19 = env['unpack_19']
    unpack_20 = env['unpack_20']
    unpack_25 = env['unpack_25']
    unpack_26 = env['unpack_26']
    unpack_36 = env['unpack_36']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_2(buf, pos)[0] if pos + 4 <= end else -2
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
                count10 = len_11(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 34 <= end:
                            v13, v14, v15, v16, v17, prefix18, = unpack_19(buf, pos)
                        else:
                            if pos + 30 > end:
                                reader.pos = pos
                                reader._truncated(30)
                            v13, v14, v15, v16, v17, = unpack_20(buf, pos)
                            prefix18 = -2
                        pos += 30
                        if 0 <= prefix18 <= end - pos - 4:
                            pos += 4
                            v21 = []
                            for _ in range(prefix18):
                                if pos + 6 <= end:
                                    v23, prefix24, = unpack_25(buf, pos)
                                else:
                                    if pos + 4 > end:
                                        reader.pos = pos
                                        reader._truncated(4)
                                    v23, = unpack_26(buf, pos)
                                    prefix24 = -2
                                pos += 4
                                if 0 <= prefix24 <= end - pos - 2:
                                    try:
                                        v27 = str(buf[pos + 2 : pos + 2 + prefix24], 'utf-8')
                                    except UnicodeDecodeError:
                                        reader.pos = pos
                                        read_28(reader)
                                        raise
                                    pos += 2 + prefix24
                                elif prefix24 == -1:
                                    v27 = None
                                    pos += 2
                                else:
                                    reader.pos = pos
                                    v27 = read_29(reader)
                                    pos = reader.pos
                                item22 = {'batch_index': v23, 'batch_index_error_message': v27}
                                v21.append(item22)
                        else:
                            reader.pos = pos
                            reader.array_length(False, False)
                            pos = reader.pos
                            v21 = None
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
                        item12 = {'partition_index': v13, 'error_code': v14, 'base_offset': v15, 'log_append_time_ms': v16, 'log_start_offset': v17, 'record_errors': v21, 'error_message': v30}
                        v9.append(item12)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item3 = {'name': v4, 'partitions': v9}
                v0.append(item3)
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
    default_14 = env['default_14']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_35 = env['default_35']
    default_36 = env['default_36']
    default_43 = env['default_43']
    default_48 = env['default_48']
    default_7 = env['default_7']
    errors_49 = env['errors_49']
    locate_50 = env['locate_50']
    pack_12 = env['pack_12']
    pack_20 = env['pack_20']
    pack_21 = env['pack_21']
    pack_33 = env['pack_33']
    pack_34 = env['pack_34']
    pack_41 = env['pack_41']
    pack_47 = env['pack_47']
    pack_6 = env['pack_6']
    small_11 = env['small_11']
    small_19 = env['small_19']
    small_32 = env['small_32']
    small_40 = env['small_40']
    small_5 = env['small_5']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_3 = env['write_3']
    write_30 = env['write_30']
    write_42 = env['write_42']
    write_46 = env['write_46']
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
                n4 = len(v1)
                buf += small_5[n4] if n4 < 256 else pack_6(n4)
                for item2 in v1:
                    try:
                        v8 = item2['name']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        n10 = len(data9)
                        buf += small_11[n10] if n10 < 256 else pack_12(n10)
                        buf += data9
                    else:
                        write_13(writer, v8)
                    try:
                        v15 = item2['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        n18 = len(v15)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        for item16 in v15:
                            try:
                                buf += pack_21(item16['partition_index'], item16['error_code'], item16['base_offset'], item16['log_append_time_ms'], item16['log_start_offset'])
                            except KeyError:
                                buf += pack_21(item16.get('partition_index', default_22), item16.get('error_code', default_23), item16.get('base_offset', default_24), item16.get('log_append_time_ms', default_25), item16.get('log_start_offset', default_26))
                            try:
                                v28 = item16['record_errors']
                            except KeyError:
                                v28 = default_27
                            if v28 is None:
                                write_30(writer, None)
                            else:
                                n31 = len(v28)
                                buf += small_32[n31] if n31 < 256 else pack_33(n31)
                                for item29 in v28:
                                    try:
                                        buf += pack_34(item29['batch_index'])
                                    except KeyError:
                                        buf += pack_34(item29.get('batch_index', default_35))
                                    try:
                                        v37 = item29['batch_index_error_message']
                                    except KeyError:
                                        v37 = default_36
                                    if v37 is None:
                                        buf += b'\xff\xff'
                                    elif v37.__class__ is str:
                                        data38 = v37.encode('utf-8')
                                        n39 = len(data38)
                                        buf += small_40[n39] if n39 < 256 else pack_41(n39)
                                        buf += data38
                                    else:
                                        write_42(writer, v37)
                            try:
                                v44 = item16['error_message']
                            except KeyError:
                                v44 = default_43
                            if v44 is None:
                                buf += b'\xff\xff'
                            else:
                                write_46(writer, v44)
            try:
                buf += pack_47(obj['throttle_time_ms'])
            except KeyError:
                buf += pack_47(obj.get('throttle_time_ms', default_48))
        except errors_49 as exc:
            if not getattr(exc, 'located', False):
                locate_50(obj)
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
    len_15 = env['len_15']
    read_11 = env['read_11']
    read_12 = env['read_12']
    unpack_20 = env['unpack_20']
    unpack_4 = env['unpack_4']
    unpack_5 = env['unpack_5']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 16 <= end:
            v0, v1, v2, prefix3, = unpack_4(buf, pos)
        else:
            if pos + 12 > end:
                reader.pos = pos
                reader._truncated(12)
            v0, v1, v2, = unpack_5(buf, pos)
            prefix3 = -2
        pos += 12
        if 0 <= prefix3 <= end - pos - 4:
            pos += 4
            v6 = []
            for _ in range(prefix3):
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
                count14 = len_15(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count14 <= end - pos - 4:
                    pos += 4
                    v13 = []
                    for _ in range(count14):
                        if pos + 16 > end:
                            reader.pos = pos
                            reader._truncated(16)
                        v17, v18, v19, = unpack_20(buf, pos)
                        pos += 16
                        item16 = {'partition': v17, 'fetch_offset': v18, 'partition_max_bytes': v19, 'current_leader_epoch': default_21, 'log_start_offset': default_22}
                        v13.append(item16)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v13 = None
                item7 = {'topic': v8, 'partitions': v13}
                v6.append(item7)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v6 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'topics': v6, 'max_bytes': default_23, 'isolation_level': default_24, 'session_id': default_25, 'session_epoch': default_26, 'forgotten_topics_data': list(default_27), 'rack_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v0(env):  # the writer of FetchRequest v0
    default_1 = env['default_1']
    default_11 = env['default_11']
    default_18 = env['default_18']
    default_2 = env['default_2']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_3 = env['default_3']
    default_4 = env['default_4']
    errors_29 = env['errors_29']
    locate_30 = env['locate_30']
    pack_0 = env['pack_0']
    pack_10 = env['pack_10']
    pack_16 = env['pack_16']
    pack_24 = env['pack_24']
    pack_25 = env['pack_25']
    small_15 = env['small_15']
    small_23 = env['small_23']
    small_9 = env['small_9']
    write_17 = env['write_17']
    write_21 = env['write_21']
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
                n8 = len(v5)
                buf += small_9[n8] if n8 < 256 else pack_10(n8)
                for item6 in v5:
                    try:
                        v12 = item6['topic']
                    except KeyError:
                        v12 = default_11
                    if v12.__class__ is str:
                        data13 = v12.encode('utf-8')
                        n14 = len(data13)
                        buf += small_15[n14] if n14 < 256 else pack_16(n14)
                        buf += data13
                    else:
                        write_17(writer, v12)
                    try:
                        v19 = item6['partitions']
                    except KeyError:
                        v19 = default_18
                    if v19 is None:
                        write_21(writer, None)
                    else:
                        n22 = len(v19)
                        buf += small_23[n22] if n22 < 256 else pack_24(n22)
                        for item20 in v19:
                            try:
                                buf += pack_25(item20['partition'], item20['fetch_offset'], item20['partition_max_bytes'])
                            except KeyError:
                                buf += pack_25(item20.get('partition', default_26), item20.get('fetch_offset', default_27), item20.get('partition_max_bytes', default_28))
        except errors_29 as exc:
            if not getattr(exc, 'located', False):
                locate_30(obj)
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
    len_16 = env['len_16']
    read_12 = env['read_12']
    read_13 = env['read_13']
    unpack_21 = env['unpack_21']
    unpack_5 = env['unpack_5']
    unpack_6 = env['unpack_6']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 20 <= end:
            v0, v1, v2, v3, prefix4, = unpack_5(buf, pos)
        else:
            if pos + 16 > end:
                reader.pos = pos
                reader._truncated(16)
            v0, v1, v2, v3, = unpack_6(buf, pos)
            prefix4 = -2
        pos += 16
        if 0 <= prefix4 <= end - pos - 4:
            pos += 4
            v7 = []
            for _ in range(prefix4):
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
                count15 = len_16(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count15 <= end - pos - 4:
                    pos += 4
                    v14 = []
                    for _ in range(count15):
                        if pos + 16 > end:
                            reader.pos = pos
                            reader._truncated(16)
                        v18, v19, v20, = unpack_21(buf, pos)
                        pos += 16
                        item17 = {'partition': v18, 'fetch_offset': v19, 'partition_max_bytes': v20, 'current_leader_epoch': default_22, 'log_start_offset': default_23}
                        v14.append(item17)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v14 = None
                item8 = {'topic': v9, 'partitions': v14}
                v7.append(item8)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v7 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'topics': v7, 'isolation_level': default_24, 'session_id': default_25, 'session_epoch': default_26, 'forgotten_topics_data': list(default_27), 'rack_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v3(env):  # the writer of FetchRequest v3
    default_1 = env['default_1']
    default_12 = env['default_12']
    default_19 = env['default_19']
    default_2 = env['default_2']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_3 = env['default_3']
    default_4 = env['default_4']
    default_5 = env['default_5']
    errors_30 = env['errors_30']
    locate_31 = env['locate_31']
    pack_0 = env['pack_0']
    pack_11 = env['pack_11']
    pack_17 = env['pack_17']
    pack_25 = env['pack_25']
    pack_26 = env['pack_26']
    small_10 = env['small_10']
    small_16 = env['small_16']
    small_24 = env['small_24']
    write_18 = env['write_18']
    write_22 = env['write_22']
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
                n9 = len(v6)
                buf += small_10[n9] if n9 < 256 else pack_11(n9)
                for item7 in v6:
                    try:
                        v13 = item7['topic']
                    except KeyError:
                        v13 = default_12
                    if v13.__class__ is str:
                        data14 = v13.encode('utf-8')
                        n15 = len(data14)
                        buf += small_16[n15] if n15 < 256 else pack_17(n15)
                        buf += data14
                    else:
                        write_18(writer, v13)
                    try:
                        v20 = item7['partitions']
                    except KeyError:
                        v20 = default_19
                    if v20 is None:
                        write_22(writer, None)
                    else:
                        n23 = len(v20)
                        buf += small_24[n23] if n23 < 256 else pack_25(n23)
                        for item21 in v20:
                            try:
                                buf += pack_26(item21['partition'], item21['fetch_offset'], item21['partition_max_bytes'])
                            except KeyError:
                                buf += pack_26(item21.get('partition', default_27), item21.get('fetch_offset', default_28), item21.get('partition_max_bytes', default_29))
        except errors_30 as exc:
            if not getattr(exc, 'located', False):
                locate_31(obj)
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
    len_17 = env['len_17']
    read_13 = env['read_13']
    read_14 = env['read_14']
    unpack_22 = env['unpack_22']
    unpack_6 = env['unpack_6']
    unpack_7 = env['unpack_7']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 21 <= end:
            v0, v1, v2, v3, v4, prefix5, = unpack_6(buf, pos)
        else:
            if pos + 17 > end:
                reader.pos = pos
                reader._truncated(17)
            v0, v1, v2, v3, v4, = unpack_7(buf, pos)
            prefix5 = -2
        pos += 17
        if 0 <= prefix5 <= end - pos - 4:
            pos += 4
            v8 = []
            for _ in range(prefix5):
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
                count16 = len_17(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count16 <= end - pos - 4:
                    pos += 4
                    v15 = []
                    for _ in range(count16):
                        if pos + 16 > end:
                            reader.pos = pos
                            reader._truncated(16)
                        v19, v20, v21, = unpack_22(buf, pos)
                        pos += 16
                        item18 = {'partition': v19, 'fetch_offset': v20, 'partition_max_bytes': v21, 'current_leader_epoch': default_23, 'log_start_offset': default_24}
                        v15.append(item18)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v15 = None
                item9 = {'topic': v10, 'partitions': v15}
                v8.append(item9)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v8 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'topics': v8, 'session_id': default_25, 'session_epoch': default_26, 'forgotten_topics_data': list(default_27), 'rack_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v4(env):  # the writer of FetchRequest v4
    default_1 = env['default_1']
    default_13 = env['default_13']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_3 = env['default_3']
    default_30 = env['default_30']
    default_4 = env['default_4']
    default_5 = env['default_5']
    default_6 = env['default_6']
    errors_31 = env['errors_31']
    locate_32 = env['locate_32']
    pack_0 = env['pack_0']
    pack_12 = env['pack_12']
    pack_18 = env['pack_18']
    pack_26 = env['pack_26']
    pack_27 = env['pack_27']
    small_11 = env['small_11']
    small_17 = env['small_17']
    small_25 = env['small_25']
    write_19 = env['write_19']
    write_23 = env['write_23']
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
                n10 = len(v7)
                buf += small_11[n10] if n10 < 256 else pack_12(n10)
                for item8 in v7:
                    try:
                        v14 = item8['topic']
                    except KeyError:
                        v14 = default_13
                    if v14.__class__ is str:
                        data15 = v14.encode('utf-8')
                        n16 = len(data15)
                        buf += small_17[n16] if n16 < 256 else pack_18(n16)
                        buf += data15
                    else:
                        write_19(writer, v14)
                    try:
                        v21 = item8['partitions']
                    except KeyError:
                        v21 = default_20
                    if v21 is None:
                        write_23(writer, None)
                    else:
                        n24 = len(v21)
                        buf += small_25[n24] if n24 < 256 else pack_26(n24)
                        for item22 in v21:
                            try:
                                buf += pack_27(item22['partition'], item22['fetch_offset'], item22['partition_max_bytes'])
                            except KeyError:
                                buf += pack_27(item22.get('partition', default_28), item22.get('fetch_offset', default_29), item22.get('partition_max_bytes', default_30))
        except errors_31 as exc:
            if not getattr(exc, 'located', False):
                locate_32(obj)
            raise
    return write_fields

def _reader_FetchRequest_v5(env):  # the reader of FetchRequest v5
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    len_12 = env['len_12']
    len_17 = env['len_17']
    read_13 = env['read_13']
    read_14 = env['read_14']
    unpack_23 = env['unpack_23']
    unpack_6 = env['unpack_6']
    unpack_7 = env['unpack_7']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 21 <= end:
            v0, v1, v2, v3, v4, prefix5, = unpack_6(buf, pos)
        else:
            if pos + 17 > end:
                reader.pos = pos
                reader._truncated(17)
            v0, v1, v2, v3, v4, = unpack_7(buf, pos)
            prefix5 = -2
        pos += 17
        if 0 <= prefix5 <= end - pos - 4:
            pos += 4
            v8 = []
            for _ in range(prefix5):
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
                count16 = len_17(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count16 <= end - pos - 4:
                    pos += 4
                    v15 = []
                    for _ in range(count16):
                        if pos + 24 > end:
                            reader.pos = pos
                            reader._truncated(24)
                        v19, v20, v21, v22, = unpack_23(buf, pos)
                        pos += 24
                        item18 = {'partition': v19, 'fetch_offset': v20, 'log_start_offset': v21, 'partition_max_bytes': v22, 'current_leader_epoch': default_24}
                        v15.append(item18)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v15 = None
                item9 = {'topic': v10, 'partitions': v15}
                v8.append(item9)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v8 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'topics': v8, 'session_id': default_25, 'session_epoch': default_26, 'forgotten_topics_data': list(default_27), 'rack_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v5(env):  # the writer of FetchRequest v5
    default_1 = env['default_1']
    default_13 = env['default_13']
    default_2 = env['default_2']
    default_20 = env['default_20']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_3 = env['default_3']
    default_30 = env['default_30']
    default_31 = env['default_31']
    default_4 = env['default_4']
    default_5 = env['default_5']
    default_6 = env['default_6']
    errors_32 = env['errors_32']
    locate_33 = env['locate_33']
    pack_0 = env['pack_0']
    pack_12 = env['pack_12']
    pack_18 = env['pack_18']
    pack_26 = env['pack_26']
    pack_27 = env['pack_27']
    small_11 = env['small_11']
    small_17 = env['small_17']
    small_25 = env['small_25']
    write_19 = env['write_19']
    write_23 = env['write_23']
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
                n10 = len(v7)
                buf += small_11[n10] if n10 < 256 else pack_12(n10)
                for item8 in v7:
                    try:
                        v14 = item8['topic']
                    except KeyError:
                        v14 = default_13
                    if v14.__class__ is str:
                        data15 = v14.encode('utf-8')
                        n16 = len(data15)
                        buf += small_17[n16] if n16 < 256 else pack_18(n16)
                        buf += data15
                    else:
                        write_19(writer, v14)
                    try:
                        v21 = item8['partitions']
                    except KeyError:
                        v21 = default_20
                    if v21 is None:
                        write_23(writer, None)
                    else:
                        n24 = len(v21)
                        buf += small_25[n24] if n24 < 256 else pack_26(n24)
                        for item22 in v21:
                            try:
                                buf += pack_27(item22['partition'], item22['fetch_offset'], item22['log_start_offset'], item22['partition_max_bytes'])
                            except KeyError:
                                buf += pack_27(item22.get('partition', default_28), item22.get('fetch_offset', default_29), item22.get('log_start_offset', default_30), item22.get('partition_max_bytes', default_31))
        except errors_32 as exc:
            if not getattr(exc, 'located', False):
                locate_33(obj)
            raise
    return write_fields

def _reader_FetchRequest_v7(env):  # the reader of FetchRequest v7
    default_26 = env['default_26']
    default_38 = env['default_38']
    len_14 = env['len_14']
    len_19 = env['len_19']
    len_29 = env['len_29']
    len_33 = env['len_33']
    read_15 = env['read_15']
    read_16 = env['read_16']
    read_34 = env['read_34']
    read_35 = env['read_35']
    read_37 = env['read_37']
    unpack_25 = env['unpack_25']
    unpack_8 = env['unpack_8']
    unpack_9 = env['unpack_9']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 29 <= end:
            v0, v1, v2, v3, v4, v5, v6, prefix7, = unpack_8(buf, pos)
        else:
            if pos + 25 > end:
                reader.pos = pos
                reader._truncated(25)
            v0, v1, v2, v3, v4, v5, v6, = unpack_9(buf, pos)
            prefix7 = -2
        pos += 25
        if 0 <= prefix7 <= end - pos - 4:
            pos += 4
            v10 = []
            for _ in range(prefix7):
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
                count18 = len_19(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count18 <= end - pos - 4:
                    pos += 4
                    v17 = []
                    for _ in range(count18):
                        if pos + 24 > end:
                            reader.pos = pos
                            reader._truncated(24)
                        v21, v22, v23, v24, = unpack_25(buf, pos)
                        pos += 24
                        item20 = {'partition': v21, 'fetch_offset': v22, 'log_start_offset': v23, 'partition_max_bytes': v24, 'current_leader_epoch': default_26}
                        v17.append(item20)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v17 = None
                item11 = {'topic': v12, 'partitions': v17}
                v10.append(item11)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v10 = None
        count28 = len_29(buf, pos)[0] if pos + 4 <= end else -2
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
                item30 = {'topic': v31, 'partitions': v36}
                v27.append(item30)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v27 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'session_id': v5, 'session_epoch': v6, 'topics': v10, 'forgotten_topics_data': v27, 'rack_id': default_38}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v7(env):  # the writer of FetchRequest v7
    default_1 = env['default_1']
    default_15 = env['default_15']
    default_2 = env['default_2']
    default_22 = env['default_22']
    default_3 = env['default_3']
    default_30 = env['default_30']
    default_31 = env['default_31']
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_34 = env['default_34']
    default_4 = env['default_4']
    default_41 = env['default_41']
    default_48 = env['default_48']
    default_5 = env['default_5']
    default_6 = env['default_6']
    default_7 = env['default_7']
    default_8 = env['default_8']
    errors_51 = env['errors_51']
    locate_52 = env['locate_52']
    pack_0 = env['pack_0']
    pack_14 = env['pack_14']
    pack_20 = env['pack_20']
    pack_28 = env['pack_28']
    pack_29 = env['pack_29']
    pack_40 = env['pack_40']
    pack_46 = env['pack_46']
    small_13 = env['small_13']
    small_19 = env['small_19']
    small_27 = env['small_27']
    small_39 = env['small_39']
    small_45 = env['small_45']
    write_11 = env['write_11']
    write_21 = env['write_21']
    write_25 = env['write_25']
    write_37 = env['write_37']
    write_47 = env['write_47']
    write_50 = env['write_50']
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
                n12 = len(v9)
                buf += small_13[n12] if n12 < 256 else pack_14(n12)
                for item10 in v9:
                    try:
                        v16 = item10['topic']
                    except KeyError:
                        v16 = default_15
                    if v16.__class__ is str:
                        data17 = v16.encode('utf-8')
                        n18 = len(data17)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        buf += data17
                    else:
                        write_21(writer, v16)
                    try:
                        v23 = item10['partitions']
                    except KeyError:
                        v23 = default_22
                    if v23 is None:
                        write_25(writer, None)
                    else:
                        n26 = len(v23)
                        buf += small_27[n26] if n26 < 256 else pack_28(n26)
                        for item24 in v23:
                            try:
                                buf += pack_29(item24['partition'], item24['fetch_offset'], item24['log_start_offset'], item24['partition_max_bytes'])
                            except KeyError:
                                buf += pack_29(item24.get('partition', default_30), item24.get('fetch_offset', default_31), item24.get('log_start_offset', default_32), item24.get('partition_max_bytes', default_33))
            try:
                v35 = obj['forgotten_topics_data']
            except KeyError:
                v35 = default_34
            if v35 is None:
                write_37(writer, None)
            else:
                n38 = len(v35)
                buf += small_39[n38] if n38 < 256 else pack_40(n38)
                for item36 in v35:
                    try:
                        v42 = item36['topic']
                    except KeyError:
                        v42 = default_41
                    if v42.__class__ is str:
                        data43 = v42.encode('utf-8')
                        n44 = len(data43)
                        buf += small_45[n44] if n44 < 256 else pack_46(n44)
                        buf += data43
                    else:
                        write_47(writer, v42)
                    try:
                        v49 = item36['partitions']
                    except KeyError:
                        v49 = default_48
                    write_50(writer, v49)
                    buf = writer.buf
        except errors_51 as exc:
            if not getattr(exc, 'located', False):
                locate_52(obj)
            raise
    return write_fields

def _reader_FetchRequest_v9(env):  # the reader of FetchRequest v9
    default_38 = env['default_38']
    len_14 = env['len_14']
    len_19 = env['len_19']
    len_29 = env['len_29']
    len_33 = env['len_33']
    read_15 = env['read_15']
    read_16 = env['read_16']
    read_34 = env['read_34']
    read_35 = env['read_35']
    read_37 = env['read_37']
    unpack_26 = env['unpack_26']
    unpack_8 = env['unpack_8']
    unpack_9 = env['unpack_9']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 29 <= end:
            v0, v1, v2, v3, v4, v5, v6, prefix7, = unpack_8(buf, pos)
        else:
            if pos + 25 > end:
                reader.pos = pos
                reader._truncated(25)
            v0, v1, v2, v3, v4, v5, v6, = unpack_9(buf, pos)
            prefix7 = -2
        pos += 25
        if 0 <= prefix7 <= end - pos - 4:
            pos += 4
            v10 = []
            for _ in range(prefix7):
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
                count18 = len_19(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count18 <= end - pos - 4:
                    pos += 4
                    v17 = []
                    for _ in range(count18):
                        if pos + 28 > end:
                            reader.pos = pos
                            reader._truncated(28)
                        v21, v22, v23, v24, v25, = unpack_26(buf, pos)
                        pos += 28
                        item20 = {'partition': v21, 'current_leader_epoch': v22, 'fetch_offset': v23, 'log_start_offset': v24, 'partition_max_bytes': v25}
                        v17.append(item20)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v17 = None
                item11 = {'topic': v12, 'partitions': v17}
                v10.append(item11)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v10 = None
        count28 = len_29(buf, pos)[0] if pos + 4 <= end else -2
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
                item30 = {'topic': v31, 'partitions': v36}
                v27.append(item30)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v27 = None
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'session_id': v5, 'session_epoch': v6, 'topics': v10, 'forgotten_topics_data': v27, 'rack_id': default_38}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v9(env):  # the writer of FetchRequest v9
    default_1 = env['default_1']
    default_15 = env['default_15']
    default_2 = env['default_2']
    default_22 = env['default_22']
    default_3 = env['default_3']
    default_30 = env['default_30']
    default_31 = env['default_31']
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_34 = env['default_34']
    default_35 = env['default_35']
    default_4 = env['default_4']
    default_42 = env['default_42']
    default_49 = env['default_49']
    default_5 = env['default_5']
    default_6 = env['default_6']
    default_7 = env['default_7']
    default_8 = env['default_8']
    errors_52 = env['errors_52']
    locate_53 = env['locate_53']
    pack_0 = env['pack_0']
    pack_14 = env['pack_14']
    pack_20 = env['pack_20']
    pack_28 = env['pack_28']
    pack_29 = env['pack_29']
    pack_41 = env['pack_41']
    pack_47 = env['pack_47']
    small_13 = env['small_13']
    small_19 = env['small_19']
    small_27 = env['small_27']
    small_40 = env['small_40']
    small_46 = env['small_46']
    write_11 = env['write_11']
    write_21 = env['write_21']
    write_25 = env['write_25']
    write_38 = env['write_38']
    write_48 = env['write_48']
    write_51 = env['write_51']
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
                n12 = len(v9)
                buf += small_13[n12] if n12 < 256 else pack_14(n12)
                for item10 in v9:
                    try:
                        v16 = item10['topic']
                    except KeyError:
                        v16 = default_15
                    if v16.__class__ is str:
                        data17 = v16.encode('utf-8')
                        n18 = len(data17)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        buf += data17
                    else:
                        write_21(writer, v16)
                    try:
                        v23 = item10['partitions']
                    except KeyError:
                        v23 = default_22
                    if v23 is None:
                        write_25(writer, None)
                    else:
                        n26 = len(v23)
                        buf += small_27[n26] if n26 < 256 else pack_28(n26)
                        for item24 in v23:
                            try:
                                buf += pack_29(item24['partition'], item24['current_leader_epoch'], item24['fetch_offset'], item24['log_start_offset'], item24['partition_max_bytes'])
                            except KeyError:
                                buf += pack_29(item24.get('partition', default_30), item24.get('current_leader_epoch', default_31), item24.get('fetch_offset', default_32), item24.get('log_start_offset', default_33), item24.get('partition_max_bytes', default_34))
            try:
                v36 = obj['forgotten_topics_data']
            except KeyError:
                v36 = default_35
            if v36 is None:
                write_38(writer, None)
            else:
                n39 = len(v36)
                buf += small_40[n39] if n39 < 256 else pack_41(n39)
                for item37 in v36:
                    try:
                        v43 = item37['topic']
                    except KeyError:
                        v43 = default_42
                    if v43.__class__ is str:
                        data44 = v43.encode('utf-8')
                        n45 = len(data44)
                        buf += small_46[n45] if n45 < 256 else pack_47(n45)
                        buf += data44
                    else:
                        write_48(writer, v43)
                    try:
                        v50 = item37['partitions']
                    except KeyError:
                        v50 = default_49
                    write_51(writer, v50)
                    buf = writer.buf
        except errors_52 as exc:
            if not getattr(exc, 'located', False):
                locate_53(obj)
            raise
    return write_fields

def _reader_FetchRequest_v11(env):  # the reader of FetchRequest v11
    len_14 = env['len_14']
    len_19 = env['len_19']
    len_29 = env['len_29']
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
    unpack_8 = env['unpack_8']
    unpack_9 = env['unpack_9']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 29 <= end:
            v0, v1, v2, v3, v4, v5, v6, prefix7, = unpack_8(buf, pos)
        else:
            if pos + 25 > end:
                reader.pos = pos
                reader._truncated(25)
            v0, v1, v2, v3, v4, v5, v6, = unpack_9(buf, pos)
            prefix7 = -2
        pos += 25
        if 0 <= prefix7 <= end - pos - 4:
            pos += 4
            v10 = []
            for _ in range(prefix7):
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
                count18 = len_19(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count18 <= end - pos - 4:
                    pos += 4
                    v17 = []
                    for _ in range(count18):
                        if pos + 28 > end:
                            reader.pos = pos
                            reader._truncated(28)
                        v21, v22, v23, v24, v25, = unpack_26(buf, pos)
                        pos += 28
                        item20 = {'partition': v21, 'current_leader_epoch': v22, 'fetch_offset': v23, 'log_start_offset': v24, 'partition_max_bytes': v25}
                        v17.append(item20)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v17 = None
                item11 = {'topic': v12, 'partitions': v17}
                v10.append(item11)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v10 = None
        count28 = len_29(buf, pos)[0] if pos + 4 <= end else -2
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
                item30 = {'topic': v31, 'partitions': v36}
                v27.append(item30)
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
        result = {'replica_id': v0, 'max_wait_ms': v1, 'min_bytes': v2, 'max_bytes': v3, 'isolation_level': v4, 'session_id': v5, 'session_epoch': v6, 'topics': v10, 'forgotten_topics_data': v27, 'rack_id': v38}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchRequest_v11(env):  # the writer of FetchRequest v11
    default_1 = env['default_1']
    default_15 = env['default_15']
    default_2 = env['default_2']
    default_22 = env['default_22']
    default_3 = env['default_3']
    default_30 = env['default_30']
    default_31 = env['default_31']
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_34 = env['default_34']
    default_35 = env['default_35']
    default_4 = env['default_4']
    default_42 = env['default_42']
    default_49 = env['default_49']
    default_5 = env['default_5']
    default_52 = env['default_52']
    default_6 = env['default_6']
    default_7 = env['default_7']
    default_8 = env['default_8']
    errors_59 = env['errors_59']
    locate_60 = env['locate_60']
    pack_0 = env['pack_0']
    pack_14 = env['pack_14']
    pack_20 = env['pack_20']
    pack_28 = env['pack_28']
    pack_29 = env['pack_29']
    pack_41 = env['pack_41']
    pack_47 = env['pack_47']
    pack_57 = env['pack_57']
    small_13 = env['small_13']
    small_19 = env['small_19']
    small_27 = env['small_27']
    small_40 = env['small_40']
    small_46 = env['small_46']
    small_56 = env['small_56']
    write_11 = env['write_11']
    write_21 = env['write_21']
    write_25 = env['write_25']
    write_38 = env['write_38']
    write_48 = env['write_48']
    write_51 = env['write_51']
    write_58 = env['write_58']
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
                n12 = len(v9)
                buf += small_13[n12] if n12 < 256 else pack_14(n12)
                for item10 in v9:
                    try:
                        v16 = item10['topic']
                    except KeyError:
                        v16 = default_15
                    if v16.__class__ is str:
                        data17 = v16.encode('utf-8')
                        n18 = len(data17)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        buf += data17
                    else:
                        write_21(writer, v16)
                    try:
                        v23 = item10['partitions']
                    except KeyError:
                        v23 = default_22
                    if v23 is None:
                        write_25(writer, None)
                    else:
                        n26 = len(v23)
                        buf += small_27[n26] if n26 < 256 else pack_28(n26)
                        for item24 in v23:
                            try:
                                buf += pack_29(item24['partition'], item24['current_leader_epoch'], item24['fetch_offset'], item24['log_start_offset'], item24['partition_max_bytes'])
                            except KeyError:
                                buf += pack_29(item24.get('partition', default_30), item24.get('current_leader_epoch', default_31), item24.get('fetch_offset', default_32), item24.get('log_start_offset', default_33), item24.get('partition_max_bytes', default_34))
            try:
                v36 = obj['forgotten_topics_data']
            except KeyError:
                v36 = default_35
            if v36 is None:
                write_38(writer, None)
            else:
                n39 = len(v36)
                buf += small_40[n39] if n39 < 256 else pack_41(n39)
                for item37 in v36:
                    try:
                        v43 = item37['topic']
                    except KeyError:
                        v43 = default_42
                    if v43.__class__ is str:
                        data44 = v43.encode('utf-8')
                        n45 = len(data44)
                        buf += small_46[n45] if n45 < 256 else pack_47(n45)
                        buf += data44
                    else:
                        write_48(writer, v43)
                    try:
                        v50 = item37['partitions']
                    except KeyError:
                        v50 = default_49
                    write_51(writer, v50)
                    buf = writer.buf
            try:
                v53 = obj['rack_id']
            except KeyError:
                v53 = default_52
            if v53.__class__ is str:
                data54 = v53.encode('utf-8')
                n55 = len(data54)
                buf += small_56[n55] if n55 < 256 else pack_57(n55)
                buf += data54
            else:
                write_58(writer, v53)
        except errors_59 as exc:
            if not getattr(exc, 'located', False):
                locate_60(obj)
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
    len_11 = env['len_11']
    len_2 = env['len_2']
    len_6 = env['len_6']
    read_20 = env['read_20']
    read_7 = env['read_7']
    read_8 = env['read_8']
    unpack_17 = env['unpack_17']
    unpack_18 = env['unpack_18']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        count1 = len_2(buf, pos)[0] if pos + 4 <= end else -2
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
                count10 = len_11(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count10 <= end - pos - 4:
                    pos += 4
                    v9 = []
                    for _ in range(count10):
                        if pos + 18 <= end:
                            v13, v14, v15, prefix16, = unpack_17(buf, pos)
                        else:
                            if pos + 14 > end:
                                reader.pos = pos
                                reader._truncated(14)
                            v13, v14, v15, = unpack_18(buf, pos)
                            prefix16 = -2
                        pos += 14
                        if 0 <= prefix16 <= end - pos - 4:
                            v19 = buf[pos + 4 : pos + 4 + prefix16]
                            pos += 4 + prefix16
                        elif prefix16 == -1:
                            v19 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v19 = read_20(reader)
                            pos = reader.pos
                        item12 = {'partition_index': v13, 'error_code': v14, 'high_watermark': v15, 'records': v19, 'last_stable_offset': default_21, 'log_start_offset': default_22, 'aborted_transactions': list(default_23), 'preferred_read_replica': default_24}
                        v9.append(item12)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v9 = None
                item3 = {'topic': v4, 'partitions': v9}
                v0.append(item3)
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
    default_14 = env['default_14']
    default_22 = env['default_22']
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_7 = env['default_7']
    errors_31 = env['errors_31']
    locate_32 = env['locate_32']
    pack_12 = env['pack_12']
    pack_20 = env['pack_20']
    pack_21 = env['pack_21']
    pack_29 = env['pack_29']
    pack_6 = env['pack_6']
    small_11 = env['small_11']
    small_19 = env['small_19']
    small_28 = env['small_28']
    small_5 = env['small_5']
    write_13 = env['write_13']
    write_17 = env['write_17']
    write_3 = env['write_3']
    write_30 = env['write_30']
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
                n4 = len(v1)
                buf += small_5[n4] if n4 < 256 else pack_6(n4)
                for item2 in v1:
                    try:
                        v8 = item2['topic']
                    except KeyError:
                        v8 = default_7
                    if v8.__class__ is str:
                        data9 = v8.encode('utf-8')
                        n10 = len(data9)
                        buf += small_11[n10] if n10 < 256 else pack_12(n10)
                        buf += data9
                    else:
                        write_13(writer, v8)
                    try:
                        v15 = item2['partitions']
                    except KeyError:
                        v15 = default_14
                    if v15 is None:
                        write_17(writer, None)
                    else:
                        n18 = len(v15)
                        buf += small_19[n18] if n18 < 256 else pack_20(n18)
                        for item16 in v15:
                            try:
                                buf += pack_21(item16['partition_index'], item16['error_code'], item16['high_watermark'])
                            except KeyError:
                                buf += pack_21(item16.get('partition_index', default_22), item16.get('error_code', default_23), item16.get('high_watermark', default_24))
                            try:
                                v26 = item16['records']
                            except KeyError:
                                v26 = default_25
                            if v26.__class__ is bytes and len(v26) < 1024:
                                n27 = len(v26)
                                buf += small_28[n27] if n27 < 256 else pack_29(n27)
                                buf += v26
                            else:
                                write_30(writer, v26)
                                buf = writer.buf
        except errors_31 as exc:
            if not getattr(exc, 'located', False):
                locate_32(obj)
            raise
    return write_fields

def _reader_FetchResponse_v1(env):  # the reader of FetchResponse v1
    default_23 = env['default_23']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    len_13 = env['len_13']
    len_8 = env['len_8']
    read_10 = env['read_10']
    read_22 = env['read_22']
    read_9 = env['read_9']
    unpack_19 = env['unpack_19']
    unpack_2 = env['unpack_2']
    unpack_20 = env['unpack_20']
    unpack_3 = env['unpack_3']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 8 <= end:
            v0, prefix1, = unpack_2(buf, pos)
        else:
            if pos + 4 > end:
                reader.pos = pos
                reader._truncated(4)
            v0, = unpack_3(buf, pos)
            prefix1 = -2
        pos += 4
        if 0 <= prefix1 <= end - pos - 4:
            pos += 4
            v4 = []
            for _ in range(prefix1):
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
                count12 = len_13(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count12 <= end - pos - 4:
                    pos += 4
                    v11 = []
                    for _ in range(count12):
                        if pos + 18 <= end:
                            v15, v16, v17, prefix18, = unpack_19(buf, pos)
                        else:
                            if pos + 14 > end:
                                reader.pos = pos
                                reader._truncated(14)
                            v15, v16, v17, = unpack_20(buf, pos)
                            prefix18 = -2
                        pos += 14
                        if 0 <= prefix18 <= end - pos - 4:
                            v21 = buf[pos + 4 : pos + 4 + prefix18]
                            pos += 4 + prefix18
                        elif prefix18 == -1:
                            v21 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v21 = read_22(reader)
                            pos = reader.pos
                        item14 = {'partition_index': v15, 'error_code': v16, 'high_watermark': v17, 'records': v21, 'last_stable_offset': default_23, 'log_start_offset': default_24, 'aborted_transactions': list(default_25), 'preferred_read_replica': default_26}
                        v11.append(item14)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v11 = None
                item5 = {'topic': v6, 'partitions': v11}
                v4.append(item5)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v4 = None
        result = {'throttle_time_ms': v0, 'responses': v4, 'error_code': default_27, 'session_id': default_28}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v1(env):  # the writer of FetchResponse v1
    default_1 = env['default_1']
    default_16 = env['default_16']
    default_2 = env['default_2']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_9 = env['default_9']
    errors_33 = env['errors_33']
    locate_34 = env['locate_34']
    pack_0 = env['pack_0']
    pack_14 = env['pack_14']
    pack_22 = env['pack_22']
    pack_23 = env['pack_23']
    pack_31 = env['pack_31']
    pack_8 = env['pack_8']
    small_13 = env['small_13']
    small_21 = env['small_21']
    small_30 = env['small_30']
    small_7 = env['small_7']
    write_15 = env['write_15']
    write_19 = env['write_19']
    write_32 = env['write_32']
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
                n6 = len(v3)
                buf += small_7[n6] if n6 < 256 else pack_8(n6)
                for item4 in v3:
                    try:
                        v10 = item4['topic']
                    except KeyError:
                        v10 = default_9
                    if v10.__class__ is str:
                        data11 = v10.encode('utf-8')
                        n12 = len(data11)
                        buf += small_13[n12] if n12 < 256 else pack_14(n12)
                        buf += data11
                    else:
                        write_15(writer, v10)
                    try:
                        v17 = item4['partitions']
                    except KeyError:
                        v17 = default_16
                    if v17 is None:
                        write_19(writer, None)
                    else:
                        n20 = len(v17)
                        buf += small_21[n20] if n20 < 256 else pack_22(n20)
                        for item18 in v17:
                            try:
                                buf += pack_23(item18['partition_index'], item18['error_code'], item18['high_watermark'])
                            except KeyError:
                                buf += pack_23(item18.get('partition_index', default_24), item18.get('error_code', default_25), item18.get('high_watermark', default_26))
                            try:
                                v28 = item18['records']
                            except KeyError:
                                v28 = default_27
                            if v28.__class__ is bytes and len(v28) < 1024:
                                n29 = len(v28)
                                buf += small_30[n29] if n29 < 256 else pack_31(n29)
                                buf += v28
                            else:
                                write_32(writer, v28)
                                buf = writer.buf
        except errors_33 as exc:
            if not getattr(exc, 'located', False):
                locate_34(obj)
            raise
    return write_fields

def _reader_FetchResponse_v4(env):  # the reader of FetchResponse v4
    default_31 = env['default_31']
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_34 = env['default_34']
    len_13 = env['len_13']
    len_29 = env['len_29']
    len_8 = env['len_8']
    read_10 = env['read_10']
    read_30 = env['read_30']
    read_9 = env['read_9']
    unpack_2 = env['unpack_2']
    unpack_20 = env['unpack_20']
    unpack_21 = env['unpack_21']
    unpack_26 = env['unpack_26']
    unpack_3 = env['unpack_3']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 8 <= end:
            v0, prefix1, = unpack_2(buf, pos)
        else:
            if pos + 4 > end:
                reader.pos = pos
                reader._truncated(4)
            v0, = unpack_3(buf, pos)
            prefix1 = -2
        pos += 4
        if 0 <= prefix1 <= end - pos - 4:
            pos += 4
            v4 = []
            for _ in range(prefix1):
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
                count12 = len_13(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count12 <= end - pos - 4:
                    pos += 4
                    v11 = []
                    for _ in range(count12):
                        if pos + 26 <= end:
                            v15, v16, v17, v18, prefix19, = unpack_20(buf, pos)
                        else:
                            if pos + 22 > end:
                                reader.pos = pos
                                reader._truncated(22)
                            v15, v16, v17, v18, = unpack_21(buf, pos)
                            prefix19 = -2
                        pos += 22
                        if 0 <= prefix19 <= end - pos - 4:
                            pos += 4
                            v22 = []
                            for _ in range(prefix19):
                                if pos + 16 > end:
                                    reader.pos = pos
                                    reader._truncated(16)
                                v24, v25, = unpack_26(buf, pos)
                                pos += 16
                                item23 = {'producer_id': v24, 'first_offset': v25}
                                v22.append(item23)
                        else:
                            reader.pos = pos
                            reader.array_length(True, False)
                            pos = reader.pos
                            v22 = None
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
                        item14 = {'partition_index': v15, 'error_code': v16, 'high_watermark': v17, 'last_stable_offset': v18, 'aborted_transactions': v22, 'records': v27, 'log_start_offset': default_31, 'preferred_read_replica': default_32}
                        v11.append(item14)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v11 = None
                item5 = {'topic': v6, 'partitions': v11}
                v4.append(item5)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v4 = None
        result = {'throttle_time_ms': v0, 'responses': v4, 'error_code': default_33, 'session_id': default_34}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v4(env):  # the writer of FetchResponse v4
    default_1 = env['default_1']
    default_16 = env['default_16']
    default_2 = env['default_2']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_36 = env['default_36']
    default_37 = env['default_37']
    default_38 = env['default_38']
    default_9 = env['default_9']
    errors_44 = env['errors_44']
    locate_45 = env['locate_45']
    pack_0 = env['pack_0']
    pack_14 = env['pack_14']
    pack_22 = env['pack_22']
    pack_23 = env['pack_23']
    pack_34 = env['pack_34']
    pack_35 = env['pack_35']
    pack_42 = env['pack_42']
    pack_8 = env['pack_8']
    small_13 = env['small_13']
    small_21 = env['small_21']
    small_33 = env['small_33']
    small_41 = env['small_41']
    small_7 = env['small_7']
    write_15 = env['write_15']
    write_19 = env['write_19']
    write_31 = env['write_31']
    write_43 = env['write_43']
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
                n6 = len(v3)
                buf += small_7[n6] if n6 < 256 else pack_8(n6)
                for item4 in v3:
                    try:
                        v10 = item4['topic']
                    except KeyError:
                        v10 = default_9
                    if v10.__class__ is str:
                        data11 = v10.encode('utf-8')
                        n12 = len(data11)
                        buf += small_13[n12] if n12 < 256 else pack_14(n12)
                        buf += data11
                    else:
                        write_15(writer, v10)
                    try:
                        v17 = item4['partitions']
                    except KeyError:
                        v17 = default_16
                    if v17 is None:
                        write_19(writer, None)
                    else:
                        n20 = len(v17)
                        buf += small_21[n20] if n20 < 256 else pack_22(n20)
                        for item18 in v17:
                            try:
                                buf += pack_23(item18['partition_index'], item18['error_code'], item18['high_watermark'], item18['last_stable_offset'])
                            except KeyError:
                                buf += pack_23(item18.get('partition_index', default_24), item18.get('error_code', default_25), item18.get('high_watermark', default_26), item18.get('last_stable_offset', default_27))
                            try:
                                v29 = item18['aborted_transactions']
                            except KeyError:
                                v29 = default_28
                            if v29 is None:
                                write_31(writer, None)
                            else:
                                n32 = len(v29)
                                buf += small_33[n32] if n32 < 256 else pack_34(n32)
                                for item30 in v29:
                                    try:
                                        buf += pack_35(item30['producer_id'], item30['first_offset'])
                                    except KeyError:
                                        buf += pack_35(item30.get('producer_id', default_36), item30.get('first_offset', default_37))
                            try:
                                v39 = item18['records']
                            except KeyError:
                                v39 = default_38
                            if v39.__class__ is bytes and len(v39) < 1024:
                                n40 = len(v39)
                                buf += small_41[n40] if n40 < 256 else pack_42(n40)
                                buf += v39
                            else:
                                write_43(writer, v39)
                                buf = writer.buf
        except errors_44 as exc:
            if not getattr(exc, 'located', False):
                locate_45(obj)
            raise
    return write_fields

def _reader_FetchResponse_v5(env):  # the reader of FetchResponse v5
    default_32 = env['default_32']
    default_33 = env['default_33']
    default_34 = env['default_34']
    len_13 = env['len_13']
    len_30 = env['len_30']
    len_8 = env['len_8']
    read_10 = env['read_10']
    read_31 = env['read_31']
    read_9 = env['read_9']
    unpack_2 = env['unpack_2']
    unpack_21 = env['unpack_21']
    unpack_22 = env['unpack_22']
    unpack_27 = env['unpack_27']
    unpack_3 = env['unpack_3']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 8 <= end:
            v0, prefix1, = unpack_2(buf, pos)
        else:
            if pos + 4 > end:
                reader.pos = pos
                reader._truncated(4)
            v0, = unpack_3(buf, pos)
            prefix1 = -2
        pos += 4
        if 0 <= prefix1 <= end - pos - 4:
            pos += 4
            v4 = []
            for _ in range(prefix1):
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
                count12 = len_13(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count12 <= end - pos - 4:
                    pos += 4
                    v11 = []
                    for _ in range(count12):
                        if pos + 34 <= end:
                            v15, v16, v17, v18, v19, prefix20, = unpack_21(buf, pos)
                        else:
                            if pos + 30 > end:
                                reader.pos = pos
                                reader._truncated(30)
                            v15, v16, v17, v18, v19, = unpack_22(buf, pos)
                            prefix20 = -2
                        pos += 30
                        if 0 <= prefix20 <= end - pos - 4:
                            pos += 4
                            v23 = []
                            for _ in range(prefix20):
                                if pos + 16 > end:
                                    reader.pos = pos
                                    reader._truncated(16)
                                v25, v26, = unpack_27(buf, pos)
                                pos += 16
                                item24 = {'producer_id': v25, 'first_offset': v26}
                                v23.append(item24)
                        else:
                            reader.pos = pos
                            reader.array_length(True, False)
                            pos = reader.pos
                            v23 = None
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
                        item14 = {'partition_index': v15, 'error_code': v16, 'high_watermark': v17, 'last_stable_offset': v18, 'log_start_offset': v19, 'aborted_transactions': v23, 'records': v28, 'preferred_read_replica': default_32}
                        v11.append(item14)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v11 = None
                item5 = {'topic': v6, 'partitions': v11}
                v4.append(item5)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v4 = None
        result = {'throttle_time_ms': v0, 'responses': v4, 'error_code': default_33, 'session_id': default_34}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v5(env):  # the writer of FetchResponse v5
    default_1 = env['default_1']
    default_16 = env['default_16']
    default_2 = env['default_2']
    default_24 = env['default_24']
    default_25 = env['default_25']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_37 = env['default_37']
    default_38 = env['default_38']
    default_39 = env['default_39']
    default_9 = env['default_9']
    errors_45 = env['errors_45']
    locate_46 = env['locate_46']
    pack_0 = env['pack_0']
    pack_14 = env['pack_14']
    pack_22 = env['pack_22']
    pack_23 = env['pack_23']
    pack_35 = env['pack_35']
    pack_36 = env['pack_36']
    pack_43 = env['pack_43']
    pack_8 = env['pack_8']
    small_13 = env['small_13']
    small_21 = env['small_21']
    small_34 = env['small_34']
    small_42 = env['small_42']
    small_7 = env['small_7']
    write_15 = env['write_15']
    write_19 = env['write_19']
    write_32 = env['write_32']
    write_44 = env['write_44']
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
                n6 = len(v3)
                buf += small_7[n6] if n6 < 256 else pack_8(n6)
                for item4 in v3:
                    try:
                        v10 = item4['topic']
                    except KeyError:
                        v10 = default_9
                    if v10.__class__ is str:
                        data11 = v10.encode('utf-8')
                        n12 = len(data11)
                        buf += small_13[n12] if n12 < 256 else pack_14(n12)
                        buf += data11
                    else:
                        write_15(writer, v10)
                    try:
                        v17 = item4['partitions']
                    except KeyError:
                        v17 = default_16
                    if v17 is None:
                        write_19(writer, None)
                    else:
                        n20 = len(v17)
                        buf += small_21[n20] if n20 < 256 else pack_22(n20)
                        for item18 in v17:
                            try:
                                buf += pack_23(item18['partition_index'], item18['error_code'], item18['high_watermark'], item18['last_stable_offset'], item18['log_start_offset'])
                            except KeyError:
                                buf += pack_23(item18.get('partition_index', default_24), item18.get('error_code', default_25), item18.get('high_watermark', default_26), item18.get('last_stable_offset', default_27), item18.get('log_start_offset', default_28))
                            try:
                                v30 = item18['aborted_transactions']
                            except KeyError:
                                v30 = default_29
                            if v30 is None:
                                write_32(writer, None)
                            else:
                                n33 = len(v30)
                                buf += small_34[n33] if n33 < 256 else pack_35(n33)
                                for item31 in v30:
                                    try:
                                        buf += pack_36(item31['producer_id'], item31['first_offset'])
                                    except KeyError:
                                        buf += pack_36(item31.get('producer_id', default_37), item31.get('first_offset', default_38))
                            try:
                                v40 = item18['records']
                            except KeyError:
                                v40 = default_39
                            if v40.__class__ is bytes and len(v40) < 1024:
                                n41 = len(v40)
                                buf += small_42[n41] if n41 < 256 else pack_43(n41)
                                buf += v40
                            else:
                                write_44(writer, v40)
                                buf = writer.buf
        except errors_45 as exc:
            if not getattr(exc, 'located', False):
                locate_46(obj)
            raise
    return write_fields

def _reader_FetchResponse_v7(env):  # the reader of FetchResponse v7
    default_34 = env['default_34']
    len_10 = env['len_10']
    len_15 = env['len_15']
    len_32 = env['len_32']
    read_11 = env['read_11']
    read_12 = env['read_12']
    read_33 = env['read_33']
    unpack_23 = env['unpack_23']
    unpack_24 = env['unpack_24']
    unpack_29 = env['unpack_29']
    unpack_4 = env['unpack_4']
    unpack_5 = env['unpack_5']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 14 <= end:
            v0, v1, v2, prefix3, = unpack_4(buf, pos)
        else:
            if pos + 10 > end:
                reader.pos = pos
                reader._truncated(10)
            v0, v1, v2, = unpack_5(buf, pos)
            prefix3 = -2
        pos += 10
        if 0 <= prefix3 <= end - pos - 4:
            pos += 4
            v6 = []
            for _ in range(prefix3):
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
                count14 = len_15(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count14 <= end - pos - 4:
                    pos += 4
                    v13 = []
                    for _ in range(count14):
                        if pos + 34 <= end:
                            v17, v18, v19, v20, v21, prefix22, = unpack_23(buf, pos)
                        else:
                            if pos + 30 > end:
                                reader.pos = pos
                                reader._truncated(30)
                            v17, v18, v19, v20, v21, = unpack_24(buf, pos)
                            prefix22 = -2
                        pos += 30
                        if 0 <= prefix22 <= end - pos - 4:
                            pos += 4
                            v25 = []
                            for _ in range(prefix22):
                                if pos + 16 > end:
                                    reader.pos = pos
                                    reader._truncated(16)
                                v27, v28, = unpack_29(buf, pos)
                                pos += 16
                                item26 = {'producer_id': v27, 'first_offset': v28}
                                v25.append(item26)
                        else:
                            reader.pos = pos
                            reader.array_length(True, False)
                            pos = reader.pos
                            v25 = None
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
                        item16 = {'partition_index': v17, 'error_code': v18, 'high_watermark': v19, 'last_stable_offset': v20, 'log_start_offset': v21, 'aborted_transactions': v25, 'records': v30, 'preferred_read_replica': default_34}
                        v13.append(item16)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v13 = None
                item7 = {'topic': v8, 'partitions': v13}
                v6.append(item7)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v6 = None
        result = {'throttle_time_ms': v0, 'error_code': v1, 'session_id': v2, 'responses': v6}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v7(env):  # the writer of FetchResponse v7
    default_1 = env['default_1']
    default_11 = env['default_11']
    default_18 = env['default_18']
    default_2 = env['default_2']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_3 = env['default_3']
    default_30 = env['default_30']
    default_31 = env['default_31']
    default_39 = env['default_39']
    default_4 = env['default_4']
    default_40 = env['default_40']
    default_41 = env['default_41']
    errors_47 = env['errors_47']
    locate_48 = env['locate_48']
    pack_0 = env['pack_0']
    pack_10 = env['pack_10']
    pack_16 = env['pack_16']
    pack_24 = env['pack_24']
    pack_25 = env['pack_25']
    pack_37 = env['pack_37']
    pack_38 = env['pack_38']
    pack_45 = env['pack_45']
    small_15 = env['small_15']
    small_23 = env['small_23']
    small_36 = env['small_36']
    small_44 = env['small_44']
    small_9 = env['small_9']
    write_17 = env['write_17']
    write_21 = env['write_21']
    write_34 = env['write_34']
    write_46 = env['write_46']
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
                n8 = len(v5)
                buf += small_9[n8] if n8 < 256 else pack_10(n8)
                for item6 in v5:
                    try:
                        v12 = item6['topic']
                    except KeyError:
                        v12 = default_11
                    if v12.__class__ is str:
                        data13 = v12.encode('utf-8')
                        n14 = len(data13)
                        buf += small_15[n14] if n14 < 256 else pack_16(n14)
                        buf += data13
                    else:
                        write_17(writer, v12)
                    try:
                        v19 = item6['partitions']
                    except KeyError:
                        v19 = default_18
                    if v19 is None:
                        write_21(writer, None)
                    else:
                        n22 = len(v19)
                        buf += small_23[n22] if n22 < 256 else pack_24(n22)
                        for item20 in v19:
                            try:
                                buf += pack_25(item20['partition_index'], item20['error_code'], item20['high_watermark'], item20['last_stable_offset'], item20['log_start_offset'])
                            except KeyError:
                                buf += pack_25(item20.get('partition_index', default_26), item20.get('error_code', default_27), item20.get('high_watermark', default_28), item20.get('last_stable_offset', default_29), item20.get('log_start_offset', default_30))
                            try:
                                v32 = item20['aborted_transactions']
                            except KeyError:
                                v32 = default_31
                            if v32 is None:
                                write_34(writer, None)
                            else:
                                n35 = len(v32)
                                buf += small_36[n35] if n35 < 256 else pack_37(n35)
                                for item33 in v32:
                                    try:
                                        buf += pack_38(item33['producer_id'], item33['first_offset'])
                                    except KeyError:
                                        buf += pack_38(item33.get('producer_id', default_39), item33.get('first_offset', default_40))
                            try:
                                v42 = item20['records']
                            except KeyError:
                                v42 = default_41
                            if v42.__class__ is bytes and len(v42) < 1024:
                                n43 = len(v42)
                                buf += small_44[n43] if n43 < 256 else pack_45(n43)
                                buf += v42
                            else:
                                write_46(writer, v42)
                                buf = writer.buf
        except errors_47 as exc:
            if not getattr(exc, 'located', False):
                locate_48(obj)
            raise
    return write_fields

def _reader_FetchResponse_v11(env):  # the reader of FetchResponse v11
    len_10 = env['len_10']
    len_15 = env['len_15']
    read_11 = env['read_11']
    read_12 = env['read_12']
    read_35 = env['read_35']
    unpack_23 = env['unpack_23']
    unpack_24 = env['unpack_24']
    unpack_29 = env['unpack_29']
    unpack_32 = env['unpack_32']
    unpack_33 = env['unpack_33']
    unpack_4 = env['unpack_4']
    unpack_5 = env['unpack_5']
    def read_fields(reader):
        buf = reader.buf
        end = reader.end
        pos = reader.pos
        if pos + 14 <= end:
            v0, v1, v2, prefix3, = unpack_4(buf, pos)
        else:
            if pos + 10 > end:
                reader.pos = pos
                reader._truncated(10)
            v0, v1, v2, = unpack_5(buf, pos)
            prefix3 = -2
        pos += 10
        if 0 <= prefix3 <= end - pos - 4:
            pos += 4
            v6 = []
            for _ in range(prefix3):
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
                count14 = len_15(buf, pos)[0] if pos + 4 <= end else -2
                if 0 <= count14 <= end - pos - 4:
                    pos += 4
                    v13 = []
                    for _ in range(count14):
                        if pos + 34 <= end:
                            v17, v18, v19, v20, v21, prefix22, = unpack_23(buf, pos)
                        else:
                            if pos + 30 > end:
                                reader.pos = pos
                                reader._truncated(30)
                            v17, v18, v19, v20, v21, = unpack_24(buf, pos)
                            prefix22 = -2
                        pos += 30
                        if 0 <= prefix22 <= end - pos - 4:
                            pos += 4
                            v25 = []
                            for _ in range(prefix22):
                                if pos + 16 > end:
                                    reader.pos = pos
                                    reader._truncated(16)
                                v27, v28, = unpack_29(buf, pos)
                                pos += 16
                                item26 = {'producer_id': v27, 'first_offset': v28}
                                v25.append(item26)
                        else:
                            reader.pos = pos
                            reader.array_length(True, False)
                            pos = reader.pos
                            v25 = None
                        if pos + 8 <= end:
                            v30, prefix31, = unpack_32(buf, pos)
                        else:
                            if pos + 4 > end:
                                reader.pos = pos
                                reader._truncated(4)
                            v30, = unpack_33(buf, pos)
                            prefix31 = -2
                        pos += 4
                        if 0 <= prefix31 <= end - pos - 4:
                            v34 = buf[pos + 4 : pos + 4 + prefix31]
                            pos += 4 + prefix31
                        elif prefix31 == -1:
                            v34 = None
                            pos += 4
                        else:
                            reader.pos = pos
                            v34 = read_35(reader)
                            pos = reader.pos
                        item16 = {'partition_index': v17, 'error_code': v18, 'high_watermark': v19, 'last_stable_offset': v20, 'log_start_offset': v21, 'aborted_transactions': v25, 'preferred_read_replica': v30, 'records': v34}
                        v13.append(item16)
                else:
                    reader.pos = pos
                    reader.array_length(False, False)
                    pos = reader.pos
                    v13 = None
                item7 = {'topic': v8, 'partitions': v13}
                v6.append(item7)
        else:
            reader.pos = pos
            reader.array_length(False, False)
            pos = reader.pos
            v6 = None
        result = {'throttle_time_ms': v0, 'error_code': v1, 'session_id': v2, 'responses': v6}
        reader.pos = pos
        return result
    return read_fields

def _writer_FetchResponse_v11(env):  # the writer of FetchResponse v11
    default_1 = env['default_1']
    default_11 = env['default_11']
    default_18 = env['default_18']
    default_2 = env['default_2']
    default_26 = env['default_26']
    default_27 = env['default_27']
    default_28 = env['default_28']
    default_29 = env['default_29']
    default_3 = env['default_3']
    default_30 = env['default_30']
    default_31 = env['default_31']
    default_39 = env['default_39']
    default_4 = env['default_4']
    default_40 = env['default_40']
    default_42 = env['default_42']
    default_43 = env['default_43']
    errors_49 = env['errors_49']
    locate_50 = env['locate_50']
    pack_0 = env['pack_0']
    pack_10 = env['pack_10']
    pack_16 = env['pack_16']
    pack_24 = env['pack_24']
    pack_25 = env['pack_25']
    pack_37 = env['pack_37']
    pack_38 = env['pack_38']
    pack_41 = env['pack_41']
    pack_47 = env['pack_47']
    small_15 = env['small_15']
    small_23 = env['small_23']
    small_36 = env['small_36']
    small_46 = env['small_46']
    small_9 = env['small_9']
    write_17 = env['write_17']
    write_21 = env['write_21']
    write_34 = env['write_34']
    write_48 = env['write_48']
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
                n8 = len(v5)
                buf += small_9[n8] if n8 < 256 else pack_10(n8)
                for item6 in v5:
                    try:
                        v12 = item6['topic']
                    except KeyError:
                        v12 = default_11
                    if v12.__class__ is str:
                        data13 = v12.encode('utf-8')
                        n14 = len(data13)
                        buf += small_15[n14] if n14 < 256 else pack_16(n14)
                        buf += data13
                    else:
                        write_17(writer, v12)
                    try:
                        v19 = item6['partitions']
                    except KeyError:
                        v19 = default_18
                    if v19 is None:
                        write_21(writer, None)
                    else:
                        n22 = len(v19)
                        buf += small_23[n22] if n22 < 256 else pack_24(n22)
                        for item20 in v19:
                            try:
                                buf += pack_25(item20['partition_index'], item20['error_code'], item20['high_watermark'], item20['last_stable_offset'], item20['log_start_offset'])
                            except KeyError:
                                buf += pack_25(item20.get('partition_index', default_26), item20.get('error_code', default_27), item20.get('high_watermark', default_28), item20.get('last_stable_offset', default_29), item20.get('log_start_offset', default_30))
                            try:
                                v32 = item20['aborted_transactions']
                            except KeyError:
                                v32 = default_31
                            if v32 is None:
                                write_34(writer, None)
                            else:
                                n35 = len(v32)
                                buf += small_36[n35] if n35 < 256 else pack_37(n35)
                                for item33 in v32:
                                    try:
                                        buf += pack_38(item33['producer_id'], item33['first_offset'])
                                    except KeyError:
                                        buf += pack_38(item33.get('producer_id', default_39), item33.get('first_offset', default_40))
                            try:
                                buf += pack_41(item20['preferred_read_replica'])
                            except KeyError:
                                buf += pack_41(item20.get('preferred_read_replica', default_42))
                            try:
                                v44 = item20['records']
                            except KeyError:
                                v44 = default_43
                            if v44.__class__ is bytes and len(v44) < 1024:
                                n45 = len(v44)
                                buf += small_46[n45] if n45 < 256 else pack_47(n45)
                                buf += v44
                            else:
                                write_48(writer, v44)
                                buf = writer.buf
        except errors_49 as exc:
            if not getattr(exc, 'located', False):
                locate_50(obj)
            raise
    return write_fields


FACTORIES = {
    '5d12a2f7adec5d6ede8e6fa2d50fe5ea': _reader_ProduceRequest_v0,
    '25173adb39f1dbe2a816060da9f80d60': _writer_ProduceRequest_v0,
    '4246906d04731418c1bd2d5319f7abd5': _reader_ProduceRequest_v3,
    'c1d067e3ad15489aca32e5e5038e8540': _writer_ProduceRequest_v3,
    '6b29251a3a0d5582f1a398e9febcd610': _reader_ProduceResponse_v0,
    '2db1039d79b708e4a57936163706e822': _writer_ProduceResponse_v0,
    'd7ce898dfebaf3059003fe696a04c4af': _reader_ProduceResponse_v1,
    'bd686701678174b8abd1e2525b9fcf65': _writer_ProduceResponse_v1,
    '552b451e20a6006bce31e95a5b7d486b': _reader_ProduceResponse_v2,
    'b88ea12bc8e43f950a4a93a708c73093': _writer_ProduceResponse_v2,
    'a5f57e30e2d2e0e04b17fbcac8cc53da': _reader_ProduceResponse_v5,
    '707e179ed68d97971d7b7ca0a5805fcb': _writer_ProduceResponse_v5,
    '0108dcd98d591f8ee0a090b8808a2d9b': _reader_ProduceResponse_v8,
    'a0ec28e7741d451d6f14502fa84d8c62': _writer_ProduceResponse_v8,
    '591a9e14d7f508414d9ab36a2b2cb05f': _reader_FetchRequest_v0,
    '5ef8693a5558c3e2a18ef7c4023cf39c': _writer_FetchRequest_v0,
    'c33522f57261dda23b960443428a337c': _reader_FetchRequest_v3,
    '4b482a85c05582c83e732e420a13b370': _writer_FetchRequest_v3,
    '151b264e7c07e875c36539dd4a909e01': _reader_FetchRequest_v4,
    '8da2d8c88a77036efc4b507e5d92ea8f': _writer_FetchRequest_v4,
    'f4038d5160ab9043ddcf76c85b061c9f': _reader_FetchRequest_v5,
    'ad3046b0680c2b39068177825ce49472': _writer_FetchRequest_v5,
    'fc087f87fb777d80e4fe40382940adf1': _reader_FetchRequest_v7,
    'aaedbdbd8a165125193773ee9fa925fb': _writer_FetchRequest_v7,
    'fefa3eaef06333c7f7b61973844909b9': _reader_FetchRequest_v9,
    '8029209b7641238a5182c5c4482b8123': _writer_FetchRequest_v9,
    '2ded594bc92ff8b2798ce278b249909d': _reader_FetchRequest_v11,
    '1fca7bd837886b0aaea33d3155ff27ac': _writer_FetchRequest_v11,
    '126f5750e432dd04b6f279f523c82195': _reader_FetchResponse_v0,
    '52d81acc59e92422bde5945806b0f363': _writer_FetchResponse_v0,
    '7f0efb5454349c0e39519736340b34d1': _reader_FetchResponse_v1,
    'fd5fab1e02c8c0dfd54b0366bb71cf4d': _writer_FetchResponse_v1,
    'a4a766d9d67c097249b6f8555ab0709c': _reader_FetchResponse_v4,
    'b36bb8fd054c130dee74152c94268e93': _writer_FetchResponse_v4,
    '5874e3f5b4f34db1228d408dd5b485a5': _reader_FetchResponse_v5,
    '59889a971fd88f20d586eef400362f7e': _writer_FetchResponse_v5,
    '2bf9b68cf4d89f83a45d40c90ce1f239': _reader_FetchResponse_v7,
    '00ab929704fb2898a954765e65b5410d': _writer_FetchResponse_v7,
    '1806809b953328c7e084cf62b69f7e0f': _reader_FetchResponse_v11,
    'be05b0c583073b6c659e3e2324cf5f8d': _writer_FetchResponse_v11,
}
