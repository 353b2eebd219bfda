#!/usr/bin/env python3
"""tests/test_nodes.py - examples/engine.c's nodes through real sockets (run
by tests/check_nodes.sh, which builds the engine, its plugin and a level).

    python3 tests/test_nodes.py ENGINE --level LEVEL --plugins DIR --out DIR

Checks (each can fail):
  - three nodes (a server, two clients) stay equal frame by frame: clients
    join at frames 3 and 9, console spawns on every node (the clients'
    forwarded as inputs), client 1 leaves and joins again; net.hash of
    every frame that two nodes both reached is equal;
  - a server with no traffic log, its frames running: its sender thread
    writes the deltas while frames, console commands and the clients'
    inputs go on (each waits for it first); the clients equal the server at
    every frame both reached; a delta failed on purpose (net.fail_delta)
    makes each client resynchronise, the server notes it, all equal after;
  - each node's traffic log replays (engine --replay) with the same world
    hash at every frame, and the replay's hashes are the live net.hash;
  - a client's log cut short replays up to the cut and says where it
    ended (exit status 3); a corrupt record is named; a log whose first
    record is not START, one with no record and a file that is not a log
    are refused, naming why; tools/ecs_traffic.py prints a log and names a
    cut;
  - bad input: a hello of another protocol version or byte order is
    refused naming it (the server goes on); an input naming a command that
    is no input (quotes, a backslash, a control byte, a long UTF-8 name)
    gets an input_result that is JSON and names it; a fake server's delta
    against a base the client lacks, a corrupt snapshot and a message of a
    bad type: the client asks for a full snapshot or closes the connection,
    says why, and goes on; --serve on a port in use exits with a message;
    a --name with quotes, a backslash and over 60 bytes of UTF-8 reaches
    the hello as JSON, cut on a UTF-8 boundary (one not UTF-8 is refused);
  - a client written from examples/node.h's protocol doc (its ack's key)
    gets deltas;
  - a client's input applied just before net.leave is not applied again
    after net.join (the hello's token); an input over 1 KB is sent; a
    server's log replays after 17 clients came and went without a bye
    (the log names each closed connection, the replay closes it);
  - the server's sender thread: a client that stops reading only grows its
    own queue (another client stays in step); read again, its byte stream
    is the server's logged messages to it, in order, byte for byte;
  - with --fault, a welcome held for a connection that closed is dropped,
    not delivered to the next one (the client says hello there);
  - a spawn through the console's HTTP /api is in the server's log, which
    replays equal; with --log-traffic an argument that is not UTF-8 is
    refused at start-up, named (no log written);
  - tools/ecs_traffic.py refuses a frame record of 7 bytes, a record
    whose message is bad and one whose size is over node.h's bound (as
    node.h's reader does), and prints deep JSON
    and a lone surrogate without a traceback;
  - net.timeouts off/on and --no-timeouts;
  - tools/scenarios/boxes.py agrees with and without faults, and reports
    a divergence (net.tamper) with every log and snapshot saved and a
    replay command that reproduces the faulty run.
Bounded: every socket call times out (10 s), every wait has a deadline,
every engine quits by itself after --max-seconds and is killed at the end."""

import os
import socket
import struct
import subprocess
import sys
import time
import json
import re
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "scenarios"))
from ecs_console import ConsoleError, Node  # noqa: E402
import boxes  # noqa: E402

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
    return cond


def frame_msg(obj, payload=None):
    text = json.dumps(obj).encode()
    if payload is None:
        return struct.pack(">II", 0, len(text)) + text
    return struct.pack(">III", 1, 4 + len(text) + len(payload), len(text)) + text + payload


def read_msg(sock, timeout=10.0):
    sock.settimeout(timeout)
    buf = b""
    while len(buf) < 8:
        chunk = sock.recv(8 - len(buf))
        if not chunk:
            return None
        buf += chunk
    kind, length = struct.unpack(">II", buf)
    body = b""
    while len(body) < length:
        chunk = sock.recv(min(1 << 16, length - len(body)))
        if not chunk:
            return None
        body += chunk
    if kind == 1:
        (jl,) = struct.unpack(">I", body[:4])
        return json.loads(body[4:4 + jl].decode())
    return json.loads(body.decode())


def read_until(sock, want, limit=200):
    for _ in range(limit):
        m = read_msg(sock)
        if m is None or m.get("type") == want:
            return m
    return None


class Session:
    def __init__(self, a):
        self.a, self.nodes = a, []

    def start(self, name, extra, log=True):
        args = ["--level", a.level, "--plugins", a.plugins, "--quiet", "--spawn", "3", "--destroy", "2", "--name", name]
        if log:
            args += ["--log-traffic", os.path.join(a.out, name + ".log")]
        n = Node(a.engine, args + extra, timeout=10.0, max_seconds=90, cwd=ROOT)
        n.label = name
        self.nodes.append(n)
        n.start()
        return n

    def stop(self):
        for n in self.nodes:
            try:
                rc = n.stop(timeout=5.0)
            except Exception:  # noqa: BLE001
                rc = n.kill()
            check(rc == 0, "%s quits cleanly, no sanitizer report (exit %s): %s" % (n.label, rc,
                                                                                   "\n".join(n.output[-5:])))


