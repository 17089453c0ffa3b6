import json, sys, collections
rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.startswith("{")]
agg = collections.defaultdict(list)
for r in rows: agg[(r["method"], r["n"], r["set"], r["question"])].append(r)
print("| method | n | set | question | groups | min purity | mean purity | answers in groups <90% pure | misplaced | actions (per 1,000) | s (in-process) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for k in sorted(agg):
    rs = agg[k]; f = lambda key: sum(r[key] for r in rs) / len(rs)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {f('groups'):.0f} | {min(r['min_purity'] for r in rs):.2f} | {f('mean_purity'):.3f} | {f('in_groups_below_90'):.3f} | {f('misplaced'):.0f} | {f('actions'):.0f} ({f('actions_per_1000'):.0f}) | {f('seconds'):.1f} |")
