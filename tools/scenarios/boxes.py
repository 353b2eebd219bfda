#!/usr/bin/env python3
"""tools/scenarios/boxes.py - the seed's scripted network test ("Scripted
Network Debugging"): a server and two clients of examples/engine.c on free
local ports, boxes spawned through every node's console, world hashes
compared at agreed frames, looped until a divergence shows.

    python3 tools/scenarios/boxes.py --engine build/engine [--iterations K]
        [--faults [SPEC]] [--out DIR] [--level L] [--plugins D] [--seed N]

Each iteration starts three nodes (the server with --serve 0, the clients
with --join, each with its own --console 0 and --log-traffic), pauses the
server and steps its frames itself, so that the frames are agreed:
  1. client 1 joins at frame 3, client 2 at frame 8;
  2. every node spawns boxes (crates) through a console script: the
     server's spawn runs there, the clients' are forwarded as inputs;
  3. the server steps frames; client 1 leaves (net.leave) and joins again;
  4. at each check the scenario waits until every client has applied the
     server's newest state, then compares every node's world.hash (the
     same frame) and each client's divergence count (net.status).
With --faults every node's incoming node messages are dropped, delayed,
duplicated and reordered by a seeded rule (engine --fault SPEC
--fault-seed N, default SPEC drop=0.05,delay=3,dup=0.02,reorder=0.05):
the nodes resend and resynchronise, so the hashes must still agree.
--tamper K (a test aid) changes client 2's world (--tamper-client 1: client 1's) behind the server's back
in iteration K (net.tamper): the divergence must be caught.

A divergence (hashes differ, a client reports one, or a client never
reaches the server's state) stops the loop: every node's traffic log and a
snapshot of its world (world.save) stay in DIR/iteration-K/, and the
command that replays the failing node is printed. An iteration that agreed
leaves nothing behind. Exit status: 0 every iteration agreed, 1 a
divergence, 2 the nodes could not be run.

Bounded: every console call times out (10 s), every wait for a state has a
deadline (20 s), every node quits by itself after --max-seconds, and every
process started is killed at the end whatever happens.
"""

import argparse
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ecs_console import ConsoleError, Consoles, Node  # noqa: E402

DEFAULT_FAULTS = "drop=0.05,delay=3,dup=0.02,reorder=0.05"


class Divergence(Exception):
    """What went wrong, and node: the name of the node to replay (the one
    that differs from the server, or the server when no client does)."""

    def __init__(self, text, node="server"):
        Exception.__init__(self, text)
        self.node = node