def hashes_by_frame(c, first, last):
    out = {}
    for f in range(first, last + 1):
        try:
            out[f] = c.command("net.hash", frame=f)["hash"]
        except ConsoleError:
            pass
    return out


def test_three_nodes(a, sess):
    srv = sess.start("server", ["--serve", "0"])
    s = srv.console
    s.command("frame.pause")
    port = boxes.node_port(srv)
    join = ["--join", "127.0.0.1:%d" % port]
    s.command("frame.step", frames=3)
    c1 = sess.start("client1", join).console
    boxes.wait_synced(s, [c1])
    s.command("frame.step", frames=6)
    c2 = sess.start("client2", join).console
    clients = [c1, c2]
    boxes.wait_synced(s, clients)
    check(s.command("net.status")["frame"] == 9, "the server is at frame 9")
    sent = {"client1": 0, "client2": 0}
    for rnd in range(4):
        s.script("spawn crate [%d, 1, 0]" % rnd)
        r = c1.script("spawn crate [%d, 2, 0]\nspawn crate [%d, 3, 0]" % (rnd, rnd))
        check(r[0]["forwarded"] is True, "a client's spawn is forwarded: %r" % r[0])
        c2.command("spawn", prefab="crate", position=[rnd, 4, 0])
        sent["client1"] += 2
        sent["client2"] += 1
        boxes.wait_inputs(s, sent)
        boxes.wait_synced(s, clients)  # the state after the inputs, before the next frame
        s.command("frame.step", frames=3)
        boxes.wait_synced(s, clients)
        if rnd == 1:
            c1.command("net.leave")
            s.command("frame.step", frames=2)
            check(len(s.command("net.status")["clients"]) == 1, "client 1 left")
            c1.command("net.join")  # its inputs go on counting: the server knows its token
            boxes.wait_synced(s, clients)
    last = s.command("net.status")["frame"]
    hs = hashes_by_frame(s, 0, last)
    h1, h2 = hashes_by_frame(c1, 0, last), hashes_by_frame(c2, 0, last)
    check(len(hs) == last + 1, "the server kept a hash for every frame 0..%d (%d)" % (last, len(hs)))
    check(min(h1) == 3 and min(h2) == 9, "the clients' first frames are their joins (%d, %d)" % (min(h1), min(h2)))
    check(len(h1) >= last - 3 - 3 and len(h2) == last - 9 + 1, "the clients reached every frame they were joined for")
    for name, h in (("client1", h1), ("client2", h2)):
        diff = [f for f in h if h[f] != hs[f]]
        check(not diff, "%s equals the server at every frame (differs at %s)" % (name, diff[:5]))
    total = s.command("world.stats")["entities"]
    check(c1.command("world.stats")["entities"] == total == c2.command("world.stats")["entities"], "the same entities")
    for c in clients:
        st = c.command("net.status")
        check(st["divergences"] == 0 and st["applied_delta"] > 0, "deltas applied, no divergence: %r" % st)
    err = None
    try:
        c1.command("frame.step")
    except ConsoleError as e:
        err = str(e)
    check(err and "client of 127.0.0.1" in err, "a client refuses frame.step: %r" % err)
    check(s.command("net.timeouts", state="off")["timeouts"] == "off", "net.timeouts off")
    check(s.command("net.status")["timeouts"] == "off", "net.status says timeouts off")
    check(s.command("net.timeouts", state="on")["timeouts"] == "on", "net.timeouts on")
    try:
        s.command("net.timeouts", state="maybe")
        check(False, "net.timeouts maybe is refused")
    except ConsoleError as e:
        check("on or off" in str(e), "net.timeouts names the choices: %s" % e)
    return {"server": hs, "client1": h1, "client2": h2}


