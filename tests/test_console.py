#!/usr/bin/env python3
"""tests/test_console.py - the development console through the real socket:
examples/engine.c with --console, driven by tools/ecs_console.py (run by
tests/check_console.sh, which builds the engine, its plugin and a level).

    python3 tests/test_console.py ENGINE --level LEVEL --plugins DIR

Checks every command against the world it reports on (counts agree across
world.stats, world.entities, world.query and world.entity; world.set then
world.entity shows the value; refusals name the thing and leave the hash),
the engine's commands (frame.pause, frame.step, frame.resume, spawn,
quit), world.save then world.load into a fresh engine gives the same
world.hash, scripts, Consoles over two engines, log lines, garbage on the
port, HTTP on the same port through a plain socket (the page, /api equal to
the framed answers, 400/403/404/405/413 for bad requests, 503 for a client
over the connection limit, keep-alive; the engine goes on), and the command
line and prompt of tools/ecs_console.py.

Bounded: every socket call times out (10 s), each engine quits by itself
after --max-seconds, and the whole run stays well under a minute. A failed
check prints its line and the run exits 1."""

import json
import os
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import ecs_console  # noqa: E402
from ecs_console import Console, ConsoleError, Consoles, Node  # noqa: E402

failures = 0
passes = 0


def check(cond, what):
    global failures, passes
    if cond:
        passes += 1
    else:
        failures += 1
        frame = sys._getframe(1)
        print("%s:%d: CHECK failed: %s" % (os.path.basename(frame.f_code.co_filename), frame.f_lineno, what))


def error_of(fn, *args, **kwargs):
    """The message of the ConsoleError fn raises, or None."""
    try:
        fn(*args, **kwargs)
    except ConsoleError as e:
        return str(e)
    return None


def alive_ids(c):
    out, offset = [], 0
    while True:
        page = c.command("world.entities", offset=offset, limit=500)
        out += page["entities"]
        offset += 500
        if offset >= page["total"]:
            return out, page["total"]


