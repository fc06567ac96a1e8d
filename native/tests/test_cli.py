"""CLI tests: csd format/put/get/run against independent references (byte compare, wc98.py written
separately from the C tasklets, and grep(1) itself). Run by ctest (cli_py) with CSD_BIN set."""
import json
import os
import random
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))
WC98 = os.path.join(HERE, "wc98.py")


def csd(*args, ok=True, raw=False):
    p = subprocess.run([CSD, *map(str, args)], capture_output=True)
    if ok and p.returncode != 0:
        raise AssertionError(f"csd {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr.decode()}")
    if raw:
        return p
    return json.loads(p.stdout) if "--json" in args else p.stdout.decode()


def wc98(*args):
    return subprocess.run([sys.executable, WC98, *map(str, args)], check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture()
def image(tmp_path):
    img = tmp_path / "dev.img"
    csd("format", img, "--capacity", "64M", "--json")
    return img


@pytest.fixture()
def tiny(tmp_path):
    img = tmp_path / "tiny.img"
    csd("format", img, "--capacity", "8M", "--preset", "tiny", "--json")
    return img


# ------------------------------------------------------------------ data round trips

@pytest.mark.parametrize("size", [0, 1, 4095, 8192, 8193, 300_000, 5 * 1024 * 1024 + 17])
def test_put_get_round_trip(image, tmp_path, size):
    src = tmp_path / "src.bin"
    src.write_bytes(random.Random(size).randbytes(size))
    put = csd("put", image, f"obj-{size}", src, "--json")
    assert put["bytes"] == size
    out = tmp_path / "out.bin"
    got = csd("get", image, f"obj-{size}", out, "--json")
    assert got["bytes"] == size
    assert out.read_bytes() == src.read_bytes()
    # survives a clean restart (every csd call reopens the image) and check is clean
    assert csd("check", image, "--json")["clean"]


def test_ls_mv_rm(image, tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"x" * 100)
    for name in ["logs/b", "logs/a", "other"]:
        csd("put", image, name, f)
    names = [o["name"] for o in csd("ls", image, "logs/", "--json")["objects"]]
    assert names == ["logs/a", "logs/b"]
    csd("mv", image, "logs/a", "logs/c")
    assert [o["name"] for o in csd("ls", image, "--json")["objects"]] == ["logs/b", "logs/c", "other"]
    p = csd("mv", image, "logs/b", "other", "--json", ok=False, raw=True)
    assert p.returncode == 1 and json.loads(p.stdout)["error"] == "ALREADY_EXISTS"
    csd("mv", image, "logs/b", "other", "--force")
    csd("rm", image, "logs/c")
    assert [o["name"] for o in csd("ls", image, "--json")["objects"]] == ["other"]
    p = csd("rm", image, "nope", "--json", ok=False, raw=True)
    assert p.returncode == 1 and json.loads(p.stdout)["error"] == "NOT_FOUND"


def test_overwrite_in_place_through_gc(tiny, tmp_path):
    # The tiny device holds 8 MiB; writing 40 MiB of replacements forces garbage collection.
    f = tmp_path / "f"
    for round_ in range(10):
        data = random.Random(round_).randbytes(4 * 1024 * 1024)
        f.write_bytes(data)
        csd("rm", tiny, "big", ok=False)
        csd("put", tiny, "big", f)
        out = tmp_path / "o"
        csd("get", tiny, "big", out)
        assert out.read_bytes() == data
    assert csd("check", tiny, "--json")["clean"]


# ------------------------------------------------------------------ tasklets vs references

def parse_tsv(text):
    return [line.split("\t") for line in text.strip().splitlines() if line]


@pytest.mark.parametrize("entry", [20, 32, 256])
def test_weblog_q1_q2_match_reference(image, tmp_path, entry):
    data = tmp_path / "wc.bin"
    wc98("gen", data, "--records", 30000, "--entry-bytes", entry, "--seed", entry)
    csd("put", image, "wc", data)
    q1 = csd("run", image, "weblog-q1", "--input", "wc", "--param", f"entry_bytes={entry}", "--json")
    ref1 = {r: int(c) for r, c in parse_tsv(wc98("q1", data, "--entry-bytes", entry))}
    assert q1["results"]["regions"] == ref1
    assert sum(ref1.values()) == 30000
    assert q1["flash_bytes_read"] >= 30000 * entry
    assert q1["bytes_to_host"] < 1000
    assert q1["device_ns"] > 0
    q2 = csd("run", image, "weblog-q2", "--input", "wc", "--param", f"entry_bytes={entry}", "--param", "top_n=3",
             "--json")
    ref2 = [[r, t, int(c), int(k)] for r, t, c, k in parse_tsv(wc98("q2", data, "--entry-bytes", entry, "--top-n", 3))]
    assert q2["results"]["rows"] == ref2


def test_extents_compose_to_whole_object(image, tmp_path):
    entry = 32
    data = tmp_path / "wc.bin"
    wc98("gen", data, "--records", 20000, "--entry-bytes", entry, "--seed", 7, "--mix", "uniform")
    csd("put", image, "wc", data)
    size = os.path.getsize(data)
    whole = csd("run", image, "weblog-q1", "--input", "wc", "--param", f"entry_bytes={entry}", "--json")
    rng = random.Random(3)
    for _ in range(3):
        cuts = sorted({0, size, *[rng.randrange(size) for _ in range(rng.randrange(1, 6))]})
        total = {}
        for a, b in zip(cuts, cuts[1:]):
            part = csd("run", image, "weblog-q1", "--input", "wc", "--param", f"entry_bytes={entry}",
                       "--offset", a, "--length", b - a, "--json")
            ref = {r: int(c) for r, c in parse_tsv(wc98("q1", data, "--entry-bytes", entry, "--offset", a,
                                                         "--length", b - a))}
            assert part["results"]["regions"] == ref
            for k, v in part["results"]["regions"].items():
                total[k] = total.get(k, 0) + v
        assert total == whole["results"]["regions"]


def clf_lines(n, seed):
    rng = random.Random(seed)
    paths = ["/english/index.html", "/images/logo.gif", "/french/news/story.html", "/images/ball.jpg"]
    out = []
    for i in range(n):
        out.append(f'10.0.{rng.randrange(256)}.{rng.randrange(256)} - - [01/May/1998:{i % 24:02d}:00:00 +0000] '
                   f'"GET {rng.choice(paths)} HTTP/1.0" {rng.choice([200, 304])} {rng.randrange(1, 9999)}')
    return "\n".join(out) + "\n"


def test_grep_count_and_lines_match_grep(image, tmp_path):
    text = tmp_path / "access.log"
    text.write_text(clf_lines(20000, 1))
    csd("put", image, "log", text)
    ref = int(subprocess.run(["grep", "-F", "-c", "/images/", str(text)], capture_output=True, text=True).stdout)
    r = csd("run", image, "grep", "--input", "log", "--param", "pattern=/images/", "--json")
    assert r["results"]["count"] == ref
    # keywords (runtime params) win over the static pattern, as the paper's search keywords
    r = csd("run", image, "grep", "--input", "log", "--param", "pattern=/images/", "--keyword", "french", "--json")
    ref_fr = int(subprocess.run(["grep", "-F", "-c", "french", str(text)], capture_output=True, text=True).stdout)
    assert r["results"]["count"] == ref_fr
    # lines mode: the lines themselves, in order
    r = csd("run", image, "grep", "--input", "log", "--param", "pattern=story", "--param", "mode=lines", "--json")
    ref_lines = subprocess.run(["grep", "-F", "story", str(text)], capture_output=True, text=True).stdout.splitlines()
    assert [row[1] for row in r["results"]["rows"]] == ref_lines
    # split into extents: counts add up (a line belongs to the extent where it starts)
    size = os.path.getsize(text)
    parts = [0, 12345, 77777, size]
    total = sum(csd("run", image, "grep", "--input", "log", "--param", "pattern=/images/", "--offset", a,
                    "--length", b - a, "--json")["results"]["count"] for a, b in zip(parts, parts[1:]))
    assert total == ref


@pytest.mark.parametrize("mode", ["records", "lbas"])
def test_filter_matches_reference(image, tmp_path, mode):
    data = tmp_path / "wc.bin"
    wc98("gen", data, "--records", 5000, "--entry-bytes", 32, "--seed", 5)
    csd("put", image, "wc", data)
    args = ["--field-offset", 12, "--field-width", 4, "--op", "lt", "--value", 2000]
    r = csd("run", image, "filter", "--input", "wc", "--param", "entry_bytes=32", "--param", "field_offset=12",
            "--param", "field_width=4", "--param", "op=lt", "--param", "value=2000", "--param", f"mode={mode}", "--json")
    ref = parse_tsv(wc98("filter", data, "--entry-bytes", 32, *args, "--mode", mode, "--page-bytes", 8192))
    if mode == "records":
        assert [[int(o), "0x" + h] for o, h in ref] == [[row[0], row[1]] for row in r["results"]["rows"]]
    else:
        assert [int(x[0]) for x in ref] == [row[0] for row in r["results"]["rows"]]


def test_max_outputs_truncates(image, tmp_path):
    text = tmp_path / "access.log"
    text.write_text(clf_lines(2000, 2))
    csd("put", image, "log", text)
    r = csd("run", image, "grep", "--input", "log", "--param", "pattern=GET", "--param", "mode=lines",
            "--max-outputs", 10, "--json")
    assert r["row_count"] == 10 and r["truncated"]


def test_device_time_is_deterministic(tmp_path):
    data = tmp_path / "wc.bin"
    wc98("gen", data, "--records", 20000, "--entry-bytes", 64, "--seed", 9)
    times = []
    for i in range(2):
        img = tmp_path / f"d{i}.img"
        csd("format", img, "--capacity", "32M")
        csd("put", img, "wc", data)
        r = csd("run", img, "weblog-q1", "--input", "wc", "--param", "entry_bytes=64", "--json")
        times.append((r["device_ns"], r["flash_bytes_read"]))
    assert times[0] == times[1]


def test_set_overrides_change_device_time(image, tmp_path):
    data = tmp_path / "wc.bin"
    wc98("gen", data, "--records", 20000, "--entry-bytes", 32, "--seed", 9)
    csd("put", image, "wc", data)
    base = csd("run", image, "weblog-q1", "--input", "wc", "--param", "entry_bytes=32", "--json")
    slow = csd("run", image, "weblog-q1", "--input", "wc", "--param", "entry_bytes=32", "--set", "cores=1", "--json")
    assert slow["results"] == base["results"]
    assert slow["device_ns"] > base["device_ns"]


def test_set_applied_in_one_open(image, tmp_path):
    """--set edits the image's params inside the one open: the session gets them (identify), the
    image keeps its own, a geometry key is taken back from the image, and a bad --config line or an
    invalid value is INVALID_ARGUMENT with its message while the image still opens."""
    stored = csd("identify", image, "--json")
    ident = csd("identify", image, "--set", "host_threads=2", "--set", "cores=1", "--json")
    assert ident["params"]["host_threads"] == "2" and ident["cores"] == 1
    assert (stored["params"]["host_threads"], stored["cores"]) != ("2", 1)
    assert csd("identify", image, "--json") == stored          # nothing of the session is kept
    geo = csd("identify", image, "--set", "page_bytes=16384", "--json")
    assert geo["geometry"] == stored["geometry"]
    cfg = tmp_path / "bad.cfg"
    cfg.write_text("cores = 1\nbogus = 3\n")
    p = csd("run", image, "grep", "--input", "x", "--config", cfg, "--json", ok=False, raw=True)
    err = json.loads(p.stdout)
    assert p.returncode == 1 and err["error"] == "INVALID_ARGUMENT"
    assert err["message"] == f"{cfg}:2: unknown parameter 'bogus'"
    p = csd("run", image, "grep", "--input", "x", "--set", "host_threads=0", "--json", ok=False, raw=True)
    err = json.loads(p.stdout)
    assert p.returncode == 1 and err["error"] == "INVALID_ARGUMENT"
    assert err["message"] == f"cannot open {image} with these parameters: host_threads must be 1..64"
    assert csd("identify", image, "--json") == stored


# ------------------------------------------------------------------ errors and help

def test_errors_are_clear(image, tmp_path):
    p = csd("run", image, "no-such", "--input", "x", "--json", ok=False, raw=True)
    assert p.returncode == 1
    f = tmp_path / "f"
    f.write_bytes(b"z" * 100)
    csd("put", image, "odd", f)
    p = csd("run", image, "weblog-q1", "--input", "odd", "--param", "entry_bytes=32", "--json", ok=False, raw=True)
    err = json.loads(p.stdout)
    assert p.returncode == 1 and err["error"] == "INVALID_ARGUMENT" and "entry_bytes" in err["message"]
    p = csd("run", image, "grep", "--input", "nope", "--param", "pattern=a", "--json", ok=False, raw=True)
    assert json.loads(p.stdout)["error"] == "NOT_FOUND"
    p = csd("format", tmp_path / "x.img", "--capacity", "lots", ok=False, raw=True)
    assert p.returncode == 2 and b"capacity" in p.stderr
    p = csd("format", tmp_path / "x.img", "--capacity", "1M", "--set", "channels=0", ok=False, raw=True)
    assert p.returncode == 2 and b"channels" in p.stderr
    p = csd("format", tmp_path / "x.img", "--capacity", "1M", "--set", "bogus=1", ok=False, raw=True)
    assert p.returncode == 2 and b"bogus" in p.stderr
    p = csd("ls", tmp_path / "missing.img", ok=False, raw=True)
    assert p.returncode == 1
    p = csd("frobnicate", ok=False, raw=True)
    assert p.returncode == 2


@pytest.mark.parametrize("cmd", ["format", "put", "get", "ls", "rm", "mv", "run", "stats", "identify", "check",
                                 "replay", "nbd"])
def test_help_on_every_subcommand(cmd):
    p = csd(cmd, "--help", raw=True)
    assert p.returncode == 0 and f"usage: csd {cmd}".encode() in p.stdout


def test_csdd_names_itself():
    # csdd is `csd serve` under its own name: its usage must be runnable as printed
    csdd = os.path.join(os.path.dirname(CSD), "csdd")
    p = subprocess.run([csdd, "--help"], capture_output=True)
    assert p.returncode == 0 and p.stdout.startswith(b"usage: csdd IMAGE --socket PATH")
    p = subprocess.run([csdd], capture_output=True)
    assert p.returncode == 2 and b"(see 'csdd --help')" in p.stderr


def test_identify_reports_the_paper_device(image):
    i = csd("identify", image, "--json")
    assert i["geometry"]["channels"] == 16 and i["geometry"]["page_bytes"] == 8192
    assert i["cores"] == 2 and i["request_scheduler"] == "fcfs"
    assert i["params"]["host_link_bytes_per_s"] == "300000000"
    assert set(i["tasklets"]) >= {"weblog-q1", "weblog-q2", "filter", "grep", "plan"}


def test_dram_scan_counts_and_costs(tiny, tmp_path):
    # 16 pages of 4 KiB: zeros, except one integer per page set to 7 at the first sampled position.
    pages = bytearray(16 * 4096)
    for p in range(16):
        pages[p * 4096:p * 4096 + 4] = (7).to_bytes(4, "little")
    f = tmp_path / "pages.bin"
    f.write_bytes(bytes(pages))
    csd("put", tiny, "pages", f)
    r8 = csd("run", tiny, "dram-scan", "--input", "pages", "--param", "accesses=8", "--json")
    assert r8["results"]["rows"] == [[16 * 7, 16 * 8]]          # 7 zeros of 8 sampled per page
    r8k = csd("run", tiny, "dram-scan", "--input", "pages", "--param", "accesses=8", "--param", "key=7", "--json")
    assert r8k["results"]["rows"] == [[16, 16 * 8]]
    r512 = csd("run", tiny, "dram-scan", "--input", "pages", "--param", "accesses=512", "--json")
    assert r512["device_ns"] > r8["device_ns"]
    p = csd("run", tiny, "dram-scan", "--input", "pages", "--param", "accesses=5000", "--json", ok=False, raw=True)
    assert p.returncode == 1 and "accesses" in json.loads(p.stdout)["message"]


def test_results_larger_than_the_output_buffer_flow(tiny, tmp_path):
    # tiny's output buffer is 1 MiB; every line matches, so ~3 MiB of rows must stream through it.
    text = tmp_path / "all.log"
    text.write_text("".join(f"GET /line/{i:08d}\n" for i in range(150000)))
    csd("put", tiny, "all", text)
    r = csd("run", tiny, "grep", "--input", "all", "--param", "pattern=GET", "--param", "mode=lines", "--json")
    assert r["row_count"] == 150000
    assert r["results"]["rows"][-1][1] == "GET /line/00149999"
    assert r["bytes_to_host"] > 2 * 1024 * 1024


def test_identify_lists_every_pluggable_layer(tiny):
    ident = csd("identify", tiny, "--json")
    for key in ("request_scheduler", "ftl", "placement", "flash_scheduler", "chip_scheduler"):
        assert ident[key] in ident["policies"][key].split(", "), key
    assert ident["issue_model"] == "batch"
    assert "remus" in ident["policies"]["request_scheduler"].split(", ")
    # the DRS paper's map-cached FTL and flash-command schedulers (docs/DRS.md)
    assert ident["policies"]["ftl"].split(", ") == ["page", "dftl"]
    assert ident["policies"]["flash_scheduler"].split(", ") == ["fifo", "rcf", "size", "rrf", "fot", "drs"]
    p = csd("run", tiny, "grep", "--input", "x", "--set", "request_scheduler=edf", ok=False, raw=True)
    assert p.returncode != 0 and b"request_scheduler 'edf' is unknown (known: fcfs, cfs" in p.stdout + p.stderr


# ------------------------------------------------------------------ hybrid SLC/TLC (docs/HYBRID.md)

def test_hybrid_hints_trim_and_wear(tmp_path):
    """put --hint places by level (SLC pages program in 300 us, TLC in 2500 us: put's device time says
    which), a bad hint is refused (usage error or device status), trim zeroes the pages, and stats and
    identify report the regions and their wear."""
    img = tmp_path / "hybrid.img"
    csd("format", img, "--capacity", "64M", "--preset", "hybrid", "--json")
    data = tmp_path / "sst"
    payload = bytes(random.Random(5).randrange(256) for _ in range(5 * 16384))
    data.write_bytes(payload)
    slc = csd("put", img, "L0.sst", data, "--hint", "1", "--json")
    tlc = csd("put", img, "plain", data, "--json")
    # 5 pages in stripe order over 4 channels: the link brings 81920 bytes in (one transfer), then the
    # 5th page waits on channel 0 behind the 1st (2 x 40960) and programs last
    link = -(-5 * 16384 * 10**9 // 3938461538)
    assert link == 20801
    assert slc["device_ns"] == 5000 + link + 2 * 40960 + 300000
    assert tlc["device_ns"] == 5000 + link + 2 * 40960 + 2500000
    out = tmp_path / "back"
    csd("get", img, "L0.sst", out)
    assert out.read_bytes() == payload
    p = csd("put", img, "x", data, "--hint", "abc", ok=False, raw=True)
    assert p.returncode == 2 and b"bad --hint 'abc'" in p.stderr
    p = csd("put", img, "y", data, "--hint", "256", ok=False, raw=True)
    assert p.returncode != 0 and b"INVALID_ARGUMENT: write_object: hint 256 is out of range" in p.stderr
    t = csd("trim", img, "L0.sst", "--offset", "16384", "--length", "32768", "--json")
    assert t["length"] == 32768
    csd("get", img, "L0.sst", out)
    assert out.read_bytes() == payload[:16384] + bytes(32768) + payload[49152:]
    st = csd("stats", img, "--json")
    assert st["wear.slc.pe_limit"] == 100000 and st["wear.tlc.pe_limit"] == 2500
    assert st["wear.slc.blocks"] == 8 * 3 and st["wear.total_erases"] == 0
    ident = csd("identify", img, "--json")
    assert ident["placement"] == "level" and {"level", "combo", "stripe"} <= set(ident["policies"]["placement"].split(", "))
    assert ident["params"]["slc_blocks_per_plane"] == "3"


# ------------------------------------------------------------------ two-stage grep (docs/2PM.md)

def test_grep2_two_stage_matches_grep(tmp_path):
    """The commands of docs/2PM.md: the 2pm preset, grep2 under each chip policy, against grep(1)."""
    img = tmp_path / "2pm.img"
    fmt = csd("format", img, "--capacity", "64M", "--preset", "2pm", "--json")
    text = tmp_path / "access.log"
    text.write_text(clf_lines(30000, 7))
    csd("put", img, "access.log", text)
    ident = csd("identify", img, "--json")
    assert ident["params"]["chip_scheduler"] == "2pm+" and int(ident["params"]["pm_bytes_per_s"]) == 10**9
    ref = int(subprocess.run(["grep", "-c", "GET /images/.*HTTP/1.0\" 304", str(text)], capture_output=True,
                             text=True).stdout)
    ref_lines = subprocess.run(["grep", "-n", "/french/.*304", str(text)], capture_output=True,
                               text=True).stdout.splitlines()
    for policy in ("fcfs", "paq", "readfirst", "2pm", "2pm+", "slacker", "cars", "flin", "flin-src"):
        r = csd("run", img, "grep2", "--input", "access.log", "--param", "start=GET /images/",
                "--param", 'end=HTTP/1.0" 304', "--set", f"chip_scheduler={policy}", "--json")
        assert r["results"]["count"] == ref, policy
    # lines mode, with runtime keywords for the keys; rows sorted by offset are grep's lines
    r = csd("run", img, "grep2", "--input", "access.log", "--keyword", "/french/", "--keyword", "304",
            "--param", "mode=lines", "--json")
    rows = sorted(r["results"]["rows"], key=lambda row: row[0])
    assert [row[1] for row in rows] == [line.split(":", 1)[1] for line in ref_lines]
    # the in-order mode gives the same count; without the units the first stage runs on the cores
    r1 = csd("run", img, "grep2", "--input", "access.log", "--param", "start=GET /images/",
             "--param", 'end=HTTP/1.0" 304', "--param", "stages=1", "--json")
    assert r1["results"]["count"] == ref
    r0 = csd("run", img, "grep2", "--input", "access.log", "--param", "start=GET /images/", "--set",
             "pm_bytes_per_s=0", "--json")
    assert r0["results"]["count"] == int(subprocess.run(["grep", "-F", "-c", "GET /images/", str(text)],
                                                         capture_output=True, text=True).stdout)
    # a bad key is refused with the parameter named, and the device keeps serving
    p = csd("run", img, "grep2", "--input", "access.log", "--param", "start=", "--json", ok=False, raw=True)
    assert p.returncode != 0 and b"non-empty start key" in p.stdout + p.stderr
    p = csd("run", img, "grep2", "--input", "access.log", "--param", "start=a", "--param", "stages=3", "--json",
            ok=False, raw=True)
    assert p.returncode != 0 and b"stages" in p.stdout + p.stderr
    p = csd("run", img, "grep2", "--input", "access.log", "--param", "start=a", "--set", "chip_scheduler=edf",
            "--json", ok=False, raw=True)
    assert p.returncode != 0 and b"chip_scheduler 'edf' is unknown" in p.stdout + p.stderr
    assert csd("check", img, "--json")["clean"]


def test_dftl_drs_device_round_trip_and_scan(tmp_path):
    # the DRS paper's map-cached FTL and scheduler (docs/DRS.md): files round-trip, a grep equals the
    # system grep's count, the map pages survive reopening (check is clean), and only the device time
    # of writes differs from a page-mapped device (map programs); the map object stays hidden
    text = tmp_path / "access.log"
    text.write_text(clf_lines(20000, 3))
    ref = int(subprocess.run(["grep", "-F", "-c", "/images/", str(text)], capture_output=True, text=True).stdout)
    put_ns = {}
    for ftl, sched in (("page", "fifo"), ("dftl", "drs")):
        img = tmp_path / f"{ftl}.img"
        csd("format", img, "--capacity", "16M", "--preset", "tiny", "--set", f"ftl={ftl}",
            "--set", f"flash_scheduler={sched}", "--set", "map_cache_bytes=512", "--json")
        put_ns[ftl] = csd("put", img, "log", text, "--json")["device_ns"]
        out = tmp_path / f"{ftl}.out"
        csd("get", img, "log", out)
        assert out.read_bytes() == text.read_bytes()
        r = csd("run", img, "grep", "--input", "log", "--param", "pattern=/images/", "--json")
        assert r["results"]["count"] == ref
        assert [o["name"] for o in csd("ls", img, "--json")["objects"]] == ["log"]
        assert "clean" in csd("check", img)
        ident = csd("identify", img, "--json")
        assert (ident["ftl"], ident["flash_scheduler"]) == (ftl, sched)
    assert put_ns["dftl"] > put_ns["page"]
    p = csd("format", tmp_path / "bad.img", "--capacity", "16M", "--preset", "tiny", "--set", "ftl=dftl",
            "--set", "map_cache_line_entries=600", "--set", "map_cache_bytes=64K", ok=False, raw=True)
    assert p.returncode != 0 and b"map_cache_line_entries must fit a map page" in p.stdout + p.stderr
