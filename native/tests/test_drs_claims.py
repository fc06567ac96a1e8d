"""bench drs's claim checks (bench/_drs_claims.py) on hand-made results: each claim holds on numbers
built to satisfy the paper's statement and fails when one figure is moved against it; a claim whose
inputs were not measured is left out rather than guessed."""
import copy
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import _drs_claims as C  # noqa: E402

WS = ["AngryBird", "Booting", "Facebook", "Movie", "Radio", "Radio/Msg", "Radio/WB", "YouTube"]


def good():
    """Results shaped as the paper describes them (read/write/all in us)."""
    fig9 = {}
    for w in WS:
        fig9[w] = {"rcf": {"read": 1000.0, "write": 5000.0, "all": 3000.0},
                   "size": {"read": 990.0, "write": 4900.0, "all": 2950.0},
                   "rrf": {"read": 950.0, "write": 5100.0, "all": 3000.0},
                   "fot": {"read": 800.0, "write": 5000.0, "all": 2900.0},
                   "drs": {"read": 700.0, "write": 4950.0, "all": 2850.0}}
    fig9["Movie"]["drs"]["read"] = 490.0                  # -51 %
    fig9["YouTube"]["rrf"]["read"] = 1050.0               # RRF slower than RCF on YouTube
    fig9["Booting"]["size"]["write"] = 4000.0             # Size shortest write on Booting
    fig10 = {w: {"rcf": {"io_queue": 10.0, "flash_queue": 500.0, "flash": 700.0, "link": 10.0},
                 "drs": {"io_queue": 9.0, "flash_queue": 200.0, "flash": 700.0, "link": 10.0}} for w in WS}
    fig11a = {c: {w: {"rcf": 1000.0, "drs": 1000.0 * (1 - g)} for w in WS} for c, g in ((1024, 0.3), (4096, 0.2),
                                                                                      (65536, 0.1))}
    fig11b = {w: {1: 3000.0, 16: 1500.0, 256: 1000.0, 512: 1000.0} for w in WS}
    fig11b["Radio"] = {1: 3000.0, 16: 1000.0, 256: 1000.0, 512: 1000.0}
    return fig9, fig10, fig11a, fig11b


def verdicts(fig9, fig10, fig11a, fig11b):
    return {k: v[0] for k, v in C.evaluate(fig9, fig10, fig11a, fig11b).items()}


def test_every_claim_holds_on_the_papers_shape():
    v = verdicts(*good())
    assert v == {k: 1 for k in C.ALL}


def test_each_claim_fails_when_its_figure_moves():
    def broken(edit):
        f = copy.deepcopy(good())
        edit(*f)
        return verdicts(*f)

    def faster_fot(f9, *_):
        f9["Facebook"]["fot"]["read"] = 600.0   # below DRS
    assert broken(faster_fot)[C.LOWEST_READ] == 0

    def weak(f9, *_):
        f9["Movie"]["drs"]["read"] = 700.0      # best gain -30 %: more than 10 points from -51
    assert broken(weak)[C.BEST_GAIN] == 0

    def strong(f9, *_):
        f9["Movie"]["drs"]["read"] = 350.0      # -65 %: also more than 10 points away
    assert broken(strong)[C.BEST_GAIN] == 0

    def rrf_slow(f9, *_):
        for w in WS:
            f9[w]["rrf"]["read"] = 1010.0
    assert broken(rrf_slow)[C.RRF_AVERAGE] == 0

    def youtube_equal(f9, *_):
        f9["YouTube"]["rrf"]["read"] = 1000.0   # equal is not slower
    assert broken(youtube_equal)[C.YOUTUBE_RRF] == 0

    def size_beats_fot(f9, *_):
        f9["Radio/WB"]["size"]["read"] = 700.0
    assert broken(size_beats_fot)[C.FOT_LOWEST] == 0

    def drs_shortest_write(f9, *_):
        f9["Booting"]["drs"]["write"] = 3000.0
    assert broken(drs_shortest_write)[C.SIZE_WRITE] == 0

    def ops_moved(f9, f10, *_):
        f10["Radio"]["drs"]["flash"] = 650.0    # the operation time changed by 7 %
    assert broken(ops_moved)[C.FIG10] == 0

    def io_queue_fell_most(f9, f10, *_):
        f10["Booting"]["rcf"]["io_queue"] = 5000.0
    assert broken(io_queue_fell_most)[C.FIG10] == 0

    def gain_grows(f9, f10, f11a, f11b):
        for w in WS:
            f11a[65536][w]["drs"] = 500.0       # the largest cache gains the most
    assert broken(gain_grows)[C.FIG11A] == 0

    def deeper_slower(f9, f10, f11a, f11b):
        f11b["Movie"][512] = 1200.0
    assert broken(deeper_slower)[C.FIG11B] == 0

    def same_saturation(f9, f10, f11a, f11b):
        f11b["Radio"] = dict(f11b["Movie"])    # every workload saturates at the same depth
    assert broken(same_saturation)[C.FIG11B] == 0


def test_ties_count_as_lowest_and_unmoved_workloads_are_left_out():
    f9, f10, f11a, f11b = good()
    f9["Radio"]["fot"]["read"] = f9["Radio"]["drs"]["read"]   # no delayed request: DRS = FOT
    f10["Radio"]["drs"] = dict(f10["Radio"]["rcf"])           # DRS moved nothing here
    v = C.evaluate(f9, f10, f11a, f11b)
    assert v[C.LOWEST_READ][0] == 1 and v[C.FIG10][0] == 1
    assert "on 7 of the 7 workloads" in v[C.FIG10][1]


def test_claims_without_their_inputs_are_left_out():
    f9, *_ = good()
    for w in WS:
        del f9[w]["size"]
    del f9["YouTube"]
    v = C.evaluate(f9)
    assert C.SIZE_WRITE not in v and C.FOT_LOWEST not in v and C.YOUTUBE_RRF not in v
    assert C.FIG10 not in v and C.FIG11A not in v and C.FIG11B not in v
    assert set(v) == {C.LOWEST_READ, C.BEST_GAIN, C.RRF_AVERAGE}


def test_names_are_stable():
    # other tools read these names from summary.json
    assert [n[len("claim: "):] for n in C.ALL] == [
        "DRS has the lowest read latency on every workload",
        "DRS read latency vs RCF, best workload, up to -51 %",
        "RRF's reads beat RCF's on average",
        "YouTube: RRF's reads are slower than RCF's",
        "FOT has the lowest read latency of RCF, Size, RRF and FOT on Booting, Facebook and Radio/WB",
        "Size has the shortest write latency on Booting",
        "DRS cuts the flash command queue wait the most and leaves the flash operation time unchanged (Fig. 10)",
        "DRS is best at the smallest map cache and its gain shrinks as the cache grows (Fig. 11a)",
        "deeper flash command queues help until a workload-dependent saturation (Fig. 11b)",
    ]