def test_world(c):
    names = [x["name"] for x in c.command("help")]
    for want in ("help", "world.stats", "world.components", "world.entities", "world.entity", "world.query",
                 "world.set", "world.destroy", "world.hash", "world.save", "world.load",
                 "frame.step", "frame.pause", "frame.resume", "spawn", "quit"):
        check(want in names, "help lists %s" % want)
    check(c.command("frame.pause")["paused"] is True, "frame.pause")
    stats = c.command("world.stats")
    stores = {s["name"]: s for s in stats["stores"]}
    check(set(stores) >= {"transform", "inventory", "mesh", "actor", "motion", "spin"}, "world.stats names every store")
    check(stores["transform"]["kind"] == "store" and stores["mesh"]["kind"] == "hash", "world.stats kinds")
    comps = {x["name"]: x for x in c.command("world.components")}
    check([f["name"] for f in comps["actor"]["fields"]] == ["mass", "radius"], "world.components fields")
    check(comps["actor"]["fields"][0]["kind"] == "f32", "world.components kinds")
    ids, total = alive_ids(c)
    check(total == stats["entities"] == len(ids) == len(set(ids)), "world.entities pages every alive entity once")
    with_actor = c.command("world.entities", limit=100000, **{"with": ["actor"]})
    check(with_actor["total"] == stores["actor"]["count"], "world.entities with actor = actor instances")
    q = c.command("world.query", all=["actor", "transform"], limit=100000)
    check(q["total"] == with_actor["total"] and len(q["matches"]) == q["total"], "world.query all=actor,transform")
    q2 = c.command("world.query", all=["transform"], any=["mesh", "actor"], limit=3)
    check(len(q2["matches"]) == 3 and all(m["mesh"] is not None or m["actor"] is not None for m in q2["matches"]),
          "world.query any")
    # world.entity agrees with the query: the actor's instance is there, through the schema
    e = q["matches"][0]["entity"]
    ent = c.command("world.entity", entity=e)
    types = [x["type"] for x in ent["components"]]
    check(ent["entity"] == e and "actor" in types and "transform" in types, "world.entity's components")
    actor = [x for x in ent["components"] if x["type"] == "actor"][0]
    check(set(actor) == {"type", "mass", "radius"}, "world.entity: the actor through its schema")
    # world.set then world.entity shows it; a refusal leaves the world's hash
    c.command("world.set", entity=e, component="actor", field="mass", value=42.5)
    actor = [x for x in c.command("world.entity", entity=e)["components"] if x["type"] == "actor"][0]
    check(actor["mass"] == 42.5, "world.set then world.entity shows 42.5")
    before = c.command("world.hash")["hash"]
    msg = error_of(c.command, "world.set", entity=e, component="actor", field="mass", value=-1)
    check(msg and "mass must be >= 0" in msg, "world.set below the schema's minimum: %r" % msg)
    msg = error_of(c.command, "world.set", entity=e, component="actor", field="weight", value=1)
    check(msg and "no field 'weight'" in msg and "mass, radius" in msg, "world.set unknown field: %r" % msg)
    msg = error_of(c.command, "world.set", entity=e, component="motion", field="velocity", value=[1, 2, 3])
    check(msg and "has no schema" in msg, "world.set without a schema: %r" % msg)
    msg = error_of(c.command, "nothing.here")
    check(msg and "unknown command 'nothing.here'" in msg, "an unknown command: %r" % msg)
    msg = error_of(c.command, "world.entity", entity="five")
    check(msg and "argument 'entity'" in msg, "a mistyped argument: %r" % msg)
    check(c.command("world.hash")["hash"] == before, "refusals changed nothing")
    # arguments called name and payload reach the console (they collided with the client's parameters)
    ent2 = c.command("world.entity", entity=e, name="not read", payload=1)
    check(ent2["entity"] == e, "command() passes arguments called name and payload")
    res, data = c.command_binary("world.entity", None, entity=e, name="x")
    check(res["entity"] == e and data is None, "command_binary() passes an argument called name")
    h = c.command("world.hash")
    check(len(h["hash"]) == 16 and all(ch in "0123456789abcdef" for ch in h["hash"]), "world.hash: 16 hex digits")
    # frames: paused, stepped
    f0 = h["frame"]
    check(c.command("world.hash")["frame"] == f0, "paused: no frame runs")
    check(c.command("frame.step", frames=3)["frame"] == f0 + 3, "frame.step 3")
    check(c.command("world.hash")["frame"] == f0 + 3, "world.hash reports the frame")
    # spawn a crate at a position; destroy it
    s = c.command("spawn", prefab="crate", position=[1.5, 0, -2])
    check(len(s["entities"]) == 2 and s["entity"] == s["entities"][0], "spawn crate: the crate and its lid")
    check(c.command("world.stats")["entities"] == stats["entities"] + 2, "two more entities")
    types = [x["type"] for x in c.command("world.entity", entity=s["entity"])["components"]]
    check("mesh" in types and "actor" in types and "transform" in types, "the spawned crate's components")
    msg = error_of(c.command, "spawn", prefab="barrel")
    check(msg and "no prefab 'barrel'" in msg, "spawn of an unknown prefab: %r" % msg)
    c.command("world.destroy", entity=s["entity"])
    msg = error_of(c.command, "world.entity", entity=s["entity"])
    check(msg and "is not alive" in msg, "destroyed: world.entity says not alive")
    # the script form
    r = c.script("frame.step 2\nworld.hash\n# a comment\nworld.entity %d" % e)
    check(len(r) == 3 and r[0]["frame"] == f0 + 5 and r[1]["frame"] == f0 + 5 and r[2]["entity"] == e, "a script")
    msg = error_of(c.script, "world.hash\nworld.entity 0")
    check(msg and msg.startswith("line 2 (world.entity 0)"), "a script's failing line: %r" % msg)
    return e


def test_save_load(engine, args, c):
    res, snap = c.command_binary("world.save")
    check(snap is not None and res["bytes"] == len(snap), "world.save: a type-1 reply with the snapshot")
    want = c.command("world.hash")["hash"]
    check(res["hash"] == want, "world.save reports the world's hash")
    with Node(engine, args + ["--spawn", "0", "--destroy", "0"], max_seconds=60) as fresh:
        f = fresh.console
        f.command("frame.pause")  # no frame runs between the checks below
        check(f.command("world.hash")["hash"] != want, "the fresh engine differs before the load")
        loaded, _ = f.command_binary("world.load", snap)
        check(loaded["hash"] == want, "world.load reports the loaded hash")
        check(f.command("world.hash")["hash"] == want, "world.save then world.load into a fresh engine: the same hash")
        before = f.command("world.hash")["hash"]
        msg = error_of(f.command_binary, "world.load", bytes(snap[:100]))
        check(msg and "does not verify" in msg and "offset" in msg, "a truncated snapshot: %r" % msg)
        check(f.command("world.hash")["hash"] == before, "a refused snapshot changed nothing")
        both = Consoles([c, f])
        hashes = both.command("world.hash")
        check(len(hashes) == 2 and hashes[0]["hash"] == hashes[1]["hash"], "Consoles: the same command to both")
        check(both.script("frame.step 1\nworld.hash")[0][1]["hash"] == both.script("world.hash")[1][0]["hash"],
              "Consoles.script")


