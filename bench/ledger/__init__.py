"""The claims ledger: every paper's claims, how each is measured and judged (bench/claims.py runs it).

CLAIMS lists them paper by paper; BENCHES says how `bench claims` runs each bench they need: the full
run and the --quick one (a few minutes in all)."""
from ledger import drs, hybrid, remus, smartssd, twopm

CLAIMS = smartssd.CLAIMS + twopm.CLAIMS + drs.CLAIMS + remus.CLAIMS + hybrid.CLAIMS

# bench: (arguments of the full run, arguments of the quick one)
BENCHES = {
    "flash": ([], ["64"]),
    "dram": ([], ["16"]),
    "datafilter": ([], ["32"]),
    "weblog": (["--versions", "host-normal,host-optimized,device"],
               ["--size", "64M", "--versions", "host-normal,host-optimized,device"]),
    "2pm": ([], ["--quick"]),
    "drs": ([], ["--quick"]),
    "remus": ([], ["--quick"]),
    "hybrid": ([], ["--quick"]),
}
