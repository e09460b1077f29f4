# Independent re-computation (exact fractions) of the five SafePub score
# functions for every node listed in an ARX oracle file (beta = 1, whole table
# = sample), compared with ARX's values (rel. tol. 1e-12) and with the
# suppressed / classes / kept_classes counts.
# Usage: python3 check_scores.py data.csv hierDir k qi1,qi2,... arx_scores.csv
import csv
import sys
from collections import Counter
from fractions import Fraction as F


def main() -> None:
    data_csv, hdir, k, qis, oracle = (
        sys.argv[1],
        sys.argv[2],
        int(sys.argv[3]),
        sys.argv[4].split(","),
        sys.argv[5],
    )
    rows = list(csv.reader(open(data_csv), delimiter=";"))
    hdr, rows = rows[0], rows[1:]
    n = len(rows)
    d = len(qis)
    H = {}
    for q in qis:
        hr = [r for r in csv.reader(open(f"{hdir}/{q}.csv"), delimiter=";")]
        H[q] = hr
    gen = {q: {r[0]: r for r in H[q]} for q in qis}
    height = {q: len(H[q][0]) - 1 for q in qis}
    share = {q: [Counter(r[lv] for r in H[q]) for lv in range(len(H[q][0]))] for q in qis}
    roots = {q: (H[q][0][-1] if len(set(r[-1] for r in H[q])) == 1 else None) for q in qis}
    sensDE = F(5) if k == 1 else F(k * k, k - 1) + 1
    ora = list(csv.DictReader(open(oracle)))
    order = [c for c in ora[0].keys()][:d]
    bad = 0
    for o in ora:
        lv = {q: int(o[q]) for q in order}
        cls = Counter(tuple(gen[q][r[hdr.index(q)]][lv[q]] for q in qis) for r in rows)
        kept = {c: m for c, m in cls.items() if m >= k}
        sup = n - sum(kept.values())
        loss = F(sup * d) + sum(
            m * sum(F(share[q][lv[q]][c[i]], len(H[q])) for i, q in enumerate(qis))
            for c, m in kept.items()
        )
        loss = -loss / d / (k - 1 if k > 1 else 1)
        unsup = n - sup
        prec = (
            -sum(unsup * (F(lv[q], height[q]) if height[q] else 0) + sup for q in qis)
            / d
            / (k - 1 if k > 1 else 1)
        )
        ent = F(0)
        for i, q in enumerate(qis):
            vc = Counter()
            for c, m in kept.items():
                if roots[q] is not None and c[i] == roots[q]:
                    ent += m * n
                else:
                    vc[c[i]] += m
            ent += sup * n + sum(v * v for v in vc.values())
        ent = -ent / (n * d) / sensDE
        disc = -(F(n * sup) + sum(m * m for m in kept.values())) / (n * sensDE)
        aecs = len(kept) + (1 if sup > 0 else 0)
        mine = dict(granularity=loss, intensity=prec, entropy=ent, discernibility=disc, aecs=aecs)
        for key, v in mine.items():
            if abs(float(v) - float(o[key])) > 1e-12 * max(1, abs(float(v))):
                bad += 1
                print("MISMATCH", lv, key, float(v), o[key])
        if (int(o["suppressed"]), int(o["kept_classes"])) != (sup, len(kept)) or int(
            o["classes"]
        ) != len(cls):
            bad += 1
            print("MISMATCH counts", lv)
    print("nodes", len(ora), "mismatches", bad)


if __name__ == "__main__":
    main()
