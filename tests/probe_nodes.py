#!/usr/bin/env python3
"""tests/probe_nodes.py - the issue's node target, measured (never asserted):
a server's frame with 3 clients joined against the same frame alone, on
the level given (the standard one: about 10k entities). Run by
tests/check_nodes.sh, which prints its line.

    python3 tests/probe_nodes.py ENGINE --level LEVEL --plugins DIR [--frames N]

The server is paused and stepped (frame.step N) alone, then with three
clients joined (each frame then saves a snapshot, hashes the world and
sends each client a delta); frame.stats gives the mean frame and its node
part. Rounds alternate alone / joined three times; the medians are
printed. A shared machine's figures: read the ratio."""

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


def measure(s, frames):
    s.command("frame.stats", reset=1)
    s.command("frame.step", frames=frames)
    return s.command("frame.stats")


def main():
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("engine")
    p.add_argument("--level", required=True)
    p.add_argument("--plugins", required=True)
    p.add_argument("--frames", type=int, default=120)
    a = p.parse_args()
    common = ["--level", a.level, "--plugins", a.plugins, "--quiet"]
    nodes = []
    try:
        srv = Node(a.engine, common + ["--serve", "0"], timeout=30.0, max_seconds=100, cwd=ROOT)
        nodes.append(srv)
        s = srv.start()
        s.command("frame.pause")
        port = boxes.node_port(srv)
        alone, joined, node_part = [], [], []
        clients = []
        for rnd in range(3):
            alone.append(measure(s, a.frames)["frame_us"])
            for k in range(3):
                if len(clients) < 3:
                    n = Node(a.engine, common + ["--join", "127.0.0.1:%d" % port, "--name", "probe%d" % k],
                             timeout=30.0, max_seconds=100, cwd=ROOT)
                    nodes.append(n)
                    clients.append(n.start())
                else:
                    clients[k].command("net.join")
            boxes.wait_synced(s, clients, timeout=30.0)
            st = measure(s, a.frames)
            joined.append(st["frame_us"])
            node_part.append(st["node_us"])
            boxes.wait_synced(s, clients, timeout=30.0)
            for c in clients:
                c.command("net.leave")
            deadline = time.monotonic() + 10
            while s.command("net.status")["clients"] and time.monotonic() < deadline:
                time.sleep(0.02)
        m_alone, m_joined = statistics.median(alone), statistics.median(joined)
        print("node_frame_3_clients_ratio=%.1f (a frame alone %.1f us, with 3 clients %.1f us of which the node part "
              "%.1f us: world hash, snapshot, deltas, sends; target <= 1.2; medians of 3 rounds of %d frames)"
              % (m_joined / m_alone, m_alone, m_joined, statistics.median(node_part), a.frames))
    finally:
        for n in nodes:
            try:
                n.stop(timeout=5.0)
            except Exception:  # noqa: BLE001
                n.kill()


if __name__ == "__main__":
    main()
