#!/usr/bin/python3
"""`pythia tb serve` under attack, on loopback: slow-header and slow-body clients, pipelined
requests, half-closed and reset connections, over-long targets, headers and bodies, malformed
requests, and bursts of connections beyond the caps; while a well-behaved client on a kept-alive
connection asks a position every 20 ms and must be answered each time within its latency bound.

The server runs with small limits so that the test is short: a request must arrive whole within
1 s, idle connections close after 4 s, at most 8 connections per client address and 24 in all.
Clients come from several loopback addresses (127.0.0.x) to tell the two caps apart.

usage: test_server_attacks.py PYTHIA_BINARY [TABLES_DIR]

Without a folder holding KRvK (TABLES_DIR, else $PYTHIA_TEST_TABLES) it generates KRvK and KQvK
into a temporary folder."""
import json
import os
import re
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

DEADLINE = 1.0  # --request-timeout
IDLE = 4.0  # --idle-timeout
PER_ADDRESS = 8  # --max-per-address
IN_ALL = 24  # --max-connections
# The well-behaved client's bound: every answer within this many seconds, however the attacks
# go (loose: the machine is shared, and the sanitize build is slow).
LATENCY_BOUND = 0.5

KRK = "/standard?fen=8/8/8/8/8/8/1k6/R6K_w_-_-_0_1"
KQK = "/standard?fen=8/8/8/8/8/2k5/8/K6Q_b_-_-_0_1"

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, flush=True)
    return condition


