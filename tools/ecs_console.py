#!/usr/bin/env python3
"""tools/ecs_console.py - a client of ecs_console.h, for scripts and people.

Python 3 standard library only. The protocol is DESIGN.md section 11 (and
ecs_console.h's PROTOCOL): messages framed as a big-endian u32 type and a
big-endian u32 length; type 0 is UTF-8 JSON, type 1 JSON with a binary
payload (a u32 json_length, the JSON, then the bytes).

As a library (the seed's Console, Consoles and Node):

    from ecs_console import Node, Consoles
    with Node("build/engine", ["--level", "build/levels/standard.json"]) as node:
        c = node.console                    # started on a free port
        print(c.command("world.hash"))      # {'hash': '...', 'frame': 0}
        c.command("world.set", entity=5, component="actor", field="mass", value=3)
        print(c.script("frame.step 10\\nworld.hash"))
        result, snapshot = c.command_binary("world.save")

    Console(host, port)        connect; command(name, **args) -> result;
                               command_binary(name, payload=None, /, **args)
                               -> (result, payload); script(text) -> the
                               lines' results; replies matched by id; log
                               lines collected in .logs (and passed to
                               .on_log); ConsoleError on an error reply
    Consoles([c1, c2, ...])    the same message to several, results in order
    Node(engine, args)         starts an engine with --console 0, reads the
                               port from its first output line, connects;
                               stop() sends quit (then kills after a timeout);
                               wait() waits for the exit and all its output

From a shell:

    python3 tools/ecs_console.py --port P                 a prompt (history in
                                                          ~/.ecs_console_history)
    python3 tools/ecs_console.py --port P COMMAND [JSON-ARGS]
        runs one command and prints its result as JSON; exit status 1 (and
        the message on stderr) when it fails. --save FILE writes a binary
        reply's payload (world.save), --load FILE sends a file as the payload
        (world.load).

At the prompt a line is run as a script line (NAME ARG ..., e.g.
"world.entity 5" or "world.set 5 actor mass 3"); a line starting with "{"
is sent as a request as it is; ".save FILE" and ".load FILE" save and load
the world through files; ".exit" or end of input leaves (the engine goes on;
"quit" ends the engine).

Every socket call has a timeout (--timeout, default 10 s).
"""

import json
import os
import queue
import socket
import struct
import subprocess
import sys
import threading
import time

JSON = 0
JSON_WITH_BINARY = 1


class ConsoleError(Exception):
    """An error reply: str() is its message; .reply is the whole reply."""

    def __init__(self, message, reply=None):
        Exception.__init__(self, message)
        self.reply = reply


def frame(obj, payload=None):
    """The bytes of one message: type 0, or type 1 with a payload."""
    text = obj if isinstance(obj, (bytes, bytearray)) else json.dumps(obj).encode("utf-8")
    if payload is None:
        return struct.pack(">II", JSON, len(text)) + text
    return struct.pack(">III", JSON_WITH_BINARY, 4 + len(text) + len(payload), len(text)) + text + bytes(payload)


