"""Old vs new alpha-beta side by side: same positions, same node budget, alternating runs."""
import importlib.util, sys, time
from zeroplay.engine import shogi_alphabeta as new
from zeroplay.games import make
spec = importlib.util.spec_from_file_location("ab_old", sys.argv[1]); old = importlib.util.module_from_spec(spec); sys.modules["ab_old"] = old; spec.loader.exec_module(old)
g = make("shogi")
positions = ["startpos", "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d",
             "startpos moves 7g7f 3c3d 8h2b+ 3a2b 2g2f 8c8d 2f2e 8d8e 6i7h 7a7b 3i3h 5a4b",
             "sfen ln2S4/1k4PP1/rppPg3s/p6l1/1g5p1/2P1g4/P3+p4/1BS5+p/LN2K2N1 w RBGSNL7P 86"]
nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
for name, mod in (("old", old), ("new", new), ("old", old), ("new", new)):
    tot_n = tot_t = 0; depths = []
    for p in positions:
        s = g.from_usi(p)
        e = mod.AlphaBetaEngine(mod.AlphaBetaConfig(hash_mib=32))
        t = time.process_time(); r = e.search(s, nodes=nodes); dt = time.process_time() - t
        tot_n += r.nodes; tot_t += dt; depths.append(r.depth)
    print(f"{name}: depth {depths}, {tot_n} nodes in {tot_t:.2f} CPU-s = {tot_n / tot_t:,.0f} nodes/CPU-s", flush=True)