def test_running_server(a, sess):
    """A server with no traffic log and its frames running (not paused):
    its sender thread writes each state's delta from the world while the
    frame thread goes on, and the next frame, a console command and a
    client's input each wait for it first (node_world_fence). Under
    ThreadSanitizer a missing wait is a data race on the world; here the
    clients must equal the server at every frame they both reached."""
    names = ("running1", "running2")
    srv = sess.start("running-server", ["--serve", "0", "--fps", "60"], log=False)
    s = srv.console
    join = ["--join", "127.0.0.1:%d" % boxes.node_port(srv)]
    clients = [sess.start(n, join).console for n in names]
    boxes.wait_synced(s, clients, names=names)
    first = s.command("net.status")["frame"]
    s.command("net.stats", reset=1)
    sent = dict.fromkeys(names, 0)
    for rnd in range(8):
        s.command("spawn", prefab="crate", position=[rnd, 5, 0])
        s.command("world.stats")
        for n, c in zip(names, clients):
            r = c.command("spawn", prefab="crate", position=[rnd, 6, 0])
            check(r.get("forwarded") is True, "%s's spawn is forwarded: %r" % (n, r))
            sent[n] += 1
        time.sleep(0.03)
    boxes.wait_inputs(s, sent)
    st = s.command("net.stats")
    s.command("frame.pause")
    boxes.wait_synced(s, clients, names=names)
    last = s.command("net.status")["frame"]
    check(last - first >= 8, "the server ran frames meanwhile (%d to %d)" % (first, last))
    check(st["deltas"] > 0 and st["delta_us"] > 0 and st["state_bytes"] > 0,
          "the sender thread wrote the deltas: %r" % st)
    hs = hashes_by_frame(s, first, last)
    for n, c in zip(names, clients):
        h = hashes_by_frame(c, first, last)
        both = [f for f in h if f in hs]
        diff = [f for f in both if h[f] != hs[f]]
        check(len(both) >= 4 and not diff, "%s equals the server at the %d frames both reached (differs at %s)"
              % (n, len(both), diff[:5]))
        cs = c.command("net.status")
        check(cs["divergences"] == 0 and cs["applied_delta"] > 0, "%s: deltas applied, no divergence: %r" % (n, cs))
    total = s.command("world.stats")["entities"]
    check(all(c.command("world.stats")["entities"] == total for c in clients), "the same entities on every node")
    # a delta the sender fails to write (out of memory, on purpose): an empty payload the clients refuse, then a
    # snapshot each; the server notes it; every node equal after
    resyncs = [c.command("net.status")["resyncs"] for c in clients]
    check(s.command("net.fail_delta")["failing"] == 1, "net.fail_delta arms one failure")
    s.command("frame.step", frames=1)
    boxes.wait_synced(s, clients, names=names)
    s.command("frame.step", frames=2)
    boxes.wait_synced(s, clients, names=names)
    after = [c.command("net.status")["resyncs"] for c in clients]
    check(all(b > r for r, b in zip(resyncs, after)), "each client resynchronised after the failed delta: %s -> %s"
          % (resyncs, after))
    s.command("net.status")  # (log lines come before a reply)
    notes = [m.get("message", "") for m in s.logs]
    check(any("net.fail_delta" in m and "ask for a snapshot" in m for m in notes),
          "the server notes the failed delta: %r" % notes[-3:])
    last2 = s.command("net.status")["frame"]
    hs = hashes_by_frame(s, last, last2)
    for n, c in zip(names, clients):
        h = hashes_by_frame(c, last, last2)
        check(h.get(last2) == hs[last2] and all(h[f] == hs[f] for f in h), "%s equals the server after it" % n)


