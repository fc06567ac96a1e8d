"""The soak's short version (the long one: bin/smartssd bench soak): 64 clients on one csdd daemon,
three rounds of 40 mixed commands each (writes, reads, grep tasklets, listings, deletes), then a serial
replay of every client's commands on a fresh in-process device that must give the same results; the
daemon's open descriptors return to their baseline after every round and its anonymous RSS grows by
at most 16 MiB from round 1 to the end. Bounded by command count, not by time."""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.dirname(os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd")))


def test_soak_64_clients_equal_a_serial_replay(tmp_path):
    # Under ASan the allocator holds freed memory in its quarantine (and shadow memory grows with it), so
    # anonymous RSS says little there; LeakSanitizer checks the daemon for leaks when it stops instead.
    asan = os.environ.get("CSD_SANITIZE") == "ON"
    growth = "64" if asan else "16"
    env = dict(os.environ)
    if asan:
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "quarantine_size_mb=8"]))
    p = subprocess.run([os.path.join(BUILD, "bench_soak"), "--csdd", os.path.join(BUILD, "csdd"), "--dir",
                        str(tmp_path), "--clients", "64", "--ops", "40", "--rounds", "3", "--check",
                        "--max-rss-growth-mib", growth], env=env,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "mismatches 0, client errors 0" in p.stdout
    assert "commands 7680" in p.stdout
