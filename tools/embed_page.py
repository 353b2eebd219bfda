#!/usr/bin/env python3
"""tools/embed_page.py - turns examples/inspector.html into
examples/inspector_html.h, a C header that examples/engine.c includes to
serve the page at GET / (ecs_console_desc.page). No build system: run it
after changing the page and commit both files; tests/check_console.sh runs
it with --check, which fails when the header is out of step with the page.

    python3 tools/embed_page.py                 # writes the header
    python3 tools/embed_page.py --check         # exit 1 when it differs
    python3 tools/embed_page.py IN.html OUT.h [--check]

The header holds one C string literal per line of the page
(inspector_html_lines[], joined by the engine at start): a diff of the page
reads as the same diff of the header, and no literal comes near C99's
4095-character minimum limit (long lines are cut into pieces). Python 3
standard library only."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
PIECE = 1000  # characters of source per C literal at most


def c_literal(text):
    """text (str) as the body of a C string literal: printable ASCII kept,
    backslash, quote and '?' (no trigraphs) escaped, the rest as octal."""
    out = []
    for b in text.encode("utf-8"):
        ch = chr(b)
        if ch in '\\"?':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif 0x20 <= b < 0x7F:
            out.append(ch)
        else:
            out.append("\\%03o" % b)
    return "".join(out)


def render(html, source_name):
    lines = html.splitlines(keepends=True)
    out = [
        "/* examples/inspector_html.h - GENERATED from %s by tools/embed_page.py: do not edit;\n" % source_name,
        "   change the page, run `python3 tools/embed_page.py` and commit both (tests/check_console.sh checks\n",
        "   that they are in step). One literal per line of the page: the engine joins them. */\n",
        "#ifndef INSPECTOR_HTML_H_INCLUDED\n",
        "#define INSPECTOR_HTML_H_INCLUDED\n",
        "static const char *const inspector_html_lines[] = {\n",
    ]
    for line in lines:
        for k in range(0, len(line), PIECE):
            out.append('    "%s",\n' % c_literal(line[k:k + PIECE]))
    out.append("};\n#endif\n")
    return "".join(out)


def main(argv):
    args = [a for a in argv if a != "--check"]
    check = len(args) != len(argv)
    src = args[0] if len(args) > 0 else os.path.join(ROOT, "examples", "inspector.html")
    dst = args[1] if len(args) > 1 else os.path.join(ROOT, "examples", "inspector_html.h")
    with open(src, encoding="utf-8") as f:
        want = render(f.read(), "examples/" + os.path.basename(src))
    if check:
        try:
            with open(dst, encoding="utf-8") as f:
                have = f.read()
        except OSError:
            have = None
        if have != want:
            print("embed_page: %s is not in step with %s: run python3 tools/embed_page.py and commit it" % (dst, src))
            return 1
        print("embed_page: %s is in step with %s" % (os.path.basename(dst), os.path.basename(src)))
        return 0
    with open(dst, "w", encoding="utf-8") as f:
        f.write(want)
    print("embed_page: wrote %s (%d bytes of page)" % (dst, len(open(src, "rb").read())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