def test_wire(port):
    """Garbage and HTTP on the port: answered, closed; the engine goes on."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(struct.pack(">II", 0, 9) + b"{not json")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    kind, length = struct.unpack(">II", data[:8])
    reply = json.loads(data[8:8 + length])
    check(kind == 0 and reply["ok"] is False and "not JSON" in reply["error"], "garbage: an error reply, then closed")
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(struct.pack(">II", 0, 1 << 30))
    data = s.recv(65536)
    check(b"over the limit" in data, "a length over the limit: an error reply")
    s.close()


def http_response(s, buf=b""):
    """One HTTP response read off socket s: (status, headers, body, rest)."""
    deadline = time.monotonic() + 10
    while b"\r\n\r\n" not in buf and time.monotonic() < deadline:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    size = int(headers.get("content-length", "0"))
    while len(rest) < size and time.monotonic() < deadline:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    return int(lines[0].split()[1]), headers, rest[:size], rest[size:]


def http(port, raw):
    """Sends raw bytes on a fresh connection: (status, headers, body, closed after it)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(raw)
        status, headers, body, _ = http_response(s)
        closed = False
        try:
            s.settimeout(2)
            closed = s.recv(1) == b""
        except socket.timeout:
            pass
        except OSError:
            closed = True
        return status, headers, body, closed
    finally:
        s.close()


