"""The device as a network block device (csd nbd: nbdkit with the smartssd plugin), driven by unchanged
standard tools: fio's nbd engine with crc32c verification over a small namespace (so garbage collection
runs) on ftl = page and dftl and across a kill -9 of the csdd daemon and its restart; nbdcopy and
qemu-img copies that come back byte for byte; bad NBD requests (past the end, unaligned, a fast zero
that would write, a client that hangs up mid-request) answered with NBD errors while the device keeps
serving; the device counting fio's requests; paced mode making fio's latency follow the device's.
Run by ctest (cli_py) with CSD_BIN set; needs nbdkit, fio, libnbd-bin, qemu-utils, python3-libnbd
(bin/smartssd deps installs them)."""
import csv
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CSD = os.path.abspath(os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd")))
CSDD = os.path.join(os.path.dirname(CSD), "csdd")
PLUGIN = os.path.join(os.path.dirname(CSD), "nbdkit-smartssd-plugin.so")
# Under the sanitizers the daemon is several times slower: a quarter of the I/O still runs GC.
SCALE = 4 if os.environ.get("CSD_SANITIZE") == "ON" else 1

missing = [t for t in ("nbdkit", "fio", "nbdcopy", "nbdinfo", "qemu-img") if not shutil.which(t)]
pytestmark = pytest.mark.skipif(bool(missing) or not os.path.exists(PLUGIN),
                                reason=f"needs {missing or 'the NBD plugin (nbdkit-plugin-dev at build time)'}")


def csd(*args, ok=True, **kw):
    p = subprocess.run([CSD, *map(str, args)], capture_output=True, text=True, **kw)
    if ok and p.returncode != 0:
        raise AssertionError(f"csd {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr[-3000:]}")
    return p


def stats(target):
    return json.loads(csd("stats", target, "--json").stdout)


def check_clean(img):
    p = csd("check", img)
    assert "clean (0 problems)" in p.stdout, p.stdout


class Daemon:
    """csdd on an image; stopped (SIGTERM) or killed (SIGKILL) by its own pid."""

    def __init__(self, img, sock, *sets):
        self.sock = str(sock)
        args = [CSDD, str(img), "--socket", self.sock]
        for s in sets:
            args += ["--set", s]
        self.p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(500):
            if os.path.exists(self.sock):
                try:
                    socket.socket(socket.AF_UNIX).connect(self.sock)
                    return
                except OSError:
                    pass
            if self.p.poll() is not None:
                raise AssertionError(f"csdd exited: {self.p.stderr.read()}")
            time.sleep(0.02)
        raise AssertionError("csdd did not start")

    def kill9(self):
        self.p.send_signal(signal.SIGKILL)
        self.p.wait(timeout=30)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            assert self.p.wait(timeout=60) == 0, self.p.stderr.read()


def fio_verify_cmd(out_json, io_size, extra=""):
    # random writes of 4k..256k over the whole export, iodepth 32, then every block read back and checked;
    # io_size counts both phases
    return (f'fio --name=verify --ioengine=nbd --uri="$uri" --rw=randwrite --bsrange=4k-256k --iodepth=32 '
            f'--io_size={io_size} --verify=crc32c --verify_fatal=1 --output-format=json --output={out_json} {extra}')


def fio_job(path):
    with open(path) as f:
        j = json.load(f)["jobs"][0]
    return j


def fio_verified(job, min_bytes):
    assert job["error"] == 0, job
    w, r = job["write"]["io_bytes"], job["read"]["io_bytes"]
    # the verify phase read back everything the write phase wrote
    assert r == w, (w, r)
    assert w + r >= min_bytes, (w, r)
    return w


def fmt(tmp_path, preset="tiny", cap="32M", *sets):
    img = tmp_path / "nbd.img"
    csd("format", img, "--capacity", cap, "--preset", preset, *[a for s in sets for a in ("--set", s)])
    return img


@pytest.mark.parametrize("ftl", ["page", "dftl"])
def test_fio_verify_through_the_daemon_with_gc(tmp_path, ftl):
    """Gigabytes of verified random writes over a 32 MiB namespace, through csdd: every byte read
    back; the device counted fio's requests one for one and collected garbage."""
    img = fmt(tmp_path, "tiny", "32M", f"ftl={ftl}")
    d = Daemon(img, tmp_path / "d.sock")
    try:
        out = tmp_path / "fio.json"
        # --refill-us 0: the device need not wait for fio to refill its queue (faster in wall time)
        csd("nbd", "--socket", d.sock, "--refill-us", "0", "--run", fio_verify_cmd(out, f"{3072 // SCALE}M"),
            cwd=tmp_path)
        job = fio_job(out)
        fio_verified(job, (3 << 30) // SCALE * 9 // 10)
        s = stats(d.sock)
        assert s["block.writes"] == job["write"]["total_ios"], s
        assert s["block.reads"] == job["read"]["total_ios"], s
        assert s["block.failed"] == 0 and s["block.outstanding"] == 0, s
        assert s["ftl.gc_runs"] > 0, s
    finally:
        d.stop()
    check_clean(img)


def test_fio_verify_across_kill_9_and_restart(tmp_path):
    """csdd killed with SIGKILL in the middle of fio's run (it writes the export and verifies it, pass after
    pass) and started again on the same image: the plugin's requests wait for it, are sent again, and
    fio's verify then reads back every block of the pass the kill cut, the writes acknowledged before
    it included."""
    img = fmt(tmp_path)
    sock = tmp_path / "d.sock"
    d = Daemon(img, sock)
    out, lat = tmp_path / "fio.json", tmp_path / "lat.csv"
    fio = subprocess.Popen([CSD, "nbd", "--socket", str(sock), "--latency-csv", str(lat), "--refill-us", "0", "--run",
                            fio_verify_cmd(out, f"{2048 // SCALE}M")], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        # kill it once the device has taken a couple of thousand of fio's writes
        for _ in range(3000):
            if stats(sock)["block.writes"] >= 2000 // SCALE:
                break
            assert fio.poll() is None, fio.communicate()
            time.sleep(0.02)
        d.kill9()
        time.sleep(0.3)
        d = Daemon(img, sock)
        o, e = fio.communicate(timeout=600)
        assert fio.returncode == 0, (o[-2000:], e[-3000:])
        job = fio_job(out)
        fio_verified(job, (2 << 30) // SCALE * 9 // 10)
        # the run went on after the restart: the new daemon served writes and verify reads (fio verifies
        # each pass over the export after writing it, so the pass cut by the kill was read back whole)
        s = stats(d.sock)
        assert 0 < s["block.writes"] < job["write"]["total_ios"], s
        assert 0 < s["block.reads"] <= job["read"]["total_ios"], s
    finally:
        if fio.poll() is None:
            fio.kill()
            fio.wait()
        d.stop()
    check_clean(img)


def test_copies_come_back_byte_for_byte(tmp_path):
    """nbdcopy into the export and back, and qemu-img convert, on an image: identical bytes, the rest
    of the export zeros, `csd check` clean."""
    img = fmt(tmp_path, "tiny", "16M")
    data = os.urandom(5 << 20)
    (tmp_path / "src.raw").write_bytes(data)
    csd("nbd", img, "--run", 'nbdcopy src.raw "$uri" && nbdcopy "$uri" back.raw && '
        'qemu-img convert -f raw -O raw "$uri" q.raw', cwd=tmp_path)
    for f in ("back.raw", "q.raw"):
        got = (tmp_path / f).read_bytes()
        assert got[:len(data)] == data, f
        assert got[len(data):] == bytes(len(got) - len(data)), f
    check_clean(img)
    # a file whose size is not a multiple of the page: the blocksize filter reads, modifies, writes
    odd = os.urandom((3 << 20) + 123)
    (tmp_path / "odd.raw").write_bytes(odd)
    csd("nbd", img, "--unaligned", "--run", 'nbdcopy odd.raw "$uri" && nbdcopy "$uri" odd-back.raw', cwd=tmp_path)
    back = (tmp_path / "odd-back.raw").read_bytes()
    assert back[:len(odd)] == odd
    assert back[len(odd):5 << 20] == data[len(odd):], "the rest of the first copy was kept"
    check_clean(img)


class RawClient:
    """An NBD client by hand (fixed newstyle, NBD_OPT_EXPORT_NAME, simple replies), so requests a
    careful library would refuse to send reach the server as they are."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        hello = self.recv(18)
        assert hello[:16] == b"NBDMAGICIHAVEOPT", hello
        self.s.sendall(struct.pack(">I", 3))                        # fixed newstyle, no zeroes
        self.s.sendall(b"IHAVEOPT" + struct.pack(">II", 1, 0))       # NBD_OPT_EXPORT_NAME ""
        self.size, self.flags = struct.unpack(">QH", self.recv(10))
        self.handle = 0

    def recv(self, n):
        b = self.s.recv(n, socket.MSG_WAITALL)
        assert len(b) == n, (len(b), n)
        return b

    def send(self, typ, off, length, payload=b"", flags=0):
        self.handle += 1
        self.s.sendall(struct.pack(">IHHQQI", 0x25609513, flags, typ, self.handle, off, length) + payload)
        return self.handle

    def reply(self, handle, read=0):
        magic, err, h = struct.unpack(">IIQ", self.recv(16))
        assert (magic, h) == (0x67446698, handle), (hex(magic), h, handle)
        return err, (self.recv(read) if read and not err else b"")

    def call(self, typ, off, length, payload=b"", flags=0):
        return self.reply(self.send(typ, off, length, payload, flags), length if typ == READ else 0)

    def close(self):
        self.s.close()


READ, WRITE, FLUSH, TRIM, WRITE_ZEROES = 0, 1, 3, 4, 6
NO_HOLE, FAST_ZERO = 1 << 1, 1 << 4


def test_bad_requests_get_nbd_errors_and_the_device_keeps_serving(tmp_path):
    import errno
    img = fmt(tmp_path, "tiny", "8M")
    d = Daemon(img, tmp_path / "d.sock")
    ns = str(tmp_path / "nbd.sock")
    srv = subprocess.Popen([CSD, "nbd", "--socket", d.sock, "--unix", ns], stderr=subprocess.PIPE, text=True)
    c = None
    try:
        for _ in range(500):
            if os.path.exists(ns):
                break
            time.sleep(0.02)
        info = json.loads(subprocess.run(["nbdinfo", "--json", f"nbd+unix:///?socket={ns}"], capture_output=True,
                                         text=True, check=True).stdout)["exports"][0]
        assert (info["block_size_minimum"], info["block_size_maximum"]) == (4096, 4 << 20), info
        c = RawClient(ns)
        size = c.size
        assert size == 8 << 20
        good = os.urandom(8192)
        assert c.call(WRITE, 8192, 8192, good) == (0, b"")
        assert c.call(READ, size, 4096)[0] == errno.EINVAL                         # past the end
        assert c.call(READ, size - 4096, 8192)[0] == errno.EINVAL
        assert c.call(READ, 1 << 60, 4096)[0] == errno.EINVAL
        assert c.call(WRITE, size - 4096, 8192, bytes(8192))[0] == errno.ENOSPC
        assert c.call(TRIM, size - 4096, 8192)[0] == errno.EINVAL                  # nbdkit's own check
        assert c.call(READ, 0, 100)[0] == errno.EINVAL                            # unaligned size
        assert c.call(READ, 512, 4096)[0] == errno.EINVAL                         # unaligned offset
        assert c.call(WRITE, 2048, 4096, bytes(4096))[0] == errno.EINVAL
        assert c.call(WRITE, 0, 6000, bytes(6000))[0] == errno.EINVAL
        assert c.call(TRIM, 4096, 100)[0] == errno.EINVAL
        assert c.call(READ, 0, 8 << 20)[0] == errno.EINVAL                         # over the maximum
        assert c.call(WRITE_ZEROES, 4096, 4096, flags=FAST_ZERO | NO_HOLE)[0] == errno.ENOTSUP
        # nothing of a refused request was stored; the same connection still serves
        assert c.call(READ, 8192, 8192) == (0, good)
        assert c.call(WRITE_ZEROES, 8192, 4096, flags=NO_HOLE) == (0, b"")        # zeros stored
        assert c.call(WRITE_ZEROES, 12288, 4096) == (0, b"")                      # a trim
        assert c.call(FLUSH, 0, 0) == (0, b"")
        assert c.call(READ, 8192, 8192) == (0, bytes(8192))
        c.call(WRITE, 8192, 8192, good)
        # a client that hangs up in the middle of a write's payload, and one with reads in flight
        c2 = RawClient(ns)
        c2.s.sendall(struct.pack(">IHHQQI", 0x25609513, 0, WRITE, 1, 0, 65536) + b"x" * 1000)
        c2.close()
        c3 = RawClient(ns)
        for k in range(64):
            c3.send(READ, (k * 4096) % size, 4096)
        c3.close()
        assert c.call(READ, 8192, 8192) == (0, good)
        assert c.call(READ, 0, 4096) == (0, bytes(4096)), "the cut write stored nothing"
        s = stats(d.sock)
        assert s["block.failed"] == 0 and s["block.flushes"] == 1, s
    finally:
        if c:
            c.close()   # nbdkit stops once its clients have left
        srv.send_signal(signal.SIGTERM)
        try:
            srv.wait(timeout=30)
        finally:
            if srv.poll() is None:
                srv.kill()
                srv.wait()
            d.stop()
    check_clean(img)


def test_paced_fio_latency_follows_the_device_clock(tmp_path):
    """drs preset (a 4 KiB write costs 717.8 us of device time): paced, fio's own completion latency is
    at least the device's; the latency CSV holds one line per fio request with its virtual times."""
    img = fmt(tmp_path, "drs", "64M", "ftl=page")   # no map traffic: every write the same
    lat, out = tmp_path / "lat.csv", tmp_path / "fio.json"
    n = 200
    csd("nbd", img, "--set", "paced=1", "--latency-csv", lat, "--run",
        f'fio --name=w --ioengine=nbd --uri="$uri" --rw=randwrite --bs=4k --iodepth=1 --number_ios={n} '
        f'--output-format=json --output={out}', cwd=tmp_path)
    job = fio_job(out)
    with open(lat) as f:
        rows = [r for r in csv.DictReader(f) if r["op"] == "write"]
    assert len(rows) == job["write"]["total_ios"] == n
    dev = sorted(int(r["done_ns"]) - int(r["arrival_ns"]) for r in rows)
    assert dev[n // 2] == 717800, dev[n // 2]      # 5000 + 2560 + 10240 + 700000: BLOCK-IO.md's drs write
    assert job["write"]["clat_ns"]["percentile"]["50.000000"] >= 717800 * 0.95, job["write"]["clat_ns"]
    assert all(int(r["wall_ns"]) >= 717800 * 0.95 for r in rows[n // 4:])


def test_the_trace_shows_fios_requests(tmp_path):
    """--trace on the image: each of fio's 50 writes (QD 1) is one BlockSubmit and one BlockPoll on the
    host link and one page program on a chip, besides the namespace's tombstone made at start."""
    img = fmt(tmp_path, "tiny", "8M")
    tr = tmp_path / "t.json"
    csd("nbd", img, "--trace", tr, "--run", 'fio --name=w --ioengine=nbd --uri="$uri" --rw=randwrite --bs=4k '
        '--number_ios=50 --output-format=terse >/dev/null', cwd=tmp_path)
    spans = [e for e in json.load(open(tr))["traceEvents"] if e.get("ph") == "X"]
    count = lambda name: sum(e["name"] == name for e in spans)
    assert (count("block_submit"), count("block_poll"), count("program")) == (50, 50, 51)


def device_qd(lat):
    with open(lat) as f:
        rows = [r for r in csv.DictReader(f) if r["op"] == "read"]
    busy = sum(int(r["done_ns"]) - int(r["arrival_ns"]) for r in rows)
    span = max(int(r["done_ns"]) for r in rows) - min(int(r["arrival_ns"]) for r in rows)
    return busy / span, len(rows)


def test_the_device_sees_fios_queue_depth(tmp_path):
    """One connection's requests go to the device together and the device waits for fio to refill its
    queue: at iodepth 8 about 8 reads are outstanding on the device's clock (Little's law over the
    latency log), at iodepth 1 one."""
    img = fmt(tmp_path, "drs", "64M", "ftl=page")
    qd = {}
    for depth in (1, 8):
        lat = tmp_path / f"lat{depth}.csv"
        # a wide refill window: under a sanitizer on a loaded machine fio can take longer than the default
        # 2 ms to send its next requests; the window ends as soon as they arrive, so it costs nothing here
        csd("nbd", img, "--latency-csv", lat, "--refill-us", "200000", "--run",
            'fio --name=w --ioengine=nbd --uri="$uri" --rw=write --bs=128k --size=4M --output-format=terse >/dev/null && '
            f'fio --name=r --ioengine=nbd --uri="$uri" --rw=randread --bs=4k --size=4M --io_size=16M --iodepth={depth} '
            '--number_ios=2000 --output-format=terse >/dev/null', cwd=tmp_path)
        qd[depth], n = device_qd(lat)
        assert n == 2000
    assert 0.99 <= qd[1] <= 1.01, qd
    assert qd[8] >= 5, qd


def test_loopback_tcp_and_usage_errors(tmp_path):
    img = fmt(tmp_path, "tiny", "8M")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = csd("nbd", img, "--port", port, "--run", f"nbdinfo --size nbd://127.0.0.1:{port}")
    assert p.stdout.strip() == str(8 << 20)
    assert csd("nbd", ok=False).returncode == 2
    assert "one of them" in csd("nbd", img, "--socket", tmp_path / "x.sock", "--run", "true", ok=False).stderr
    assert csd("nbd", img, ok=False).returncode == 2                                 # where to listen?
    assert csd("nbd", img, "--port", "0", "--run", "true", ok=False).returncode == 2
    r = csd("nbd", "--socket", tmp_path / "x.sock", "--set", "paced=1", "--run", "true", ok=False)
    assert r.returncode == 2 and "give them to 'csd serve'" in r.stderr
    r = subprocess.run([CSD, "nbd", str(img), "--run", "true"], capture_output=True, text=True,
                       env=dict(os.environ, CSD_NBD_PLUGIN=str(tmp_path / "none.so")))
    assert r.returncode == 1 and "was not built" in r.stderr
    # no daemon behind the socket: nbdkit refuses to start, saying why
    r = csd("nbd", "--socket", tmp_path / "x.sock", "--run", "true", ok=False)
    assert r.returncode != 0 and "x.sock" in r.stderr
    # a read-only export refuses writes
    r = csd("nbd", img, "--read-only", "--run", 'nbdinfo --json "$uri"')
    assert json.loads(r.stdout)["exports"][0]["is_read_only"] is True