def node_port(node, timeout=10.0):
    """The node port from the server's "node: serving on 127.0.0.1:P" line."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in list(node.output):
            if line.startswith("node: serving on "):
                return int(line.rsplit(":", 1)[1])
        if node.proc.poll() is not None:
            break
        time.sleep(0.02)
    raise RuntimeError("the server printed no 'node: serving on' line: %r" % node.output[-5:])


def wait_synced(server, clients, timeout=20.0, names=("client1", "client2")):
    """Waits until every client applied the server's newest state; the
    server's status then. The server's state is read again on every turn:
    a late or resent input may still make it a newer one while we wait."""
    deadline = time.monotonic() + timeout
    while True:
        want = server.command("net.status")
        states = [c.command("net.status") for c in clients]
        if all(s["state"] == want["state"] for s in states):
            return want
        if time.monotonic() > deadline:
            late = [n for n, s in zip(names, states) if s["state"] != want["state"]]
            raise Divergence("clients at states %s never reached the server's state %d (frame %d) within %.0f s"
                             % ([s["state"] for s in states], want["state"], want["frame"], timeout),
                             late[0] if late else "server")
        time.sleep(0.02)


def wait_applied(clients, timeout=20.0, names=("client1", "client2")):
    """Waits until no client has an input the server has not applied yet
    (a dropped or reordered one is resent until a state says it was)."""
    deadline = time.monotonic() + timeout
    while True:
        pending = [c.command("net.status").get("pending_inputs", 0) for c in clients]
        if not any(pending):
            return
        if time.monotonic() > deadline:
            raise Divergence("clients still hold inputs the server never applied (%s) after %.0f s" % (pending, timeout),
                             [n for n, k in zip(names, pending) if k][0])
        time.sleep(0.02)


def wait_inputs(server, sent, timeout=20.0):
    """Waits until the server applied every input each client sent."""
    deadline = time.monotonic() + timeout
    while True:
        got = {c["name"]: c["inputs"] for c in server.command("net.status")["clients"]}
        if all(got.get(name, -1) >= n for name, n in sent.items()):
            return
        if time.monotonic() > deadline:
            short = [name for name, n in sorted(sent.items()) if got.get(name, -1) < n]
            raise Divergence("the server applied inputs %s, the clients sent %s" % (got, sent),
                             short[0] if short and short[0] != "server" else "server")
        time.sleep(0.02)


def compare(names, consoles, where):
    hashes = [c.command("world.hash") for c in consoles]
    frames = set(h["frame"] for h in hashes)
    values = set(h["hash"] for h in hashes)
    for name, c in zip(names[1:], consoles[1:]):
        st = c.command("net.status")
        if st["divergences"]:
            raise Divergence("%s: %s reports %d divergences" % (where, name, st["divergences"]), name)
    if len(frames) != 1 or len(values) != 1:
        odd = [n for n, h in zip(names[1:], hashes[1:]) if (h["hash"], h["frame"]) != (hashes[0]["hash"], hashes[0]["frame"])]
        raise Divergence("%s: world hashes differ: %s" % (
            where, ", ".join("%s %s at frame %d" % (n, h["hash"], h["frame"]) for n, h in zip(names, hashes))),
            odd[0] if odd else "server")
    return hashes[0]


def boxes(consoles, names, iteration, step):
    """Every node spawns boxes through a console script (the seed's boxes)."""
    sent = {}
    for k, (name, c) in enumerate(zip(names, consoles)):
        x = float(iteration * 10 + k)
        c.script("spawn crate [%g, 1, %g]\nspawn crate [%g, 2, %g]" % (x, step, x + 0.5, step))
        if k:
            sent[name] = sent.get(name, 0) + 2
    return sent


def run_iteration(a, k, out):
    names = ["server", "client1", "client2"]
    common = ["--level", a.level, "--plugins", a.plugins, "--quiet", "--spawn", "3", "--destroy", "2"]
    faults = []
    nodes = []

    def start(i, extra):
        f = ["--fault", a.faults, "--fault-seed", str(a.seed + k * 10 + i)] if a.faults else []
        n = Node(a.engine, common + extra + f + ["--log-traffic", os.path.join(out, names[i] + ".log"), "--name", names[i]],
                 timeout=10.0, max_seconds=a.max_seconds, cwd=a.cwd)
        nodes.append(n)
        n.start()
        return n

    try:
        server = start(0, ["--serve", "0"])
        s = server.console
        s.command("frame.pause")
        port = node_port(server)
        join = ["--join", "127.0.0.1:%d" % port]
        s.command("frame.step", frames=3)
        c1 = start(1, join).console
        wait_synced(s, [c1])
        compare(names[:2], [s, c1], "iteration %d, client1 joined" % k)
        s.command("frame.step", frames=5)
        c2 = start(2, join).console
        clients = [c1, c2]
        wait_synced(s, clients)
        compare(names, [s] + clients, "iteration %d, client2 joined" % k)
        sent = {}
        for step in range(a.rounds):
            for name, n in boxes([s] + clients, names, k, step).items():
                sent[name] = sent.get(name, 0) + n
            wait_inputs(s, sent)
            wait_applied(clients)
            s.command("frame.step", frames=4)
            if step == 1:  # client 1 leaves and joins again (its inputs go on counting: the server knows its token)
                c1.command("net.leave")
                s.command("frame.step", frames=2)
                c1.command("net.join")
            wait_synced(s, clients)
            if a.tamper == k and step == a.rounds - 1:
                clients[a.tamper_client - 1].command("net.tamper")
            compare(names, [s] + clients, "iteration %d, round %d" % (k, step))
        return None, None
    except Divergence as e:
        save(nodes, names, out)
        return str(e), e.node
    finally:
        for n in nodes:
            try:
                n.stop(timeout=5.0)
            except Exception:  # noqa: BLE001 - whatever happens, the process goes
                n.kill()


def save(nodes, names, out):
    for n, name in zip(nodes, names):
        try:
            _, data = n.console.command_binary("world.save")
            with open(os.path.join(out, name + ".snapshot"), "wb") as f:
                f.write(data or b"")
        except (OSError, ConsoleError, ValueError) as e:
            print("boxes.py: %s: no snapshot saved: %s" % (name, e))


def main(argv=None):
    p = argparse.ArgumentParser(description="A server and two clients spawn boxes; world hashes compared; looped.")
    p.add_argument("--engine", default="build/engine")
    p.add_argument("--level", default="build/levels/standard.json")
    p.add_argument("--plugins", default="build/plugins")
    p.add_argument("--iterations", type=int, default=1)
    p.add_argument("--rounds", type=int, default=3, help="spawn rounds an iteration (default 3)")
    p.add_argument("--faults", nargs="?", const=DEFAULT_FAULTS, default=None, metavar="SPEC")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="build/scenarios/boxes")
    p.add_argument("--tamper", type=int, default=-1, help=argparse.SUPPRESS)
    p.add_argument("--tamper-client", type=int, choices=(1, 2), default=2, help=argparse.SUPPRESS)
    p.add_argument("--max-seconds", type=int, default=120)
    p.add_argument("--cwd", default=None, help="the engines' working folder (default: this one)")
    a = p.parse_args(argv)
    a.out = os.path.abspath(a.out)  # the engines run in --cwd: their --log-traffic paths must not depend on it
    for k in range(a.iterations):
        out = os.path.join(a.out, "iteration-%d" % k)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        started = time.monotonic()
        try:
            why, failing = run_iteration(a, k, out)
        except (RuntimeError, OSError, ConsoleError) as e:
            print("boxes.py: iteration %d: the nodes could not be run: %s" % (k, e))
            return 2
        if why:
            print("boxes.py: DIVERGENCE in iteration %d: %s" % (k, why))
            print("boxes.py: every node's traffic log and snapshot are in %s" % out)
            print("boxes.py: replay the failing node: %s --replay %s" % (a.engine, os.path.join(out, failing + ".log")))
            return 1
        shutil.rmtree(out, ignore_errors=True)
        print("boxes.py: iteration %d agreed (%.1f s)%s" % (k, time.monotonic() - started,
                                                           " with faults " + a.faults if a.faults else ""))
    print("boxes.py: %d iterations, every node's world hash agreed at every check" % a.iterations)
    return 0


if __name__ == "__main__":
    sys.exit(main())
