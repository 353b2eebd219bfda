#!/usr/bin/env python3
"""tests/probe_nodes.py - the issue's node target, measured (never asserted):
a server's frame with 3 clients joined against the same frame alone, on
the level given (the standard one: about 10k entities). Run by
tests/check_nodes.sh, which prints its line.

    python3 tests/probe_nodes.py ENGINE --level LEVEL --plugins DIR [--frames N]

The server runs at --fps 30, as a game would (its loop reads the clients'
acknowledgements between frames, so each delta is against a recent
state), alone for SECONDS, then with three clients joined for SECONDS
(each frame then saves a snapshot and sends each client a delta; every
node frame also hashes the world); net.stats gives the mean frame and
its node part. Rounds alternate alone / joined three times; the medians
are printed. A shared machine's figures (the clients run on the same 2
cores): read the ratio."""

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
        alone, joined, node_part = [], [], []
        clients = []
        for rnd in range(3):
            alone.append(measure(s, a.seconds)["frame_us"])
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
            st = measure(s, a.seconds)
            joined.append(st["frame_us"])
            node_part.append(st["node_us"])
            for c in clients:
                c.command("net.leave")
            deadline = time.monotonic() + 10
            while s.command("net.status")["clients"] and time.monotonic() < deadline:
                time.sleep(0.02)
        m_alone, m_joined = statistics.median(alone), statistics.median(joined)
        print("node_frame_3_clients_ratio=%.1f (a frame alone %.1f us, with 3 clients %.1f us of which the node part "
              "%.1f us: world hash, snapshot, deltas, sends; target <= 1.2; medians of 3 rounds of %.0f s at 30 fps)"
              % (m_joined / m_alone, m_alone, m_joined, statistics.median(node_part), a.seconds))
    finally:
        for n in nodes:
            try:
                n.stop(timeout=5.0)
            except Exception:  # noqa: BLE001
                n.kill()


if __name__ == "__main__":
    main()