def test_http(c, port):
    """The inspector's HTTP path through a plain socket: the page, /api equal to the framed answers, every
    bad request's status, too many connections; the engine goes on."""
    get = lambda target, extra="": ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n" % (target, port, extra)).encode()
    status, headers, body, _ = http(port, get("/"))
    check(status == 200 and headers["content-type"].startswith("text/html") and b"ecs inspector" in body,
          "GET / serves the inspector page")
    status, _, body, closed = http(port, get("/api/world.stats"))
    check(status == 200 and json.loads(body) == c.command("world.stats") and not closed,
          "GET /api/world.stats equals the framed answer, and keeps the connection")
    e = c.command("world.entities", limit=1, **{"with": ["actor"]})["entities"][0]
    status, _, body, _ = http(port, get("/api/world.entity?entity=%d" % e))
    check(status == 200 and json.loads(body) == c.command("world.entity", entity=e), "GET /api/world.entity")
    status, _, body, _ = http(port, get("/api/frame.stats?since=0"))
    check(status == 200 and "frames" in json.loads(body), "the engine's frame.stats")
    for raw, want, closes, text in [
            (b"POST /api/quit HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 405, True, "only GET"),
            (get("/?" + "a" * 9000), 413, True, "over 8192 bytes"),
            (get("/api/world.entity?entity=%G1"), 400, False, "bad percent-encoding"),
            (get("/api/world.entity?entity=%4"), 400, False, "bad percent-encoding"),
            (get("/nothing"), 404, False, "nothing at '/nothing'"),
            (get("/api/nope"), 404, False, "unknown command 'nope'"),
            (get("/api/world.entity?entity=0"), 404, False, "is not alive"),
            (get("/api/world.set?entity=%d&component=actor&field=mass&value=-1" % e), 400, False, "mass must be >= 0"),
            (b"GET / HTTP/9\r\n\r\n", 400, True, "HTTP/1.x"),
            (get("/api/world.hash", "Origin: http://evil.example\r\n"), 403, False, "another site")]:
        status, headers, body, closed = http(port, raw)
        msg = json.loads(body).get("error", "") if body.startswith(b"{") else ""
        check(status == want and closed == closes and (text is None or text in msg),
              "%r: %d %r closed=%r" % (raw[:60], status, msg, closed))
        if want == 405:
            check(headers.get("allow") == "GET", "405 says Allow: GET")
    # too many connections: 7 framed clients beside c fill the 8 slots; HTTP gets 503, the engine goes on
    extra = []
    for k in range(7):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        msg = json.dumps({"type": "command", "id": k, "command": "help"}).encode()
        s.sendall(struct.pack(">II", 0, len(msg)) + msg)
        kind, length = struct.unpack(">II", s.recv(8, socket.MSG_WAITALL))
        s.recv(length, socket.MSG_WAITALL)
        extra.append(s)
    status, _, body, closed = http(port, get("/api/world.hash"))
    check(status == 503 and closed and b"too many connections" in body, "a connection over the limit: 503 (%d)" % status)
    for s in extra:
        s.close()
    time.sleep(0.3)
    status, _, body, _ = http(port, get("/api/world.hash"))
    check(status == 200 and json.loads(body)["hash"] == c.command("world.hash")["hash"], "the engine goes on")
    # keep-alive: two requests on one connection
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(get("/api/world.hash") + get("/api/help"))
    a = http_response(s)
    b = http_response(s, a[3])
    s.close()
    check(a[0] == 200 and b[0] == 200 and "hash" in json.loads(a[2]) and isinstance(json.loads(b[2]), list),
          "two requests on one connection (pipelined), answered in order")


def test_cli(port):
    tool = os.path.join(HERE, "..", "tools", "ecs_console.py")
    run = lambda *a, **k: subprocess.run([sys.executable, tool, "--port", str(port)] + list(a), capture_output=True,
                                         timeout=30, text=True, **k)
    r = run("world.hash")
    check(r.returncode == 0 and len(json.loads(r.stdout)["hash"]) == 16, "ecs_console.py --port P world.hash")
    r = run("world.entity", '{"entity": 0}')
    check(r.returncode == 1 and "is not alive" in r.stderr, "a failing command: exit status 1 and the message")
    r = run(input="help\nworld.stats\nworld.entity 0\n{\"type\": \"command\", \"command\": \"world.hash\", \"id\": 5}\n")
    check("world.stats" in r.stdout and '"entities"' in r.stdout and "error: line 1 (world.entity 0)" in r.stdout
          and '"id": 5' in r.stdout, "the prompt with piped input: %r %r" % (r.stdout[-300:], r.stderr))
    # a request line whose id the console refuses: its error reply (id null) is shown and the prompt goes on
    # (it crashed on a list id, and waited out its timeout then quit on a string one)
    r = run(input='{"type": "command", "command": "world.hash", "id": [1]}\n'
                  '{"type": "command", "command": "world.hash", "id": "x"}\nworld.hash\n')
    check(r.returncode == 0 and r.stdout.count('"ok": false') == 2 and r.stdout.count('"hash"') == 1
          and "Traceback" not in r.stderr, "the prompt with refused ids: %r %r" % (r.stdout[-400:], r.stderr[-300:]))


def test_node_start_fails():
    """Node.start() whose console cannot be reached stops the process it
    started (it ran on: nothing could stop it, stop() needs a started node)."""
    fake = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ecs_fake_engine_%d.sh" % os.getpid())
    with open(fake, "w") as f:  # says it listens on a port nobody serves, then waits
        f.write("#!/bin/sh\necho 'console: listening on 127.0.0.1:1'\nexec sleep 30\n")
    os.chmod(fake, 0o755)
    node = Node(fake, timeout=5.0)
    try:
        node.start()
        check(False, "Node.start() against a console nobody serves must fail")
    except (OSError, RuntimeError):
        check(node.proc is not None and node.proc.poll() is not None, "the failed start stopped its process")
    finally:
        if node.proc is not None and node.proc.poll() is None:
            node.proc.kill()
        os.remove(fake)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    engine, args = sys.argv[1], sys.argv[2:] + ["--spawn", "0", "--destroy", "0"]
    started = time.monotonic()
    test_node_start_fails()
    node = Node(engine, args, max_seconds=60)
    c = node.start()
    try:
        test_world(c)
        test_save_load(engine, args, c)
        test_wire(c.port)
        test_http(c, c.port)
        test_cli(c.port)
        check(c.command("help") is not None, "the engine answers after all that")
        c.command("frame.resume")
        r = c.command("quit")
        check(r["quitting"] is True, "quit")
        logs = []
        try:  # the engine pushes a last log line, flushes, then closes
            while True:
                _, msg, _ = c.read_message(timeout=10)
                if msg.get("type") == "log":
                    logs.append(msg)
        except (ConnectionError, OSError):
            pass
        check(any(m["level"] == "info" and "quits after frame" in m["message"] for m in logs),
              "the engine's last log line arrived: %r" % logs)
        node.console = None
        code = node.wait(timeout=20)  # and its output read to the end
        check(code == 0, "the engine exits 0 after quit (exit %r)" % code)
        check(any(line.startswith("report: when=end") for line in node.output), "the engine's report")
    finally:
        node.kill()
    print("test_console.py: %d passed, %d failed (%.1f s)" % (passes, failures, time.monotonic() - started))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
