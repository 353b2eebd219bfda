#!/usr/bin/env python3
"""tests/probe_nodes.py - the issue's node target, measured (never asserted):
a server's frame with 3 clients joined against the same frame alone, on
the level given (the standard one: about 10k entities). Run by
tests/check_nodes.sh, which prints its rows.

    python3 tests/probe_nodes.py ENGINE --level LEVEL --plugins DIR [--seconds S] [--rounds N]
                                 [--pin-clients CPU]

"The same frame alone": the server with no client joined, doing what a
server does every frame whoever listens: the frame's systems and the
world hash it keeps for every frame (net.hash, its traffic log, the
states it sends). With clients, the frame also queues each client the
new state; the sender thread writes the delta from the state the clients
acknowledged while the world rests between frames (sender_delta_cpu_us,
on the other core: not the frame's) and the sockets, and the frame waits
for it only if it starts before the delta is done (fence_us, counted in
the frame).

The server runs at --fps 30, as a game would (its loop reads the clients'
acknowledgements between frames, so each delta is against a recent
state), alone for SECONDS, then with three clients joined for SECONDS;
net.stats gives the mean frame in wall time and in the server thread's
CPU time, the node steps' CPU time, and the sender thread's CPU time (it
writes the clients' sockets: not the frame thread's, printed beside).
Rounds alternate alone / joined (5 of 2 s by default); the ratio rows
are the median of the rounds' ratios (each round's two measured one after
the other: the VM's speed drifts by more than the gap between rounds), the
other rows medians, printed as bench rows (name, value, unit, target,
met). The clients run on the same machine: by default on any core, where
their work (each applies, loads and hashes the whole state every frame)
also evicts the server's data from the caches they share; with
--pin-clients CPU they run on that core only (taskset), the server on any:
the server's own cost, the rows named with _pinned. A shared machine's
figures: read the ratios."""

import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "scenarios"))
from ecs_console import Node  # noqa: E402
import boxes  # noqa: E402


def measure(s, seconds):
    s.command("net.stats", reset=1)
    time.sleep(seconds)
    return s.command("net.stats")


def median_of(stats, key, per_frame=False):
    return statistics.median(st[key] / max(st["frames"], 1) if per_frame else st[key] for st in stats)


def paired_ratio(alone, joined, key):
    """The median over rounds of joined / alone, each round's two
    measured one after the other (the VM's speed drifts between rounds by
    more than the gap measured: a ratio of the two medians mixes rounds)."""
    return statistics.median(j[key] / max(a[key], 1e-9) for a, j in zip(alone, joined))


def print_rows(alone, joined, seconds, suffix=""):
    """Bench rows: | name | value | unit | target | met |."""
    def row(name, value, unit, target="", met=""):
        name = name.replace("3_clients", "3_clients" + suffix).replace("alone", "alone" + suffix)
        print("| %-34s | %12.3f | %-5s | %-44s | %-6s |" % (name, value, unit, target, met))
    wall_a, wall_j = median_of(alone, "frame_us"), median_of(joined, "frame_us")
    cpu_a, cpu_j = median_of(alone, "frame_cpu_us"), median_of(joined, "frame_cpu_us")
    wall_r, cpu_r = paired_ratio(alone, joined, "frame_us"), paired_ratio(alone, joined, "frame_cpu_us")
    row("node_frame_alone_us", wall_a, "us")
    row("node_frame_3_clients_us", wall_j, "us")
    row("node_frame_3_clients_ratio", wall_r, "x", "<= 1.2", "yes" if wall_r <= 1.2 else "no")
    row("node_frame_alone_cpu_us", cpu_a, "us")
    row("node_frame_3_clients_cpu_us", cpu_j, "us")
    row("node_frame_3_clients_cpu_ratio", cpu_r, "x", "<= 1.2", "yes" if cpu_r <= 1.2 else "no")
    row("node_alone_hash_cpu_us", median_of(alone, "hash_us"), "us")
    for step in ("hash", "save", "send"):
        row("node_3_clients_%s_cpu_us" % step, median_of(joined, step + "_us"), "us")
    row("node_3_clients_fence_us", median_of(joined, "fence_us"), "us")  # waits for the sender's deltas, in frames or not
    # the sender thread's, not the frame's: all of it, and writing the deltas
    row("node_3_clients_sender_cpu_us", median_of(joined, "sender_cpu_us"), "us")
    row("node_3_clients_sender_delta_cpu_us", median_of(joined, "delta_us"), "us")
    row("node_state_bytes_per_client", median_of(joined, "state_bytes", True) / 3, "bytes")
    print("node_frame_3_clients%s_ratio=%.2f (wall; CPU %.2f: the median of %d rounds' ratios, each round %.0f s alone then "
          "%.0f s with 3 clients at 30 fps; medians: a frame alone %.1f us, with 3 clients %.1f us; target <= 1.2)"
          % (suffix, wall_r, cpu_r, len(alone), seconds, seconds, wall_a, wall_j))


def main():
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("engine")
    p.add_argument("--level", required=True)
    p.add_argument("--plugins", required=True)
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--pin-clients", type=int, default=None, metavar="CPU")
    a = p.parse_args()
    common = ["--level", a.level, "--plugins", a.plugins, "--quiet"]
    wrap = [] if a.pin_clients is None else ["taskset", "-c", str(a.pin_clients)]
    nodes = []
    try:
        srv = Node(a.engine, common + ["--serve", "0", "--fps", "30"], timeout=30.0, max_seconds=100, cwd=ROOT)
        nodes.append(srv)
        s = srv.start()
        port = boxes.node_port(srv)
        alone, joined = [], []
        clients = []
        for rnd in range(a.rounds):
            alone.append(measure(s, a.seconds))
            for k in range(3):
                if len(clients) < 3:
                    n = Node(a.engine, common + ["--join", "127.0.0.1:%d" % port, "--name", "probe%d" % k],
                             timeout=30.0, max_seconds=100, cwd=ROOT, wrap=wrap)
                    nodes.append(n)
                    clients.append(n.start())
                else:
                    clients[k].command("net.join")
            deadline = time.monotonic() + 30  # joined: every client has a state
            while min(c.command("net.status")["state"] for c in clients) < 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            joined.append(measure(s, a.seconds))
            for c in clients:
                c.command("net.leave")
            deadline = time.monotonic() + 10
            while s.command("net.status")["clients"] and time.monotonic() < deadline:
                time.sleep(0.02)
        print_rows(alone, joined, a.seconds, "" if a.pin_clients is None else "_pinned")
    finally:
        for n in nodes:
            try:
                n.stop(timeout=5.0)
            except Exception:  # noqa: BLE001
                n.kill()


if __name__ == "__main__":
    main()
