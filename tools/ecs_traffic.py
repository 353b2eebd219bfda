#!/usr/bin/env python3
"""tools/ecs_traffic.py - prints a traffic log of examples/engine.c
(--log-traffic FILE) as readable lines, the seed's "custom GUI program"
in text. Python 3 standard library only.

    python3 tools/ecs_traffic.py FILE [--kinds net-in,console-in,...]

One line a record:  FRAME  DIRECTION  PEER  TYPE  SIZE  SUMMARY
    direction: start, net-in (a node message received, after the fault
    rule), console-in (a console request), net-out (sent), frame (the world
    hash once that frame's state was reached; "frame+" for a change between
    frames), note (what the node noted: joins, leaves, divergences)
The format is examples/node.h's THE TRAFFIC LOG (version 1, big-endian):
a 16-byte header "ECSTRAFF", u32 version, u32 header size; records of u32
size, u32 frame, u8 kind, 3 zero bytes, u32 peer, then the body. A log cut
short prints up to the cut and says where it ended (exit status 3); a file
that is no log, or a bad record, exits 1 with the reason.
"""

import json
import signal
import struct
import sys

KINDS = {1: "start", 2: "net-in", 3: "console-in", 4: "net-out", 5: "frame", 6: "note"}
MAX_MESSAGE = 256 << 20  # examples/node.h NODE_MAX_MESSAGE


def body_problem(kind, body):
    """What is wrong with a record's body, as node.h's node_log_body_ok
    checks it (a frame record holds 8 bytes, a message record one whole
    framed message), or None."""
    if kind == 5 and len(body) != 8:
        return "a frame record of %d body bytes, not 8" % len(body)
    if kind not in (2, 3, 4):
        return None
    if len(body) < 8:
        return "its message is cut short"
    mtype, length = struct.unpack(">II", body[:8])
    if mtype > 1:
        return "its message message type %d (0: JSON, 1: JSON with a payload)" % mtype
    if length > MAX_MESSAGE:
        return "its message message of %d bytes, over the limit of %d" % (length, MAX_MESSAGE)
    if mtype == 1 and length < 4:
        return "its message type 1 message of %d bytes: no room for its json_length" % length
    if len(body) - 8 < length:
        return "its message is cut short"
    (json_length,) = struct.unpack(">I", body[8:12]) if mtype == 1 else (0,)
    if json_length > length - 4:
        return "its message json_length %d past the message's %d bytes" % (json_length, length)
    if 8 + length != len(body):
        return "its message is shorter than the record"
    return None


def read_records(data):
    """Yields (offset, frame, kind, peer, body); then raises EOFError with
    a message when the log is cut or bad (not at a clean end)."""
    if len(data) < 16 or data[:8] != b"ECSTRAFF":
        raise ValueError("not a traffic log (no ECSTRAFF header)")
    version, header = struct.unpack(">II", data[8:16])
    if version != 1 or header != 16:
        raise ValueError("traffic log version %d (header %d bytes): this tool reads version 1" % (version, header))
    at = 16
    while at < len(data):
        if len(data) - at < 16:
            raise EOFError("the log ends inside a record head at offset %d (%d of 16 bytes)" % (at, len(data) - at))
        size, frame, kind, r0, r1, r2, peer = struct.unpack(">IIBBBBI", data[at:at + 16])
        if size < 16 or size > 16 + 8 + MAX_MESSAGE or r0 or r1 or r2 or kind not in KINDS:  # node.h's bounds
            raise ValueError("record at offset %d (frame %d): size %d, kind %d or its reserved bytes are not valid"
                             % (at, frame, size, kind))
        if at + size > len(data):
            raise EOFError("the log ends inside a record at offset %d (frame %d, %s): %d of its %d bytes"
                           % (at, frame, KINDS[kind], len(data) - at, size))
        why = body_problem(kind, data[at + 16:at + size])
        if why:
            raise ValueError("record at offset %d (%s, frame %d): %s" % (at, KINDS[kind], frame, why))
        yield at, frame, kind, peer, data[at + 16:at + size]
        at += size


def message_summary(body):
    """(type, summary) of one framed message (body_problem passed it)."""
    mtype, length = struct.unpack(">II", body[:8])
    payload = b""
    text = body[8:8 + length]
    if mtype == 1:
        (jl,) = struct.unpack(">I", text[:4])
        text, payload = text[4:4 + jl], text[4 + jl:]
    try:
        obj = json.loads(text.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return "?", "JSON that does not parse (%d bytes)" % len(text)
    except RecursionError:  # nested deeper than Python's stack: the node read it, or refused it, itself
        return "?", "JSON nested too deep to print (%d bytes)" % len(text)
    if not isinstance(obj, dict):
        return "?", json.dumps(obj)[:80]
    kind = str(obj.get("type", "?"))
    if kind == "command":
        kind = "command " + str(obj.get("command"))
    rest = {k: v for k, v in obj.items() if k not in ("type", "command")}
    summary = json.dumps(rest, separators=(",", ":"))
    if len(summary) > 100:
        summary = summary[:97] + "..."
    if payload:
        summary += " +%d payload bytes" % len(payload)
    return kind, summary


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(description="Prints a traffic log of examples/engine.c as lines.")
    p.add_argument("log")
    p.add_argument("--kinds", help="only these directions, comma-separated (net-in,console-in,net-out,frame,note,start)")
    a = p.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):  # | head: end quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if hasattr(sys.stdout, "reconfigure"):  # a lone surrogate ("\ud800" in a message's JSON) prints escaped
        sys.stdout.reconfigure(errors="backslashreplace")
    only = set(a.kinds.split(",")) if a.kinds else None
    try:
        with open(a.log, "rb") as f:
            data = f.read()
    except OSError as e:
        print("ecs_traffic.py: %s" % e, file=sys.stderr)
        return 1
    count = 0
    print("%8s  %-10s %4s  %-22s %9s  %s" % ("FRAME", "DIRECTION", "PEER", "TYPE", "SIZE", "SUMMARY"))
    try:
        for at, frame, kind, peer, body in read_records(data):
            count += 1
            name = KINDS[kind]
            if kind == 5 and peer == 1:
                name = "frame+"
            if only and KINDS[kind] not in only:
                continue
            if kind in (2, 3, 4):
                mtype, summary = message_summary(body)
            elif kind == 5:
                mtype, summary = "hash", body.hex() if len(body) == 8 else "(%d bytes, not 8)" % len(body)
            elif kind == 1:
                mtype, summary = "start", body.decode("utf-8", "replace")[:120]
            else:
                mtype, summary = "note", body.decode("utf-8", "replace")
            print("%8d  %-10s %4d  %-22s %9d  %s" % (frame, name, peer, mtype[:22], len(body), summary))
    except EOFError as e:
        print("ecs_traffic.py: %d records; %s" % (count, e))
        return 3
    except ValueError as e:
        print("ecs_traffic.py: %s" % e, file=sys.stderr)
        return 1
    print("ecs_traffic.py: %d records, the log is whole" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
