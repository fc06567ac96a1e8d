"""bench killsoak: kill -9 under real clients (docs/RELIABILITY.md).

    bin/smartssd bench killsoak [--kills 100] [--records 20000] [--seed 1] [--gap 0.5,4]

A csdd daemon serves one image while, at the same time,
  * a Hadoop job (the DeviceJob weblog-q1, LocalJobRunner) reads its input through the daemon and
    writes its output to smartssd://d0/out/q1-N through it,
  * a Spark job (the smartssd DataSource, weblog q1 in spark-device form) reads through it,
  * a writer overwrites a ring of 4096 4 KiB slots in turn with self-describing records for the whole
    soak and remembers every acknowledged write,
and the daemon is SIGKILLed at random points (a gap drawn uniformly from --gap seconds, default 1 to 20: some kills land inside a job, some jobs
finish between kills) and restarted,
--kills times. After every kill, with the daemon down: `csd check` must call the image clean, and every
slot must hold its last acknowledged write (or the one in flight), and every committed Hadoop output must be there. A job that fails
must fail with a clear error (the daemon is named) and is run again; at the end, with no more kills,
both jobs run once more and every answer, of every successful run during the kills too, must equal the
run made before the first kill. Writes out/bench/killsoak/: results.csv (one row per kill),
summary.json, and prints the tally. `--kills 3` is the test suite's short version (KillNineIT).
"""
import argparse
import csv
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLEAR = ("device daemon", "cannot connect", "lost the connection", "smartssd", "UNAVAILABLE")


# ------------------------------------------------------------------ the wire format, by hand
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def fld(num, wire, v):
    return varint(num << 3 | wire) + (varint(v) if wire == 0 else varint(len(v)) + v)


def parse(b):
    """{field: [values]}; length-delimited values as bytes."""
    out, p = {}, 0
    while p < len(b):
        key, p = _uv(b, p)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, p = _uv(b, p)
        elif wire == 2:
            n, p = _uv(b, p)
            v, p = b[p:p + n], p + n
        elif wire == 1:
            v, p = b[p:p + 8], p + 8
        elif wire == 5:
            v, p = b[p:p + 4], p + 4
        else:
            raise ValueError("bad wire type")
        out.setdefault(num, []).append(v)
    return out


def _uv(b, p):
    v = s = 0
    while True:
        x = b[p]
        p += 1
        v |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return v, p


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(30)
        self.s.connect(path)

    def call(self, req):
        self.s.sendall(struct.pack("<I", len(req)) + req)
        hdr = self._read(4)
        return parse(self._read(struct.unpack("<I", hdr)[0]))

    def _read(self, n):
        b = bytearray()
        while len(b) < n:
            k = self.s.recv(n - len(b))
            if not k:
                raise ConnectionError("the daemon closed the connection")
            b += k
        return bytes(b)

    def close(self):
        self.s.close()


RING = 4096   # the writer's object: 4096 slots of 4 KiB (16 MiB), overwritten in turn for the whole soak


def record(n):
    """The writer's n-th 4 KiB write (to slot n % RING): deterministic, so a slot's bytes name their write."""
    return (("%012d " % n) * 400).encode()[:4096]


def ring_lost(data, acked):
    """Bytes of slots that do not hold their last confirmed write. Writes 0..acked-1 were confirmed;
    write number `acked` may have been in flight at the kill, so its slot may hold it instead."""
    lost = 0
    for s in range(min(acked, RING)):
        last = acked - 1 - ((acked - 1 - s) % RING)
        got = data[s * 4096:(s + 1) * 4096]
        if got != record(last) and not (acked % RING == s and got == record(acked)):
            lost += 4096
    return lost


# ------------------------------------------------------------------ the pieces
class Daemon:
    def __init__(self, csdd, img, sock, log):
        self.csdd, self.img, self.sock, self.log = csdd, img, sock, log
        self.p = None

    def start(self):
        self.p = subprocess.Popen([self.csdd, self.img, "--socket", self.sock], stdout=open(self.log, "a"),
                                  stderr=subprocess.STDOUT)
        for _ in range(3000):
            try:
                Conn(self.sock).close()
                return
            except OSError:
                if self.p.poll() is not None:
                    sys.exit(f"csdd exited with {self.p.returncode}; see {self.log}")
                time.sleep(0.01)
        sys.exit("csdd did not come up")

    def kill9(self):
        self.p.send_signal(signal.SIGKILL)
        self.p.wait()

    def stop(self):
        self.p.terminate()
        self.p.wait(60)