class Console:
    """A connection to one engine's console."""

    def __init__(self, host="127.0.0.1", port=None, timeout=10.0):
        if port is None:
            raise ValueError("Console needs a port")
        self.host, self.port, self.timeout = host, int(port), float(timeout)
        self.sock = socket.create_connection((host, self.port), timeout=self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.logs = []         # every log line pushed so far: dicts with level, message
        self.on_log = None     # called with each log line as it arrives
        self._buf = bytearray()
        self._next_id = 1
        self._replies = {}     # replies read while waiting for another id

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the wire --

    def send(self, obj, payload=None):
        """Sends one message as it is (no id added)."""
        self.sock.settimeout(self.timeout)
        self.sock.sendall(frame(obj, payload))

    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no reply from %s:%d within %.1f s" % (self.host, self.port, self.timeout))
        self.sock.settimeout(left)
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("the console at %s:%d closed the connection" % (self.host, self.port))
        self._buf += chunk

    def read_message(self, timeout=None):
        """The next message: (type, json object, payload bytes or None)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            if len(self._buf) >= 8:
                kind, length = struct.unpack(">II", self._buf[:8])
                if len(self._buf) >= 8 + length:
                    body = bytes(self._buf[8:8 + length])
                    del self._buf[:8 + length]
                    if kind == JSON:
                        return kind, json.loads(body.decode("utf-8")), None
                    (jl,) = struct.unpack(">I", body[:4])
                    return kind, json.loads(body[4:4 + jl].decode("utf-8")), body[4 + jl:]
            self._fill(deadline)

    def request(self, obj, payload=None):
        """Sends a request with a fresh id; returns (reply, payload) for it.
        Log lines and other replies read meanwhile are kept."""
        rid = self._next_id
        self._next_id += 1
        obj = dict(obj)
        obj["id"] = rid
        self.send(obj, payload)
        return self.wait_reply(rid)

    def wait_reply(self, rid):
        deadline = time.monotonic() + self.timeout
        while rid not in self._replies:
            _, msg, payload = self.read_message(max(0.001, deadline - time.monotonic()))
            if msg.get("type") == "log":
                self.logs.append(msg)
                if self.on_log:
                    self.on_log(msg)
            elif msg.get("type") == "reply":
                self._replies[msg.get("id")] = (msg, payload)
        return self._replies.pop(rid)

    # -- commands --

    def command_binary(self, name, payload=None, /, **args):
        """Runs command name; returns (result, the reply's payload or None).
        name and payload are positional only, so a command's arguments may
        be called name or payload too."""
        reply, data = self.request({"type": "command", "command": name, "args": args}, payload)
        if not reply.get("ok"):
            raise ConsoleError(reply.get("error", "error"), reply)
        return reply.get("result"), data

    def command(self, name, /, **args):
        """Runs command name with args; returns its result."""
        return self.command_binary(name, None, **args)[0]

    def script(self, text):
        """Runs lines of NAME ARG ...; returns the list of their results."""
        reply, _ = self.request({"type": "script", "script": text})
        if not reply.get("ok"):
            raise ConsoleError(reply.get("error", "error"), reply)
        return reply.get("result")


class Consoles:
    """Several consoles, one message to all (sent to each, then the replies
    collected in order)."""

    def __init__(self, consoles):
        self.consoles = list(consoles) if isinstance(consoles, (list, tuple)) else [consoles]

    def _all(self, obj):
        ids = []
        for c in self.consoles:
            rid = c._next_id
            c._next_id += 1
            o = dict(obj)
            o["id"] = rid
            c.send(o)
            ids.append(rid)
        results = []
        for c, rid in zip(self.consoles, ids):
            reply, _ = c.wait_reply(rid)
            if not reply.get("ok"):
                raise ConsoleError("%s:%d: %s" % (c.host, c.port, reply.get("error")), reply)
            results.append(reply.get("result"))
        return results

    def command(self, name, /, **args):
        return self._all({"type": "command", "command": name, "args": args})

    def script(self, text):
        return self._all({"type": "script", "script": text})

    def close(self):
        for c in self.consoles:
            c.close()


class Node:
    """An engine process with its console (the seed's start_project): starts
    `engine --console 0 ARGS` (and --max-seconds so that it never outlives a
    test by long), reads "console: listening on ADDRESS:PORT" from its first
    output line, connects. Its output is kept in .output (lines). wrap: a
    command the engine runs under (["taskset", "-c", "1"]: pinned to a core)."""

    def __init__(self, engine, args=(), timeout=10.0, max_seconds=120, cwd=None, wrap=()):
        self.engine, self.args, self.timeout = engine, list(args), float(timeout)
        self.wrap = list(wrap)
        self.max_seconds, self.cwd = max_seconds, cwd
        self.proc = None
        self.console = None
        self.output = []
        self._lines = queue.Queue()

    def _drain(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.output.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def start(self):
        cmd = self.wrap + [self.engine, "--console", "0"] + self.args
        if self.max_seconds:
            cmd += ["--max-seconds", str(int(self.max_seconds))]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=self.cwd)
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()
        try:
            first = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            first = None
        prefix = "console: listening on "
        if not first or not first.startswith(prefix):
            self.kill()
            raise RuntimeError("%s did not open a console: first line %r, output %r" % (self.engine, first, self.output))
        host, _, port = first[len(prefix):].rpartition(":")
        try:
            self.console = Console("127.0.0.1" if host in ("0.0.0.0", "") else host, int(port), self.timeout)
        except BaseException:  # no node to stop() it through: the engine would run on
            self.kill()
            raise
        return self.console

    def wait(self, timeout=None):
        """Waits for the process to end and for .output to hold all it
        wrote (the pipe is read by a thread, which may still be reading when
        the process is gone). Returns its exit status."""
        timeout = self.timeout if timeout is None else timeout
        code = self.proc.wait(timeout=timeout)
        self._drainer.join(timeout)
        return code

    def stop(self, timeout=None):
        """Sends quit and waits for the process; kills it if it does not end.
        Returns its exit status."""
        timeout = self.timeout if timeout is None else timeout
        if self.proc is None:
            return None
        if self.console is not None:
            try:
                self.console.command("quit")
            except (OSError, ConsoleError, ValueError):
                pass
            self.console.close()
            self.console = None
        try:
            return self.wait(timeout)
        except subprocess.TimeoutExpired:
            return self.kill()

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        return self.proc.wait(timeout=self.timeout) if self.proc is not None else None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()


# -- the command line --------------------------------------------------------------

def _show(result):
    print(json.dumps(result, indent=2, sort_keys=False))


def _prompt_line(c, line):
    """Runs one line typed at the prompt."""
    if line.startswith(".save ") or line.startswith(".load "):
        path = line[6:].strip()
        if line.startswith(".save "):
            result, data = c.command_binary("world.save")
            with open(path, "wb") as f:
                f.write(data or b"")
            _show(result)
        else:
            with open(path, "rb") as f:
                _show(c.command_binary("world.load", f.read())[0])
        return
    if line.startswith("{"):
        obj = json.loads(line)
        if isinstance(obj, dict) and "id" in obj:  # as it is, its own id (one the console refuses: its reply's is null)
            rid = obj["id"]
            whole = isinstance(rid, int) and not isinstance(rid, bool) and 0 <= rid <= 2 ** 53
            c.send(obj)
            reply, data = c.wait_reply(rid if whole else None)
        else:
            reply, data = c.request(obj)
        _show(reply)
        if data is not None:
            print("(a binary payload of %d bytes)" % len(data))
        return
    results = c.script(line)
    _show(results[0] if len(results) == 1 else results)


def prompt(c, stdin=None):
    """A read-eval-print loop over a console; history in ~/.ecs_console_history
    when the terminal has readline."""
    stdin = stdin or sys.stdin
    tty = stdin.isatty()
    history = os.path.expanduser("~/.ecs_console_history")
    if tty:
        try:
            import readline
            try:
                readline.read_history_file(history)
            except OSError:
                pass
        except ImportError:
            readline = None
    c.on_log = lambda m: print("[%s] %s" % (m.get("level"), m.get("message")))
    if tty:
        print("ecs console %s:%d: lines of NAME ARG ... ('help' lists the commands), .exit to leave" % (c.host, c.port))
    status = 0
    while True:
        try:
            line = input("> ") if tty else stdin.readline()
        except EOFError:
            break
        if not tty and line == "":
            break
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line in (".exit", ".quit"):
            break
        try:
            _prompt_line(c, line)
        except ConsoleError as e:
            print("error: %s" % e)
            status = 1
        except (OSError, ValueError) as e:
            print("error: %s" % e)
            status = 1
            if isinstance(e, (ConnectionError, TimeoutError)):
                break
    if tty:
        try:
            import readline
            readline.write_history_file(history)
        except (ImportError, OSError):
            pass
    return status


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(description="A client of ecs_console.h: one command, or a prompt.")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--save", metavar="FILE", help="write the reply's binary payload to FILE")
    p.add_argument("--load", metavar="FILE", help="send FILE as the request's binary payload")
    p.add_argument("command", nargs="?")
    p.add_argument("args", nargs="?", help="the arguments as a JSON object")
    a = p.parse_args(argv)
    try:
        c = Console(a.host, a.port, a.timeout)
    except OSError as e:
        print("ecs_console.py: cannot connect to %s:%d: %s" % (a.host, a.port, e), file=sys.stderr)
        return 2
    with c:
        if not a.command:
            return prompt(c)
        try:
            args = json.loads(a.args) if a.args else {}
            if not isinstance(args, dict):
                raise ValueError("JSON-ARGS must be an object")
            payload = None
            if a.load:
                with open(a.load, "rb") as f:
                    payload = f.read()
            result, data = c.command_binary(a.command, payload, **args)
        except ConsoleError as e:
            print("ecs_console.py: %s" % e, file=sys.stderr)
            return 1
        except (OSError, ValueError) as e:
            print("ecs_console.py: %s" % e, file=sys.stderr)
            return 1
        if a.save and data is not None:
            with open(a.save, "wb") as f:
                f.write(data)
        _show(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
