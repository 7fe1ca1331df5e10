#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that cuts one connection at a chosen point of
the byte stream, for fault tests of the PostgreSQL results store: the
database is real, only the network between skillci and it fails.

Usage:
    tcp_cut.py --target PORT --port-file FILE --pattern TEXT --nth N
               [--when before|after] [--log FILE]

Every connection is relayed to 127.0.0.1:PORT. In the client's stream the
N-th occurrence (counted over all connections) of TEXT (Python escapes,
e.g. 'COMMIT\\x00') triggers the cut, once: "before" closes both sides
without sending the chunk that holds it (the server never sees it);
"after" closes the client's side, then sends the chunk to the server and
closes that side too, so the server acts on it but the client never gets
the answer. Later
connections are relayed untouched. The log gets one line: "cut" when the
cut was made.
"""
import argparse
import os
import socket
import sys
import threading

STATE = {"seen": 0, "cut": False}
LOCK = threading.Lock()


def pipe(src, dst, watch, args, both):
    tail = b""
    pattern = args.pattern.encode().decode("unicode_escape").encode("latin-1")
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if watch:
                with LOCK:
                    if not STATE["cut"]:
                        window = tail + data
                        STATE["seen"] += window.count(pattern) - tail.count(pattern)
                        tail = window[-(len(pattern) - 1):] if len(pattern) > 1 else b""
                        if STATE["seen"] >= args.nth:
                            STATE["cut"] = True
                            if args.when == "after":
                                # the client first, so that no answer can
                                # reach it; then the server gets the chunk
                                try:
                                    src.shutdown(socket.SHUT_RDWR)
                                except OSError:
                                    pass
                                dst.sendall(data)
                            if args.log:
                                with open(args.log, "a") as f:
                                    f.write("cut\n")
                            for s in both:
                                try:
                                    s.shutdown(socket.SHUT_RDWR)
                                except OSError:
                                    pass
                                s.close()
                            return
            dst.sendall(data)
    except OSError:
        pass
    for s in both:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(conn, args):
    try:
        up = socket.create_connection(("127.0.0.1", args.target))
    except OSError:
        conn.close()
        return
    both = (conn, up)
    threading.Thread(target=pipe, args=(conn, up, True, args, both), daemon=True).start()
    threading.Thread(target=pipe, args=(up, conn, False, args, both), daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", type=int, required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--pattern", required=True)
    ap.add_argument("--nth", type=int, default=1)
    ap.add_argument("--when", choices=("before", "after"), default="before")
    ap.add_argument("--log")
    args = ap.parse_args()
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(tmp, args.port_file)
    while True:
        conn, _ = ls.accept()
        serve(conn, args)


if __name__ == "__main__":
    sys.exit(main())