class Writer(threading.Thread):
    """Writes 4 KiB records round a ring of RING slots for as long as the soak runs, so every kill
    lands among writes; `acked` counts the writes the daemon confirmed (write n goes to slot n % RING).
    A write cut by a kill is sent again after the restart: the same bytes to the same slot."""

    def __init__(self, sock, stop):
        super().__init__(daemon=True)
        self.sock, self.stop_ev = sock, stop
        self.acked = 0
        self.failures = []
        self.oid = None
        self.error = None
        self.mu = threading.Lock()

    def run(self):
        c = None
        while not self.stop_ev.is_set():
            try:
                if c is None:
                    c = Conn(self.sock)
                    r = c.call(fld(16, 2, fld(2, 2, b"acked/log")))   # stat by name
                    if r.get(2, [0])[0] == 2:                          # NOT_FOUND: create it
                        r = c.call(fld(10, 2, fld(1, 0, 1) + fld(2, 2, b"acked/log")))
                        if r.get(2, [0])[0] not in (0, 3):
                            raise RuntimeError(r.get(3, [b""])[0].decode())
                        c.close()
                        c = None   # and look it up again
                        continue
                    self.oid = parse(parse(r[16][0])[1][0])[1][0]
                n = self.acked
                r = c.call(fld(13, 2, fld(1, 0, self.oid) + fld(2, 0, (n % RING) * 4096) + fld(3, 2, record(n))))
                if r.get(2, [0])[0]:
                    raise RuntimeError(r.get(3, [b""])[0].decode())
                with self.mu:
                    self.acked = n + 1
                time.sleep(0.01)
            except (OSError, ConnectionError) as e:
                self.failures.append(str(e))
                if c:
                    c.close()
                c = None
                time.sleep(0.05)
            except Exception as e:   # noqa: BLE001 - anything else is a finding, reported at the end
                self.error = repr(e)
                return