class Conn:
    """A raw client connection from a chosen loopback address, reading HTTP answers by hand."""

    def __init__(self, port, source="127.0.0.1", timeout=5.0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.bind((source, 0))
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def answer(self, head=False):
        """(status, headers with lower-case names, body) of the next answer."""
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        header, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = header.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = 0 if head else int(headers.get("content-length", "0"))
        while len(self.buf) < length:
            self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, headers, body

    def closed_by_server(self, within=3.0):
        """True if the server closes the connection (EOF or reset) within `within` seconds, with
        no more bytes sent."""
        self.sock.settimeout(within)
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def reset(self):
        """Closes with a reset (RST) instead of a FIN."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def close(self):
        self.sock.close()


def get(target, method="GET", extra=""):
    return ("%s %s HTTP/1.1\r\nHost: t\r\n%s\r\n" % (method, target, extra)).encode()


def check_json_error(status, headers, body, expected_status, what, closes=True):
    check(status == expected_status, "%s: status %d, not %d (%r)" % (what, status, expected_status, body[:200]))
    check(headers.get("content-type") == "application/json", "%s: content type %r" % (what, headers.get("content-type")))
    try:
        j = json.loads(body)
        check(isinstance(j, dict) and list(j) == ["error"] and isinstance(j["error"], str) and j["error"],
              "%s: not {\"error\": \"...\"}: %r" % (what, body))
    except ValueError:
        check(False, "%s: not JSON: %r" % (what, body))
    if closes:
        check(headers.get("connection", "").lower() == "close", "%s: no Connection: close (%r)" % (what, headers))


class WellBehaved(threading.Thread):
    """One kept-alive connection asking KRvK every 20 ms; every latency kept, every failure too."""

    def __init__(self, port, expected):
        super().__init__(daemon=True)
        self.port, self.expected = port, expected
        self.latencies, self.errors = [], []
        self.stop = threading.Event()

    def run(self):
        conn = Conn(self.port, "127.0.0.100")
        while not self.stop.is_set():
            t0 = time.monotonic()
            try:
                conn.send(get(KRK))
                status, _, body = conn.answer()
                if status != 200 or body != self.expected:
                    self.errors.append("status %d" % status)
            except (OSError, EOFError) as e:
                self.errors.append(repr(e))
                conn = Conn(self.port, "127.0.0.100")
            self.latencies.append(time.monotonic() - t0)
            time.sleep(0.02)
        conn.close()


def test_pipelining(port, krk, kqk):
    c = Conn(port)
    c.send(get(KRK) + get("/nothing") + get(KQK, "HEAD") + get(KQK))
    answers = [c.answer(), c.answer(), c.answer(head=True), c.answer()]
    check([a[0] for a in answers] == [200, 404, 200, 200], "pipelined: statuses %r" % [a[0] for a in answers])
    check(answers[0][2] == krk and answers[3][2] == kqk, "pipelined: answers out of order or wrong")
    check(answers[2][1].get("content-length") == str(len(kqk)), "pipelined HEAD: Content-Length of the GET")
    c.send(get(KRK))  # still open after all that
    check(c.answer()[2] == krk, "pipelined: the connection does not serve on")
    c.close()

    # A malformed request among pipelined ones: the ones before it answered, it gets 400 and the
    # connection closes; the one after it is never answered.
    c = Conn(port)
    c.send(get(KRK) + b"NOT HTTP AT ALL\r\n\r\n" + get(KQK))
    status, _, body = c.answer()
    check(status == 200 and body == krk, "pipelined before a malformed request: %d" % status)
    check_json_error(*c.answer(), 400, "malformed pipelined request")
    check(c.closed_by_server(), "malformed request: the connection stays open")
    c.close()


def test_errors_close(port):
    # A target over 512 bytes: route()'s 414 (the connection serves on); over what the server
    # reads at all (8 KB): the same 414 body, and the connection closes.
    c = Conn(port)
    c.send(get("/standard?fen=" + "k" * 600))
    short = c.answer()
    check_json_error(*short, 414, "target of 600 bytes", closes=False)
    c.send(get("/" + "a" * 20000))
    long = c.answer()
    check_json_error(*long, 414, "target of 20 000 bytes")
    check(short[2] == long[2], "two 414 messages: %r and %r" % (short[2], long[2]))
    check(c.closed_by_server(), "414: the connection stays open")
    c.close()

    cases = [
        ("over-long header field", get("/", extra="X-Long: %s\r\n" % ("a" * 9000)), 431),
        ("too many header fields", get("/", extra="X-Field: abcdefghijklmnopqrstuvwxyz\r\n" * 400), 431),
        ("over-long body", b"POST /standard HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n", 413),
        ("malformed request line", b"GET /\x01 HTTP/1.1\r\n\r\n", 400),
        ("not HTTP", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),
        ("bad version", b"GET / HTTP/9.9\r\n\r\n", 400),
    ]
    for what, data, status in cases:
        c = Conn(port)
        c.send(data)
        check_json_error(*c.answer(), status, what)
        check(c.closed_by_server(), what + ": the connection stays open")
        c.close()

    # Header fields sent in small pieces add up to the same limit.
    c = Conn(port)
    c.send(b"GET / HTTP/1.1\r\n")
    try:
        for _ in range(200):
            c.send(b"X-Piece: abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\r\n")
            time.sleep(0.002)
    except OSError:
        pass  # the server answered and closed while we were still sending
    check_json_error(*c.answer(), 431, "header fields in pieces")
    c.close()


def test_slow_clients(port):
    """Slow headers and slow bodies, several at once: each gets 408 once its request has taken
    longer than the deadline since its first byte, and is closed."""
    results = []

    def slow(kind, index):
        c = Conn(port, "127.0.0.2")
        t0 = time.monotonic()
        if kind == "header":
            first, trickle = b"GET " + KRK.encode() + b" HTTP/1.1\r\n", [b"X-Slow-%d: %d\r\n" % (i, i) for i in range(20)]
        else:
            first, trickle = b"POST /standard HTTP/1.1\r\nHost: t\r\nContent-Length: 40\r\n\r\n", [b"x"] * 40
        c.send(first)
        answered_at = None
        for piece in trickle:
            # A byte every 0.2 s, until the server answers.
            if select.select([c.sock], [], [], 0.2)[0]:
                answered_at = time.monotonic()
                break
            try:
                c.send(piece)
            except OSError:
                break
        try:
            answer = c.answer()
        except (OSError, EOFError) as e:
            answer = (0, {}, repr(e).encode())
        results.append((kind, index, (answered_at or time.monotonic()) - t0, answer, c.closed_by_server()))
        c.close()

    threads = [threading.Thread(target=slow, args=(kind, i)) for kind in ("header", "body") for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for kind, index, seconds, answer, closed in results:
        what = "slow %s client %d" % (kind, index)
        check_json_error(*answer, 408, what)
        check(DEADLINE - 0.05 <= seconds <= DEADLINE + 1.0, "%s: 408 after %.2f s, deadline %.1f s" % (what, seconds,
                                                                                                     DEADLINE))
        check(closed, what + ": not closed after its 408")


def test_half_closed_and_reset(port, krk):
    # A whole request, then the client's side closed: answered, then closed.
    c = Conn(port)
    c.send(get(KRK))
    c.sock.shutdown(socket.SHUT_WR)
    status, _, body = c.answer()
    check(status == 200 and body == krk, "half-closed after a whole request: %d" % status)
    check(c.closed_by_server(), "half-closed: the connection stays open")
    c.close()
    # Half a request, then closed: 400 at once, not at the deadline.
    c = Conn(port)
    t0 = time.monotonic()
    c.send(b"GET /standard HTTP/1.1\r\nHost:")
    c.sock.shutdown(socket.SHUT_WR)
    check_json_error(*c.answer(), 400, "half a request, half-closed")
    check(time.monotonic() - t0 < DEADLINE / 2, "half a request, half-closed: answered only at the deadline")
    c.close()
    # Connections reset mid-request, many more than the per-address cap: each gives its place
    # back, so the address is served as before.
    for _ in range(5):
        conns = [Conn(port, "127.0.0.3") for _ in range(PER_ADDRESS)]
        for c in conns:
            c.send(b"GET /standard?fen=8/8")
        for c in conns:
            c.reset()
    time.sleep(0.2)
    conns = [Conn(port, "127.0.0.3") for _ in range(PER_ADDRESS)]
    for i, c in enumerate(conns):
        c.send(get(KRK))
        status = c.answer()[0]
        check(status == 200, "after resets, connection %d of %d from one address: %d" % (i + 1, PER_ADDRESS, status))
    for c in conns:
        c.close()


def test_idle(port, results):
    c = Conn(port, "127.0.0.9")
    t0 = time.monotonic()
    closed = c.closed_by_server(within=IDLE + 2)
    results.append((closed, time.monotonic() - t0))
    c.close()


def test_caps(port, krk):
    def served(c):
        c.send(get(KRK))
        status, _, body = c.answer()
        return status == 200 and body == krk

    # Per address: PER_ADDRESS served; one more gets 503 at once, without having sent anything.
    held = [Conn(port, "127.0.0.4") for _ in range(PER_ADDRESS)]
    check(all(served(c) for c in held), "the first %d connections of an address are not all served" % PER_ADDRESS)
    extra = Conn(port, "127.0.0.4")
    t0 = time.monotonic()
    answer = extra.answer()
    check_json_error(*answer, 503, "one connection beyond the per-address cap")
    check(b"your address" in answer[2], "per-address 503 does not say so: %r" % answer[2])
    check(time.monotonic() - t0 < 0.5, "503 not at once")
    check(extra.closed_by_server(), "503: the connection stays open")
    extra.close()
    other = Conn(port, "127.0.0.5")  # another address is served meanwhile
    check(served(other), "another address is refused while one is at its cap")
    held.append(other)

    # In all: fill up to IN_ALL (the well-behaved client holds one), then a burst of new ones
    # from fresh addresses: every one gets 503, promptly.
    source = 10
    while len(held) + 1 < IN_ALL:
        c = Conn(port, "127.0.0.%d" % (source + len(held) // PER_ADDRESS))
        check(served(c), "connection %d of %d in all not served" % (len(held) + 2, IN_ALL))
        held.append(c)
    burst = [Conn(port, "127.0.1.%d" % (i + 1)) for i in range(40)]
    for c in burst:
        try:
            c.send(get(KRK))
        except OSError:
            pass  # answered and closed already
    for i, c in enumerate(burst):
        try:
            status, headers, body = c.answer()
        except (OSError, EOFError) as e:
            status, headers, body = 0, {}, repr(e).encode()
        check_json_error(status, headers, body, 503, "burst connection %d beyond the cap in all" % (i + 1))
        c.close()
    # The held ones still serve, and once they are gone new ones are served again.
    check(all(served(c) for c in held[:3]), "held connections stopped serving during the burst")
    for c in held:
        c.close()
    time.sleep(0.2)
    again = [Conn(port, "127.0.0.4") for _ in range(PER_ADDRESS)]
    check(all(served(c) for c in again), "places not given back after the connections closed")
    for c in again:
        c.close()


def start_server(pythia, tables):
    server = subprocess.Popen(
        [pythia, "tb", "serve", "--dir", tables, "--bind", "127.0.0.1:0", "--threads", "2", "--request-timeout",
         str(int(DEADLINE)), "--idle-timeout", str(int(IDLE)), "--max-per-address", str(PER_ADDRESS),
         "--max-connections", str(IN_ALL)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    port = None
    lines = []
    for line in server.stderr:
        lines.append(line)
        m = re.search(r"the explorer at http://127\.0\.0\.1:(\d+)/", line)
        if m:
            port = int(m.group(1))
            break
    if port is None:
        print("".join(lines))
        server.kill()
        sys.exit("FAIL: the server did not start")
    threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()  # keep the pipe drained
    return server, port


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pythia = sys.argv[1]
    tables = sys.argv[2] if len(sys.argv) > 2 else ""
    if not (tables and os.path.exists(os.path.join(tables, "KRvK.pytw"))):
        tables = os.environ.get("PYTHIA_TEST_TABLES", tables)
    if not (tables and os.path.exists(os.path.join(tables, "KRvK.pytw")) and
            os.path.exists(os.path.join(tables, "KQvK.pytd"))):
        tables = os.path.join(tempfile.mkdtemp(prefix="pythia-attacks-"), "tables")
        subprocess.run([pythia, "tb", "generate", "KQvK", "KRvK", "--dir", tables], check=True,
                       stderr=subprocess.DEVNULL, timeout=300)

    started = time.monotonic()
    server, port = start_server(pythia, tables)
    try:
        c = Conn(port)
        c.send(get(KRK))
        krk = c.answer()[2]
        c.send(get(KQK))
        kqk = c.answer()[2]
        c.close()
        check(json.loads(krk)["category"] == "win" and json.loads(kqk)["category"] == "loss",
              "the answers to compare with are not the tables'")

        watcher = WellBehaved(port, krk)
        watcher.start()
        idle = []
        idle_thread = threading.Thread(target=test_idle, args=(port, idle))
        idle_thread.start()
        for name, test in [("pipelining", lambda: test_pipelining(port, krk, kqk)),
                           ("errors close", lambda: test_errors_close(port)),
                           ("slow clients", lambda: test_slow_clients(port)),
                           ("half-closed and reset", lambda: test_half_closed_and_reset(port, krk)),
                           ("idle (waited for)", idle_thread.join),
                           ("caps", lambda: test_caps(port, krk))]:
            t0 = time.monotonic()
            try:
                test()
            except (OSError, EOFError) as e:
                check(False, "%s: %r" % (name, e))
            print("%s: %.1f s" % (name, time.monotonic() - t0), flush=True)
        watcher.stop.set()
        watcher.join()

        check(idle and idle[0][0], "an idle connection is not closed within %.0f s" % (IDLE + 2))
        if idle and idle[0][0]:
            check(idle[0][1] >= IDLE - 0.1, "an idle connection closed after %.1f s, before %.0f s" % (idle[0][1],
                                                                                                    IDLE))
        lat = sorted(watcher.latencies)
        check(len(lat) > 50, "the well-behaved client made only %d requests" % len(lat))
        check(not watcher.errors, "the well-behaved client failed %d times: %r" % (len(watcher.errors),
                                                                                   watcher.errors[:5]))
        if lat:
            print("well-behaved client: %d requests, median %.1f ms, max %.1f ms" %
                  (len(lat), 1000 * lat[len(lat) // 2], 1000 * lat[-1]))
            check(lat[-1] <= LATENCY_BOUND, "the well-behaved client waited %.0f ms, more than %.0f ms" %
                  (1000 * lat[-1], 1000 * LATENCY_BOUND))
        check(server.poll() is None, "the server died (exit status %r)" % server.poll())
    finally:
        server.terminate()
        try:
            # 0: stopped cleanly (in the sanitize build: no leak or error reported either).
            check(server.wait(timeout=10) == 0, "the server's exit status is %r" % server.returncode)
        except subprocess.TimeoutExpired:
            server.kill()
            check(False, "the server did not stop on SIGTERM")
    print("%d failures in %.1f s" % (len(failures), time.monotonic() - started))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
