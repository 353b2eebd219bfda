#!/usr/bin/env python3
"""tests/probe_nodes.py - the issue's node target, measured (never asserted):
a server's frame with 3 clients joined against the same frame alone, on
the level given (the standard one: about 10k entities). Run by
tests/check_nodes.sh, which prints its rows.

    python3 tests/probe_nodes.py ENGINE --level LEVEL --plugins DIR [--seconds S]

"The same frame alone": the server with no client joined, doing what a
server does every frame whoever listens: the frame's systems and the
world hash it keeps for every frame (net.hash, its traffic log, the
states it sends). With clients, the frame also saves the state (once),
makes the delta from the state the clients acknowledged (once for the
clients that share a base) and queues and writes it to each client.

The server runs at --fps 30, as a game would (its loop reads the clients'
acknowledgements between frames, so each delta is against a recent
state), alone for SECONDS, then with three clients joined for SECONDS;
net.stats gives the mean frame in wall time and in the server thread's
CPU time, the node steps' CPU time, and the sender thread's CPU time (it
writes the clients' sockets: not the frame thread's, printed beside). Rounds alternate alone / joined
three times; the medians are printed as bench rows (name, value, unit,
target, met). The clients run on the same cores: the wall ratio counts
the time they take the server's core away (on the 2-core VM, most of the
gap between the two), the CPU ratio what the server itself spends. A
shared machine's figures: read the ratios."""

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


def print_rows(alone, joined, seconds):
    """Bench rows: | name | value | unit | target | met |."""
    def row(name, value, unit, target="", met=""):
        print("| %-34s | %12.3f | %-5s | %-44s | %-6s |" % (name, value, unit, target, met))
    wall_a, wall_j = median_of(alone, "frame_us"), median_of(joined, "frame_us")
    cpu_a, cpu_j = median_of(alone, "frame_cpu_us"), median_of(joined, "frame_cpu_us")
    row("node_frame_alone_us", wall_a, "us")
    row("node_frame_3_clients_us", wall_j, "us")
    row("node_frame_3_clients_ratio", wall_j / wall_a, "x", "<= 1.2", "yes" if wall_j <= 1.2 * wall_a else "no")
    row("node_frame_alone_cpu_us", cpu_a, "us")
    row("node_frame_3_clients_cpu_us", cpu_j, "us")
    row("node_frame_3_clients_cpu_ratio", cpu_j / cpu_a, "x", "<= 1.2", "yes" if cpu_j <= 1.2 * cpu_a else "no")
    for step in ("hash", "save", "delta", "send"):
        row("node_3_clients_%s_cpu_us" % step, median_of(joined, step + "_us"), "us")
    row("node_3_clients_sender_cpu_us", median_of(joined, "sender_cpu_us"), "us")  # the sender thread's, not the frame's
    row("node_state_bytes_per_client", median_of(joined, "state_bytes", True) / 3, "bytes")
    print("node_frame_3_clients_ratio=%.1f (wall; CPU %.1f: a frame alone %.1f us, with 3 clients %.1f us; medians of "
          "3 rounds of %.0f s at 30 fps; target <= 1.2)" % (wall_j / wall_a, cpu_j / cpu_a, wall_a, wall_j, seconds))


def main():
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("engine")
    p.add_argument("--level", required=True)
    p.add_argument("--plugins", required=True)
    p.add_argument("--seconds", type=float, default=3.0)
    a = p.parse_args()
    common = ["--level", a.level, "--plugins", a.plugins, "--quiet"]
    nodes = []
    try:
        srv = Node(a.engine, common + ["--serve", "0", "--fps", "30"], timeout=30.0, max_seconds=100, cwd=ROOT)
        nodes.append(srv)
        s = srv.start()
        port = boxes.node_port(srv)
        alone, joined = [], []
        clients = []
        for rnd in range(3):
            alone.append(measure(s, a.seconds))
            for k in range(3):
                if len(clients) < 3:
                    n = Node(a.engine, common + ["--join", "127.0.0.1:%d" % port, "--name", "probe%d" % k],
                             timeout=30.0, max_seconds=100, cwd=ROOT)
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
        print_rows(alone, joined, a.seconds)
    finally:
        for n in nodes:
            try:
                n.stop(timeout=5.0)
            except Exception:  # noqa: BLE001
                n.kill()


if __name__ == "__main__":
    main()