def run_cmd(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


class Jobs(threading.Thread):
    """Runs one kind of job over and over until told to stop; keeps answers and failures."""

    def __init__(self, kind, fn, stop):
        super().__init__(daemon=True)
        self.kind, self.fn, self.stop_ev = kind, fn, stop
        self.ok, self.failed, self.unclear, self.answers, self.examples = 0, 0, [], [], []
        self.n = 0

    def run(self):
        while not self.stop_ev.is_set():
            self.n += 1
            rc, answer, err = self.fn(self.n)
            if rc == 0:
                self.ok += 1
                self.answers.append(answer)
            else:
                self.failed += 1
                tail = err.strip().splitlines()[-12:]
                clear = [line for line in tail if any(k in line for k in CLEAR)]
                if clear and len(self.examples) < 3:
                    self.examples.append(clear[-1].strip()[:300])
                if not any(k in line for line in tail for k in CLEAR):
                    self.unclear.append("\n".join(tail))


def main(b):
    ap = argparse.ArgumentParser(prog="bin/smartssd bench killsoak")
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gap", default="1,20", help="seconds between kills: MIN,MAX (uniform)")
    a = ap.parse_args(b.args)
    gmin, gmax = map(float, a.gap.split(","))
    rng = random.Random(a.seed)
    smart = os.path.join(ROOT, "bin", "smartssd")
    csd, csdd = b.tool("csd"), b.tool("csdd")
    work = os.path.join(b.out, "work")
    os.makedirs(work, exist_ok=True)
    img, sock, log = os.path.join(work, "dev.img"), os.path.join(work, "d0.sock"), os.path.join(work, "csdd.log")
    for f in (img, log):
        if os.path.exists(f):
            os.remove(f)
    raw = os.path.join(work, "wc98.bin")
    b.run(smart, "weblog", "gen", "--output", raw, "--records", a.records, "--entry-bytes", 128)
    b.run(csd, "format", img, "--capacity", "256M", "--preset", "tiny")
    b.run(csd, "put", img, "wc98", raw)
    conf = f"fs.smartssd.device.d0.socket={sock}"

    def hadoop(n):
        out = f"smartssd://d0/out/q1-{n}"
        rc, _, err = run_cmd([smart, "hadoop", "weblog-q1", "-D", conf, "-D", "mapreduce.job.maps=2",
                              "smartssd://d0/wc98", out, "128"])
        if rc:
            return rc, None, err
        rc, cat, err2 = run_cmd([smart, "hadoop", "fs", "-D", conf, "-cat", out + "/part-r-*"])
        return rc, (out, "".join(sorted(cat.splitlines(keepends=True)))), err + err2

    def spark(n):
        rc, out, err = run_cmd([smart, "weblog", "--input", "smartssd://d0/wc98", "--conf", conf, "--entry-bytes",
                                "128", "--query", "q1", "--version", "spark-device", "--json"])
        if rc:
            return rc, None, err
        return 0, json.loads(out).get("answer", out), err

    d = Daemon(csdd, img, sock, log)
    d.start()
    # the run without kills: the reference answers
    rc, base_h, err = hadoop(0)
    if rc:
        sys.exit(f"the Hadoop job failed without kills:\n{err}")
    rc, base_s, err = spark(0)
    if rc:
        sys.exit(f"the Spark job failed without kills:\n{err}")
    base_h = base_h[1]

    stop = threading.Event()
    w, hj, sj = Writer(sock, stop), Jobs("hadoop", hadoop, stop), Jobs("spark", spark, stop)
    for t in (w, hj, sj):
        t.start()
    rows, problems = [], []
    t0 = time.time()
    for k in range(1, a.kills + 1):
        time.sleep(rng.uniform(gmin, gmax))
        d.kill9()
        with w.mu:
            acked = w.acked
        chk = subprocess.run([csd, "check", img], capture_output=True, text=True)
        clean = chk.returncode == 0 and "clean (0 problems)" in chk.stdout
        if not clean:
            problems.append(f"kill {k}: csd check: {chk.stdout[-400:]}")
        # every acknowledged byte is on the image (read with the daemon down)
        got = os.path.join(work, "acked.bin")
        lost = 0
        if acked:
            rc = subprocess.run([csd, "get", img, "acked/log", got], capture_output=True, text=True)
            data = open(got, "rb").read() if rc.returncode == 0 else b""
            lost = ring_lost(data, acked)
            if lost:
                problems.append(f"kill {k}: {lost} acknowledged bytes of acked/log are not on the image")
        rows.append({"kill": k, "t_s": round(time.time() - t0, 1), "check_clean": clean,
                     "acked_writes": acked,
                     "acked_lost_bytes": lost, "hadoop_ok": hj.ok, "hadoop_failed": hj.failed, "spark_ok": sj.ok,
                     "spark_failed": sj.failed})
        d.start()
        print(f"kill {k}/{a.kills}: check {'clean' if clean else 'NOT CLEAN'}, {acked} writes acknowledged, "
              f"hadoop {hj.ok} ok / {hj.failed} failed, spark {sj.ok} ok / {sj.failed} failed", flush=True)
    stop.set()
    for t in (w, hj, sj):
        t.join()
    # no more kills: once more each, and every committed output must still be there
    rc, fin_h, err = hadoop(10 ** 6)
    if rc:
        problems.append(f"the final Hadoop run failed: {err[-400:]}")
    rc, fin_s, err = spark(10 ** 6)
    if rc:
        problems.append(f"the final Spark run failed: {err[-400:]}")
    if fin_h and fin_h[1] != base_h:
        problems.append("the final Hadoop answer differs from the run without kills")
    if fin_s is not None and fin_s != base_s:
        problems.append("the final Spark answer differs from the run without kills")
    wrong_h = [o for o, ans in hj.answers if ans != base_h]
    wrong_s = sum(1 for ans in sj.answers if ans != base_s)
    if wrong_h:
        problems.append(f"{len(wrong_h)} Hadoop runs during the kills gave another answer: {wrong_h[:3]}")
    if wrong_s:
        problems.append(f"{wrong_s} Spark runs during the kills gave another answer")
    for o, _ in hj.answers:   # committed outputs are acknowledged writes: still there, still right
        rc, cat, _ = run_cmd([smart, "hadoop", "fs", "-D", conf, "-cat", o + "/part-r-*"])
        if rc or "".join(sorted(cat.splitlines(keepends=True))) != base_h:
            problems.append(f"committed output {o} is gone or changed")
    if w.error:
        problems.append(f"the writer stopped: {w.error}")
    unclear = hj.unclear + sj.unclear
    if unclear:
        problems.append(f"{len(unclear)} failures without a clear error, e.g.:\n{unclear[0]}")
    d.stop()
    chk = subprocess.run([csd, "check", img], capture_output=True, text=True)
    if chk.returncode:
        problems.append("csd check after the last stop: " + chk.stdout[-400:])

    b.write_csv(rows)
    b.headline("kills (SIGKILL and restart)", len(rows), "kills")
    b.headline("csd check clean after each kill", sum(r["check_clean"] for r in rows), "kills")
    b.headline("acknowledged bytes lost", sum(r["acked_lost_bytes"] for r in rows), "bytes")
    b.headline("writer: 4 KiB writes acknowledged", w.acked, "writes")
    prev = [0] + [r["acked_writes"] for r in rows[:-1]]
    b.headline("kills with acknowledged writes since the previous one",
               sum(1 for r, p in zip(rows, prev) if r["acked_writes"] > p), "kills")
    b.headline("Hadoop runs ok / failed (retried)", f"{hj.ok} / {hj.failed}", "runs")
    b.headline("Spark runs ok / failed (retried)", f"{sj.ok} / {sj.failed}", "runs")
    b.headline("answers differing from the run without kills", len(wrong_h) + wrong_s, "runs")
    b.headline("failures without a clear error", len(unclear), "runs")
    b.finish(rows[-5:], list(rows[0].keys()) if rows else ["kill"])
    for j in (hj, sj):
        for e in j.examples:
            print(f"{j.kind} failure, as the job reported it: {e}")
    with open(os.path.join(b.out, "failures.txt"), "w") as f:
        f.write("\n".join(f"{j.kind}: {e}" for j in (hj, sj) for e in j.examples) + "\n")
    if problems:
        print("\nPROBLEMS:\n" + "\n".join(problems))
        sys.exit(1)
    print("\nkillsoak: every kill clean, nothing acknowledged lost, every answer equal to the run without kills")
