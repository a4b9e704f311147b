"""Hostile requests against `denpex serve`, all on 127.0.0.1 and bounded in
time: oversized bodies, a slow client, malformed multipart, invalid UTF-8,
a log full of markup, and 50 concurrent 10 MB pastes (memory bounded, each
answered or refused with 503, the server still up afterwards)."""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server import Server  # noqa: E402

SRC = os.environ.get("top_srcdir", ".")
EXAMPLE = os.path.join(SRC, "tests", "data", "example", "multinode-xid")
results = []


def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("ok   " if cond else "FAIL ") + name + (" (%s)" % detail if detail else ""), flush=True)


def http(port, method, path, headers=None, body=b"", timeout=60, chunks=None):
    """One request on its own connection: (status, headers, body); status 0
    when the server closed without an answer."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    h = {"Host": "127.0.0.1:%d" % port, "Connection": "close"}
    h.update(headers or {})
    if chunks is None:
        h.setdefault("Content-Length", str(len(body)))
    else:
        h["Transfer-Encoding"] = "chunked"
    head = "%s %s HTTP/1.1\r\n" % (method, path) + "".join("%s: %s\r\n" % kv for kv in h.items()) + "\r\n"
    try:
        s.sendall(head.encode())
        if chunks is None:
            s.sendall(body)
        else:
            for c in chunks:
                s.sendall(b"%x\r\n%s\r\n" % (len(c), c))
            s.sendall(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused early: the answer may still be there to read
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    if not data.startswith(b"HTTP/1."):
        return 0, {}, data
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return status, hdrs, rest


def multipart(fields, boundary="denpexTESTboundary"):
    out = b""
    for name, filename, content in fields:
        disp = 'form-data; name="%s"' % name + ('; filename="%s"' % filename if filename else "")
        out += b"--" + boundary.encode() + b"\r\nContent-Disposition: " + disp.encode() + b"\r\n"
        if filename:
            out += b"Content-Type: application/octet-stream\r\n"
        out += b"\r\n" + content + b"\r\n"
    out += b"--" + boundary.encode() + b"--\r\n"
    return out, "multipart/form-data; boundary=" + boundary


def main():
    job = open(os.path.join(EXAMPLE, "job.out"), "rb").read()

    # --- small limits: oversized bodies, slow clients ---------------------
    srv = Server("--max-body", "1M", "--timeout", "4")
    try:
        big = b"x" * (2 << 20)
        t0 = time.time()
        st, h, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "text/plain"}, big)
        check("oversized body with Content-Length: 413", st == 413, "status %d, %.2f s" % (st, time.time() - t0))
        st, h, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "text/plain"},
                        chunks=[big[i:i + 65536] for i in range(0, len(big), 65536)])
        check("oversized chunked body: 413", st == 413, "status %d" % st)
        check("a refusal is JSON that says why", st == 413 and "larger than" in json.loads(b).get("error", ""))
        fields, ct = multipart([("files", "a.log", big)])
        st, h, b = http(srv.port, "POST", "/diagnose", {"Content-Type": ct}, chunks=[fields])
        check("oversized multipart upload to the form: 413 page", st == 413 and b"larger than" in b, "status %d" % st)

        # Slowloris: headers one byte at a time. The server keeps serving
        # others, and drops the slow one after its idle timeout.
        slow = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
        req = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
        closed_after = None
        t0 = time.time()
        served_meanwhile = True
        try:
            for i, byte in enumerate(req):
                slow.sendall(bytes([byte]))
                if i % 3 == 0:
                    st, _, _ = http(srv.port, "GET", "/healthz", timeout=5)
                    served_meanwhile &= st == 200
                time.sleep(0.5 if i < 8 else 7)
                if time.time() - t0 > 25:
                    break
        except (BrokenPipeError, ConnectionResetError):
            closed_after = time.time() - t0
        if closed_after is None:
            try:
                slow.settimeout(15)
                closed_after = time.time() - t0 if slow.recv(100) == b"" else None
            except (ConnectionResetError, BrokenPipeError):
                closed_after = time.time() - t0
            except socket.timeout:
                pass
        slow.close()
        check("slowloris: others served while a client trickles its headers", served_meanwhile)
        check("slowloris: the slow client is dropped (idle timeout)", closed_after is not None and closed_after < 30,
              "closed after %s s" % (None if closed_after is None else round(closed_after, 1)))
        # A body trickled under the idle timeout: dropped at the deadline.
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
        s.sendall(b"POST /api/diagnose HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
        t0 = time.time()
        dropped = None
        try:
            while time.time() - t0 < 20:
                s.sendall(b"y" * 10)
                time.sleep(1)
        except (BrokenPipeError, ConnectionResetError):
            dropped = time.time() - t0
        s.close()
        check("slow body: dropped at the request deadline (4 s)", dropped is not None and dropped < 12,
              "after %s s" % (None if dropped is None else round(dropped, 1)))
        check("server alive after the slow clients", srv.alive() and http(srv.port, "GET", "/healthz")[0] == 200)
    finally:
        srv.stop()

    # --- default limits: content checks and the flood ---------------------
    srv = Server()
    try:
        st, h, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "multipart/form-data"}, b"abc")
        check("multipart without a boundary: 400", st == 400, "status %d" % st)
        st, h, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "multipart/form-data; boundary=zz"},
                        b"--zz\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a\"\r\n\r\nhalf a part")
        check("truncated multipart: 400", st == 400, "status %d" % st)
        st, h, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "multipart/form-data; boundary=zz"},
                        os.urandom(4096))
        check("binary garbage as multipart: 400", st == 400, "status %d" % st)
        st, h, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "image/png"}, job)
        check("another media type: 415", st == 415, "status %d" % st)
        st, h, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "text/plain"}, b"")
        check("empty body: 400", st == 400, "status %d" % st)
        st, h, b = http(srv.port, "GET", "/api/diagnose")
        check("GET on the API: 405", st == 405, "status %d" % st)
        st, h, b = http(srv.port, "GET", "/nope")
        check("unknown path: 404", st == 404, "status %d" % st)
        st, h, b = http(srv.port, "GET", "/", {"Host": "evil.example:%d" % srv.port})
        check("loopback server refuses a foreign Host (DNS rebinding): 400", st == 400, "status %d" % st)
        st, h, b = http(srv.port, "GET", "/")
        csp = h.get("content-security-policy", "")
        check("page: strict CSP, nosniff, no framing", st == 200 and "default-src 'none'" in csp and "script-src 'self'" in csp
              and "unsafe" not in csp and h.get("x-content-type-options") == "nosniff" and "frame-ancestors 'none'" in csp)
        check("page: no external resource", st == 200 and b"http://" not in b.replace(b'http://www.w3.org/2000/svg', b"")
              and b"https://" not in b and b"//" not in b.replace(b"http://www.w3.org/2000/svg", b"").replace(b"://", b""))

        # Invalid UTF-8 inside the lines that matter: answered, replaced.
        bad = job.replace(b"unspecified launch failure", b"unspecified launch failure \xff\xfe launch \xc0\xaf \xed\xa0\x80")
        st, h, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "text/plain"}, bad)
        ok = st == 200
        v = json.loads(b.decode("utf-8")) if ok else {}
        check("invalid UTF-8: 200 and strict JSON", ok and v.get("schema") == 1, "status %d" % st)
        check("invalid UTF-8: bytes shown as U+FFFD, not dropped",
              "\ufffd\ufffd launch \ufffd\ufffd" in (v.get("first") or {}).get("line") or "", (v.get("first") or {}).get("line"))
        fields, ct = multipart([("text", None, bad)])
        st, h, b = http(srv.port, "POST", "/diagnose", {"Content-Type": ct}, fields)
        try:
            page = b.decode("utf-8")
            strict = True
        except UnicodeDecodeError:
            page, strict = "", False
        check("invalid UTF-8 in the page: valid UTF-8 out, U+FFFD shown", st == 200 and strict and "\ufffd\ufffd launch \ufffd\ufffd" in page)

        # A log full of markup: every byte escaped.
        evil = (b"<script>alert(1)</script><img src=x onerror=alert(2)>\n"
                b"[rank3]: Traceback (most recent call last):\n"
                b"[rank3]:   File \"/w/<script>train.py\", line 1, in <module>\n"
                b"[rank3]: RuntimeError: <script>document.title='pwned'</script><svg onload=alert(3)> \" ' &amp;\n")
        fields, ct = multipart([("text", None, evil * 3), ("files", "<script>x</script>.log", evil)])
        st, h, b = http(srv.port, "POST", "/diagnose", {"Content-Type": ct}, fields)
        page = b.decode("utf-8", "replace")
        check("markup log: answered", st == 200, "status %d" % st)
        check("markup log: no <script> but the console's own", page.count("<script") == 1 and '<script src="/console.js"' in page,
              "%d <script" % page.count("<script"))
        check("markup log: no live handler or element from the log", "<img src=x" not in page and "<svg onload" not in page
              and "onerror=alert" not in page.replace("onerror=alert(2)&gt;", ""))
        check("markup log: shown escaped", "&lt;script&gt;document.title=" in page)

        # 50 concurrent 10 MB pastes against 4 slots.
        line_block = job * (10 * (1 << 20) // len(job) + 1)
        paste = line_block[:10 * (1 << 20)]
        statuses = []
        lock = threading.Lock()

        def one():
            st, _, b = http(srv.port, "POST", "/api/diagnose", {"Content-Type": "text/plain"}, paste, timeout=120)
            ok = st == 503 or (st == 200 and json.loads(b).get("schema") == 1)
            with lock:
                statuses.append(st if ok else -st)

        t0 = time.time()
        threads = [threading.Thread(target=one) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        took = time.time() - t0
        peak = srv.rss_peak_kib()
        n200, n503 = statuses.count(200), statuses.count(503)
        detail = "%d answered 200, %d refused 503, others %s; %.1f s; server peak RSS %d MiB" % (
            n200, n503, sorted(set(s for s in statuses if s not in (200, 503))), took, peak // 1024)
        check("flood: every paste answered (200) or refused (503)", len(statuses) == 50 and n200 + n503 == 50, detail)
        check("flood: some diagnosed", n200 >= 4, detail)
        # 4 slots x (10 MB body + reading) and the process itself: well under 50 x 10 MB.
        check("flood: memory bounded (peak RSS < 400 MiB)", 0 < peak < 400 * 1024, "%d MiB" % (peak // 1024))
        st, _, b = http(srv.port, "GET", "/healthz")
        check("flood: server alive and idle afterwards", srv.alive() and st == 200 and json.loads(b)["busy"] == 0)
        log = srv.log()
        check("the log has one line per request and no byte of what was sent",
              "/api/diagnose 200" in log and "unspecified" not in log and "script" not in log and "rank3" not in log)
    finally:
        rc = srv.stop()
    check("server stops cleanly on SIGTERM", rc == 0, "exit %s" % rc)
    print("hostile: %d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