def run_engine(args, timeout=60):
    p = subprocess.run([a.engine] + args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def test_replay(a, live):
    for name, hashes in live.items():
        log = os.path.join(a.out, name + ".log")
        rc, out = run_engine(["--replay", log])
        check(rc == 0, "%s's log replays (exit %d): %s" % (name, rc, out[-300:]))
        lines = [ln.split() for ln in out.splitlines() if ln.startswith("replay: frame ")]
        replayed = {}
        for ln in lines:
            replayed[int(ln[2])] = ln[4]
        check(lines and all(ln[5] == "equal" for ln in lines), "%s: every frame's hash equal in the replay" % name)
        diff = [f for f in hashes if f in replayed and replayed[f] != hashes[f]]
        check(not diff and len(set(hashes) & set(replayed)) >= len(hashes) - 1,
              "%s: the replay's hashes are the live ones frame by frame (differ at %s)" % (name, diff[:5]))
    # a log cut short
    data = open(os.path.join(a.out, "client2.log"), "rb").read()
    cut = os.path.join(a.out, "cut.log")
    with open(cut, "wb") as f:
        f.write(data[:len(data) * 2 // 3])
    rc, out = run_engine(["--replay", cut, "--quiet"])
    check(rc == 3, "a cut log replays up to the cut: exit 3, got %d" % rc)
    check("end=the log ends inside a record at offset" in out, "the replay says where the log ended: %s" % out[-300:])
    check("first_difference=none" in out, "equal up to the cut")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ecs_traffic.py"), cut], stdout=subprocess.PIPE,
                       timeout=30)
    text = p.stdout.decode()
    check(p.returncode == 3 and "ends inside a record at offset" in text, "ecs_traffic.py names the cut")
    check(" net-in " in text and " state " in text and " frame " in text, "ecs_traffic.py prints records")
    # a corrupt record: the kind byte of the second record
    second = 16 + struct.unpack(">I", data[16:20])[0]
    bad = bytearray(data)
    bad[second + 8] = 99
    with open(cut, "wb") as f:
        f.write(bytes(bad))
    rc, out = run_engine(["--replay", cut, "--quiet"])
    check(rc == 3 and "record at offset %d: kind 99 unknown" % second in out, "a corrupt record is named: %s" % out[-200:])
    # a log whose first record is whole but not START; one with no record
    with open(cut, "wb") as f:
        f.write(data[:16] + data[second:second + struct.unpack(">I", data[second:second + 4])[0]])
    rc, out = run_engine(["--replay", cut])
    kind = {2: "net-in", 3: "console-in", 4: "net-out", 5: "frame", 6: "note"}.get(data[second + 8], "?")
    check(rc == 1 and "its first record (offset 16) is a %s record, not a start record" % kind in out,
          "a log that does not start with START is refused naming its first record: %s" % out[-200:])
    with open(cut, "wb") as f:
        f.write(data[:16])
    rc, out = run_engine(["--replay", cut])
    check(rc == 1 and "the log has no records" in out, "a log of its header alone is refused: %s" % out[-200:])
    with open(cut, "wb") as f:
        f.write(b"not a log at all")
    rc, out = run_engine(["--replay", cut])
    check(rc == 1 and "not a traffic log" in out, "a file that is no log is refused: %s" % out[-200:])


def test_bad_joins(a, sess):
    srv = sess.start("bad-server", ["--serve", "0"], log=False)
    s = srv.console
    port = boxes.node_port(srv)
    for hello, want in (({"type": "hello", "protocol": 99, "byte_order": "little"}, "protocol version 99"),
                        ({"type": "hello", "protocol": 2, "byte_order": "big" if sys.byteorder == "little" else "little"},
                         "byte order")):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as k:
            k.sendall(frame_msg(hello))
            m = read_until(k, "refused")
            check(m is not None and want in m.get("error", ""), "refused naming %s: %r" % (want, m))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as k:  # garbage: closed, server goes on
        k.sendall(struct.pack(">II", 9, 4) + b"abcd")
        k.settimeout(10)
        got = k.recv(100)
        check(got == b"", "a message of type 9 closes that connection")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as k:  # not JSON: ignored
        k.sendall(struct.pack(">II", 0, 5) + b"{nope" + frame_msg({"type": "hello", "protocol": 2,
                                                                 "byte_order": sys.byteorder}))
        check(read_until(k, "welcome") is not None, "after a message that is not JSON the join goes on")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as k:  # inputs naming no input command
        k.sendall(frame_msg({"type": "hello", "protocol": 2, "byte_order": sys.byteorder, "name": "odd-inputs"}))
        check(read_until(k, "welcome") is not None, "a fake client joins")
        odd = ['a"b\\c\x01d', "x" + "\u00e9" * 40]  # JSON's own characters; 81 bytes of UTF-8, cut at 60
        for seq, name in enumerate(odd, 1):
            k.sendall(frame_msg({"type": "input", "seq": seq, "command": name}))
            try:
                m = read_until(k, "input_result")
            except ValueError as e:  # json.loads, or the UTF-8 decode before it
                m = {"not JSON": str(e)}
            err = m.get("reply", {}).get("error", "") if m else ""
            check(m and m.get("seq") == seq and err.startswith("input %d: '%s" % (seq, name[:30])) and
                  "is no input" in err, "an unknown input's result is JSON naming it: %r" % m)
    # a client written from examples/node.h's protocol doc: its ack's key is the one the server reads
    doc = open(os.path.join(ROOT, "examples", "node.h")).read()
    key = re.search(r'\{"type": "ack", "(\w+)"', doc)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as k:
        k.sendall(frame_msg({"type": "hello", "protocol": 2, "byte_order": sys.byteorder, "name": "by-the-doc"}))
        check(read_until(k, "welcome") is not None, "a client of the doc joins")
        key = key.group(1) if key else "(none)"
        bases, acked = [], set()
        for _ in range(8):
            m = read_until(k, "state")
            if m is None:
                break
            bases.append(m["base"])
            acked.add(m.get(key))
            k.sendall(frame_msg({"type": "ack", key: m.get(key)}))
        check(len(bases) == 8 and any(b >= 0 for b in bases) and all(b == -1 or b in acked for b in bases),
              "acks by node.h's key (%s) make deltas against acknowledged states: bases %r" % (key, bases))
        k.sendall(frame_msg({"type": "bye"}))
    st = s.command("net.status")
    check(st["refused_joins"] == 2 and st["bad_messages"] >= 2, "the server counted them: %r" % st)
    f0 = s.command("frame.step", frames=2)["frame"]
    check(f0 >= 2, "the server goes on")
    # a --name a hello cannot carry (not UTF-8): refused at start-up, named
    rc, out = run_engine(["--join", "127.0.0.1:9", "--name", b"ab\xffc"])
    check(rc != 0 and "--name: not text a hello can carry" in out and "invalid UTF-8" in out,
          "a --name that is not UTF-8 is refused naming it: %s" % out[-200:])
    # a port in use
    rc, out = run_engine(["--level", a.level, "--plugins", a.plugins, "--serve", str(port), "--max-seconds", "5"])
    check(rc != 0 and "cannot listen on 127.0.0.1:%d" % port in out and "in use" in out,
          "--serve on a port in use exits naming it: %s" % out[-200:])


def test_fake_server(a, sess):
    """The client against a fake server: unknown base, corrupt payload, bad type."""
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    lst.settimeout(10)
    port = lst.getsockname()[1]
    odd = 'q"b\\x' + "\u00e9" * 40  # JSON's own characters; 85 bytes of UTF-8: 59 kept (the 60th is inside an e-acute)
    cl = sess.start("fake-client", ["--join", "127.0.0.1:%d" % port, "--no-timeouts", "--name", odd], log=False)
    c = cl.console
    check(c.command("net.status")["timeouts"] == "off", "--no-timeouts: net.status says off")
    k, _ = lst.accept()
    with k:
        try:
            hello = read_until(k, "hello")
        except ValueError as e:  # not JSON
            hello = {"not JSON": str(e)}
        check(hello and hello.get("protocol") == 2 and hello.get("byte_order") == sys.byteorder,
              "the client says hello: %r" % hello)
        check(hello and hello.get("name") == odd[:5] + "\u00e9" * 27 and len(hello.get("token", "")) == 16 and
              hello.get("inputs") == 0, "the hello's name is escaped, cut at 60 bytes on a UTF-8 boundary: %r" % hello)
        k.sendall(frame_msg({"type": "welcome", "protocol": 2, "client": 7, "frame": 0}))
        k.sendall(frame_msg({"type": "state", "state": 5, "frame": 5, "base": 4, "hash": "0" * 16, "inputs": 0}, b"x" * 64))
        m = read_until(k, "resync")
        check(m and "does not hold" in m.get("reason", ""), "a delta for an unknown base: resync, named: %r" % m)
        k.sendall(frame_msg({"type": "state", "state": 6, "frame": 6, "base": -1, "hash": "0" * 16, "inputs": 0},
                            b"\0" * 100))
        m = read_until(k, "resync")
        check(m and "does not load" in m.get("reason", ""), "a corrupt snapshot: resync, named: %r" % m)
        st = c.command("net.status")
        check(st["resyncs"] == 2 and st["state"] == -1 and st["joined"], "nothing applied: %r" % st)
        before = c.command("world.hash")["hash"]
        k.sendall(struct.pack(">II", 7, 0))
        k.settimeout(10)
        gone = False
        try:
            while k.recv(4096):
                pass
            gone = True
        except OSError:
            gone = True
        check(gone, "a message of type 7: the client closes the connection")
    time.sleep(0.2)
    st = c.command("net.status")
    check(not st["joined"] and st["bad_messages"] >= 1, "the client left and counted it: %r" % st)
    check(c.command("world.hash")["hash"] == before, "the client's world is untouched")
    lst.close()


def wait_for(pred, what, timeout=15.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return check(False, "in %.0f s: %s" % (timeout, what))


def test_rejoin(a, sess):
    """Inputs are applied once across a leave and a join; an input longer
    than the 1 KB a message was formatted in gets through; a server's log
    replays after 16 clients went without a bye (the replay closes them)."""
    srv = sess.start("rejoin-server", ["--serve", "0", "--spawn", "0", "--destroy", "0"])  # frames change no count
    s = srv.console
    s.command("frame.pause")
    port = boxes.node_port(srv)
    c = sess.start("rejoin-client", ["--join", "127.0.0.1:%d" % port], log=False).console
    joined = lambda: c.command("net.status")["joined"] and c.command("net.status")["state"] >= 0  # noqa: E731
    pending = lambda: c.command("net.status")["pending_inputs"] == 0  # noqa: E731
    wait_for(joined, "the client joined")
    n0 = s.command("world.stats")["entities"]
    c.command("spawn", prefab="crate", position=[1, 1, 1])
    wait_for(pending, "the control spawn applied")
    one = s.command("world.stats")["entities"] - n0
    check(one > 0, "a spawn adds entities (%d)" % one)
    n1 = s.command("world.stats")["entities"]
    c.script("spawn crate [5, 6, 7]\nnet.leave")  # applied by the server, unconfirmed when the client leaves
    c.command("net.join")
    wait_for(lambda: joined() and pending(), "the client joined again, its inputs applied")
    s.command("frame.step", frames=1)
    boxes.wait_synced(s, [c])
    check(s.command("world.stats")["entities"] - n1 == one, "a spawn, net.leave and net.join add one spawn's entities "
          "(%d), not two" % (s.command("world.stats")["entities"] - n1))
    c.command("spawn", prefab="p" * 2000, position=[0, 0, 0])  # an unknown prefab: its input is applied and fails
    wait_for(lambda: c.command("net.status") and any("no prefab 'ppp" in m.get("message", "") for m in c.logs),
             "the input's result")  # (the log lines come in with a reply)
    s.command("frame.step", frames=1)  # (a failed input changes no state: the next frame's confirms it)
    check(wait_for(pending, "an input of 2 KB reached the server"), "a long input is sent, not dropped")
    for k in range(17):  # 16 clients that go without a bye, then one whose input must replay
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            raw.sendall(frame_msg({"type": "hello", "protocol": 2, "byte_order": sys.byteorder, "name": "gone%d" % k}))
            check(read_until(raw, "welcome") is not None, "client %d joins" % k)
            if k == 16:
                raw.sendall(frame_msg({"type": "input", "seq": 1, "command": "spawn",
                                       "args": {"prefab": "crate", "position": [1, 2, 3]}}))
                m = read_until(raw, "input_result")
                check(m and m["reply"].get("ok") is True, "the 17th client's spawn: %r" % m)
    s.command("frame.step", frames=2)
    srv.stop(timeout=10.0)
    rc, out = run_engine(["--replay", os.path.join(a.out, "rejoin-server.log"), "--quiet"])
    check(rc == 0 and "first_difference=none end=complete" in out, "the server's log replays after 17 clients "
          "came and went: %s" % out[-300:])


def test_http_and_args(a, sess):
    """A spawn through the console's HTTP /api is in the server's log (as
    the framed request it equals): the log replays equal. With
    --log-traffic, an argument that is not UTF-8 is refused at start-up,
    named, and no log is written; without it the same argument runs."""
    srv = sess.start("http-server", ["--serve", "0"])
    s = srv.console
    s.command("frame.pause")
    s.command("frame.step", frames=3)
    n0 = s.command("world.stats")["entities"]
    url = "http://127.0.0.1:%d/api/spawn?prefab=crate&position=[1,2,3]" % s.port
    with urllib.request.urlopen(url, timeout=10) as r:
        check(r.status == 200, "GET /api/spawn answers 200: %d" % r.status)
    check(s.command("world.stats")["entities"] > n0, "the HTTP spawn added entities")
    s.command("frame.step", frames=2)
    srv.stop(timeout=10.0)
    rc, out = run_engine(["--replay", os.path.join(a.out, "http-server.log"), "--quiet"])
    check(rc == 0 and "first_difference=none end=complete" in out, "the server's log replays after an HTTP /api "
          "spawn: %s" % out[-300:])
    level = os.path.join(os.fsencode(a.out), b"lev\xe9l.json")
    with open(a.level, "rb") as f, open(level, "wb") as g:
        g.write(f.read())
    log = os.path.join(a.out, "latin.log")
    if os.path.exists(log):
        os.remove(log)
    rc, out = run_engine(["--level", level, "--plugins", a.plugins, "--frames", "3", "--quiet", "--log-traffic", log])
    check(rc != 0 and "--log-traffic: argument 2 '" in out and "lev\\xe9l.json' is not text the log can hold" in out,
          "an argument that is not UTF-8 is refused, named: %s" % out[-300:])
    check(not os.path.exists(log), "no log is written for it")
    rc, out = run_engine(["--level", level, "--plugins", a.plugins, "--frames", "3", "--quiet"])
    check(rc == 0, "without --log-traffic the same level path runs: %s" % out[-300:])


def test_stale_welcome(a, sess):
    """--fault holds the first connection's welcome; the client leaves and
    joins again before it is due: the new connection must not take it."""
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(2)
    lst.settimeout(10)
    port = lst.getsockname()[1]
    # seed 3 holds the first arriving message 4 frame periods (1 s at --fps 4)
    cl = sess.start("held-client", ["--join", "127.0.0.1:%d" % port, "--fault", "delay=4", "--fault-seed", "3",
                                    "--fps", "4"], log=False)
    c = cl.console
    k1, _ = lst.accept()
    with k1:
        check(read_until(k1, "hello") is not None, "the client says hello")
        k1.sendall(frame_msg({"type": "welcome", "protocol": 2, "client": 1, "frame": 0}))
        t0 = time.monotonic()
        wait_for(lambda: c.command("net.status")["faults"]["held"] == 1, "the welcome is held")
        c.script("net.leave\nnet.join")
    check(c.command("net.status")["faults"]["held"] == 0, "leaving drops what was held for that connection")
    k2, _ = lst.accept()
    with k2:
        check(read_until(k2, "hello") is not None, "the new connection gets a hello")
        time.sleep(max(0.0, t0 + 1.6 - time.monotonic()))  # past the held welcome's time
        check(not c.command("net.status")["joined"], "the old connection's welcome did not join the new one")
        check(read_until(k2, "hello", limit=5) is not None, "the client still says hello on the new connection")
        k2.sendall(frame_msg({"type": "welcome", "protocol": 2, "client": 2, "frame": 0}))
        check(wait_for(lambda: c.command("net.status")["joined"], "joined"), "the new connection's welcome joins")
    lst.close()


def log_records(path):
    """A traffic log's records: (kind, frame, peer, body) in order."""
    data, at, out = open(path, "rb").read(), 16, []
    while at + 16 <= len(data):
        size, frame, kind, _, _, _, peer = struct.unpack(">IIBBBBI", data[at:at + 16])
        if size < 16 or at + size > len(data):
            break
        out.append((kind, frame, peer, data[at + 16:at + size]))
        at += size
    return out


def test_slow_client(a, sess):
    """The server's sender thread: a client that stops reading (a small
    receive buffer, states queued for it faster than it takes them) only
    grows its own queue: a real client stays in step frame by frame
    meanwhile. Read again, the slow client's byte stream is, byte for
    byte, the server's logged NET_OUT records for it in the order logged
    (the framing, the shared payloads, the writes cut short and resumed),
    and far longer than the socket buffers held: the sender went on
    after the socket took more. The server quits with its queue full."""
    srv = sess.start("slow-server", ["--serve", "0", "--no-timeouts"])  # the slow client says nothing after its hello
    s = srv.console
    s.command("frame.pause")
    port = boxes.node_port(srv)
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    raw.settimeout(10)
    raw.connect(("127.0.0.1", port))
    got = b""
    with raw:
        raw.sendall(frame_msg({"type": "hello", "protocol": 2, "byte_order": sys.byteorder, "name": "slow"}))
        while len(got) < 8 or len(got) < 8 + struct.unpack(">I", got[4:8])[0]:
            chunk = raw.recv(1 << 16)
            if not chunk:
                break
            got += chunk
        first = json.loads(got[8:8 + struct.unpack(">I", got[4:8])[0]].decode()) if len(got) >= 8 else {}
        check(first.get("type") == "welcome", "the slow client is welcomed first: %r" % first)
        c = sess.start("fast-client", ["--join", "127.0.0.1:%d" % port], log=False).console
        boxes.wait_synced(s, [c])
        out0 = s.command("net.stats")["bytes_out"]
        for _ in range(6):  # the slow one never acknowledges: a full snapshot resent every 100 ms
            s.command("frame.step", frames=1)
            boxes.wait_synced(s, [c])
            time.sleep(0.3)
        slow = [p for p in s.command("net.status")["clients"] if p["name"] == "slow"]
        check(len(slow) == 1 and slow[0]["acked"] == -1, "the slow client is still joined, acknowledging nothing: %r" % slow)
        check(c.command("net.status")["divergences"] == 0, "the fast client applied every state")
        check(s.command("net.stats")["bytes_out"] > out0, "the server wrote on")
        end = time.monotonic() + 3.0  # read again while the server runs: the sender resumes the slow socket
        while time.monotonic() < end:
            chunk = raw.recv(1 << 20)
            if not chunk:
                break
            got += chunk
        srv.stop(timeout=30.0)  # quits with whatever is still queued for the slow client
        raw.settimeout(10)
        while True:
            try:
                chunk = raw.recv(1 << 20)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            got += chunk
    peer = first.get("client")
    sent = b"".join(body for kind, _, p, body in log_records(os.path.join(a.out, "slow-server.log"))
                    if kind == 4 and p == peer)  # NODE_LOG_NET_OUT
    check(len(got) > 6 << 20, "the slow client got more than the socket buffers can hold (Linux: at most 4 MB sent, "
          "16 KB received; %d bytes)" % len(got))
    same = len(got) <= len(sent) and got == sent[:len(got)]
    check(same, "the slow client's bytes are the logged messages in order (%d of %d logged bytes; first difference "
          "at %s)" % (len(got), len(sent), next((i for i, (x, y) in enumerate(zip(got, sent)) if x != y), "the end")))


def traffic_record(kind, body, frame=0, peer=0):
    return struct.pack(">IIBBBBI", 16 + len(body), frame, kind, 0, 0, 0, peer) + body


def test_traffic_tool(a):
    """tools/ecs_traffic.py refuses what node.h's reader refuses, and
    prints what it takes (deep JSON, a lone surrogate) without a traceback."""
    head = b"ECSTRAFF" + struct.pack(">II", 1, 16) + traffic_record(1, b'{"role": "server", "args": []}')
    deep = struct.pack(">II", 0, 200000) + b"[" * 100000 + b"]" * 100000
    cases = [("frame7", traffic_record(5, b"\0" * 7), 1, "a frame record of 7 body bytes, not 8"),
             ("type5", traffic_record(2, struct.pack(">II", 5, 2) + b"{}", peer=1), 1, "message type 5"),
             ("short", traffic_record(4, frame_msg({"type": "alive"}) + b"x", peer=1), 1, "shorter than the record"),
             ("surrogate", traffic_record(2, frame_msg({"type": "\ud800x"}), peer=1), 0, "\\ud800x"),
             ("deep", traffic_record(2, deep, peer=1), 0, "nested too deep"),
             # a size over node.h's bound (16 + 8 + NODE_MAX_MESSAGE) is a bad record, not a cut; at the bound, a cut
             ("oversize", struct.pack(">IIBBBBI", 16 + 8 + (256 << 20) + 1, 0, 5, 0, 0, 0, 0) + b"\0" * 8, 1,
              "size %d, kind 5 or its reserved bytes are not valid" % (16 + 8 + (256 << 20) + 1)),
             ("atbound", struct.pack(">IIBBBBI", 16 + 8 + (256 << 20), 0, 2, 0, 0, 0, 1) + b"\0" * 8, 3,
              "the log ends inside a record at offset")]
    for name, rec, want_rc, want in cases:
        path = os.path.join(a.out, "traffic-%s.log" % name)
        with open(path, "wb") as f:
            f.write(head + rec + traffic_record(6, b"after it"))
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ecs_traffic.py"), path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        text = (p.stdout + p.stderr).decode("utf-8", "replace")
        check(p.returncode == want_rc and want in text and "Traceback" not in text,
              "ecs_traffic.py on a log with %s: exit %d (want %d), %r in %s" % (name, p.returncode, want_rc, want, text[-300:]))


def test_scenarios(a):
    common = ["--engine", a.engine, "--level", a.level, "--plugins", a.plugins, "--cwd", ROOT, "--max-seconds", "90"]
    for extra in ([], ["--faults"]):
        out = os.path.join(a.out, "scenario" + ("-faults" if extra else ""))
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "scenarios", "boxes.py"), "--iterations", "2",
                            "--out", out] + common + extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=240)
        text = p.stdout.decode()
        check(p.returncode == 0 and "2 iterations, every node's world hash agreed" in text,
              "boxes.py %s agrees: %s" % (" ".join(extra), text[-400:]))
    out = os.path.join(a.out, "scenario-tamper")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "scenarios", "boxes.py"), "--iterations", "3",
                        "--tamper", "1", "--faults", "--out", out] + common, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=240)
    text = p.stdout.decode()
    check(p.returncode == 1 and "DIVERGENCE in iteration 1" in text and "client2" in text, "a divergence is reported: %s"
          % text[-400:])
    saved = os.path.join(out, "iteration-1")
    for n in ("server", "client1", "client2"):
        for ext in (".log", ".snapshot"):
            f = os.path.join(saved, n + ext)
            check(os.path.exists(f) and os.path.getsize(f) > 0, "saved %s" % f)
    cmd = [ln for ln in text.splitlines() if "replay the failing node: " in ln]
    check(cmd and cmd[0].endswith("client2.log"), "the replay command names client2's log")
    if cmd:
        args = cmd[0].split("replay the failing node: ", 1)[1].split()
        r = subprocess.run(args + ["--quiet"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        rt = r.stdout.decode()
        check(r.returncode == 0 and "first_difference=none end=complete" in rt, "the faulty run replays: %s" % rt[-300:])
    for n in ("server", "client1"):
        r = subprocess.run([a.engine, "--replay", os.path.join(saved, n + ".log"), "--quiet"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        check(r.returncode == 0, "%s's faulty run replays equal: %s" % (n, r.stdout.decode()[-200:]))
    # client 1 tampered: the replay command names client1 (it named client2 whenever a message listed every node),
    # with a relative --out resolved where boxes.py runs, not in the engines' --cwd (they could not write their logs)
    absolute = ["--engine", os.path.abspath(a.engine), "--level", os.path.abspath(a.level), "--plugins",
                os.path.abspath(a.plugins), "--cwd", ROOT, "--max-seconds", "90"]
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "scenarios", "boxes.py"), "--iterations", "1",
                        "--rounds", "1", "--tamper", "0", "--tamper-client", "1", "--out", "scenario-tamper1"] + absolute,
                       cwd=a.out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=240)
    text = p.stdout.decode()
    cmd = [ln for ln in text.splitlines() if "replay the failing node: " in ln]
    check(p.returncode == 1 and cmd and cmd[0].endswith(os.path.join(a.out, "scenario-tamper1", "iteration-0", "client1.log")),
          "client 1 tampered, a relative --out: %s" % text[-400:])


if __name__ == "__main__":
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("engine")
    p.add_argument("--level", required=True)
    p.add_argument("--plugins", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--only", help="comma-separated, of: three_nodes, slow_client, running_server (check_nodes.sh's "
                   "ThreadSanitizer pass: the server's sender thread)")
    a = p.parse_args()
    a.engine = os.path.abspath(a.engine)
    os.makedirs(a.out, exist_ok=True)
    if a.only:
        sess = Session(a)
        try:
            for name in a.only.split(","):
                {"three_nodes": test_three_nodes, "slow_client": test_slow_client,
                 "running_server": test_running_server}[name](a, sess)
        finally:
            sess.stop()
        print("%d passed, %d failed" % (passes, failures))
        sys.exit(1 if failures else 0)
    sess = Session(a)
    try:
        live = test_three_nodes(a, sess)
    finally:
        sess.stop()
    test_replay(a, live)
    sess = Session(a)
    try:
        test_running_server(a, sess)
    finally:
        sess.stop()
    sess = Session(a)
    try:
        test_bad_joins(a, sess)
        test_fake_server(a, sess)
        test_stale_welcome(a, sess)
    finally:
        sess.stop()
    sess = Session(a)
    try:
        test_rejoin(a, sess)
        test_http_and_args(a, sess)
        test_slow_client(a, sess)
    finally:
        sess.stop()
    test_traffic_tool(a)
    test_scenarios(a)
    print("%d passed, %d failed" % (passes, failures))
    sys.exit(1 if failures else 0)
