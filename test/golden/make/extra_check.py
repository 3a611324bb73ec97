#!/usr/bin/env python3
"""Checks the hdbscan-extra golden files against treeline's own MST (not used to make them).

1. treeline's CPU EMST (`node dist/cli/main.js emst <points> --min-samples <m> --backend cpu`, after `npm run build`)
   on every case gives `canonical.mst_edges`: the same edges in the same order (its weights are float32).
2. hdbscan's own code (as in extra.py) fed treeline's MST with its float32 weights reproduces every golden output
   within the printed differences: how far float32 weights alone move the results.

Command (repository root): HDBSCAN_SRC=/tmp/hdbscan-src /usr/bin/python3 test/golden/make/extra_check.py
"""

import gzip
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extra  # noqa: E402

ROOT = 'test/golden/hdbscan-extra'


def treeline_mst(points_gz, min_samples, tmp, case):
    csv, out = os.path.join(tmp, case + '.csv'), os.path.join(tmp, case + '.json')
    with open(csv, 'wb') as f:
        f.write(gzip.open(points_gz).read())
    cmd = ['node', 'dist/cli/main.js', 'emst', csv, '--min-samples', str(min_samples), '--backend', 'cpu', '-o', out]
    subprocess.run(cmd, check=True, capture_output=True)
    return json.load(open(out))


def rerun_hdbscan(X, mst, params, query):
    mcs, ms, single = params['min_cluster_size'], params['min_samples'], params['allow_single_cluster']
    labels, probs, stab, condensed, slt = extra._tree_to_labels(
        X, extra.label(mst), mcs, 'eom', single, False, 0.0, 0.0, 0, float('inf')
    )
    c = extra.HDBSCAN(min_cluster_size=mcs, min_samples=ms, allow_single_cluster=single, prediction_data=True)
    c._raw_data, c.labels_, c.probabilities_, c.cluster_persistence_ = X, labels, probs, stab
    c._condensed_tree, c._single_linkage_tree, c._min_spanning_tree = condensed, slt, mst
    c.generate_prediction_data()
    apm = extra.all_points_membership_vectors(c).reshape(len(X), -1)
    mv = extra.membership_vector(c, query)
    return c, labels, probs, apm, mv


def main():
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for e in json.load(gzip.open(os.path.join(ROOT, 'index.json.gz'), 'rt')):
            case, tag = e['case'], e['params']
            g = json.load(gzip.open(os.path.join(ROOT, case, tag + '.json.gz'), 'rt'))
            points_gz = os.path.normpath(os.path.join(ROOT, case, g['input'])) + '.gz'
            X, _ = extra.read_csv_gz(points_gz)
            d = treeline_mst(points_gz, g['params']['min_samples'], tmp, case)
            ref = np.array(g['canonical']['mst_edges'])
            s, t = np.array(d['sources']), np.array(d['targets'])
            w = np.array(d['weights'], dtype=np.float64)
            same = np.array_equal(s, ref[:, 0]) and np.array_equal(t, ref[:, 1])
            rel = np.max(np.abs(w - ref[:, 2]) / np.maximum(ref[:, 2], 1e-300))
            mst = np.column_stack([s, t, w]).astype(np.float64)
            query = np.array(g['membership_new']['points'], dtype=np.float64)
            c, labels, probs, apm, mv = rerun_hdbscan(X, mst, g['params'], query)
            centroids, _, medoid_rows, _ = extra.sklearn_centers(X, labels, probs)
            mcs = g['params']['min_cluster_size']
            dbscan_equal = all(
                np.array_equal(c.dbscan_clustering(x['cut_distance'], mcs), x['labels']) for x in g['dbscan']['cuts']
            )
            labels_equal = np.array_equal(labels, g['canonical']['labels'])
            ok &= bool(same and labels_equal and dbscan_equal and medoid_rows == g['medoid_rows'])
            print(
                '%-16s treeline MST: same edges, same order %s (weights %.1e rel.); on it: labels %s, '
                'probabilities %.1e, all-points membership %.1e, membership_new %.1e, centroids %.1e, medoids %s, '
                'dbscan %s'
                % (
                    case,
                    same,
                    rel,
                    labels_equal,
                    np.abs(probs - np.array(g['canonical']['probabilities'])).max(),
                    np.abs(apm - np.array(g['all_points_membership'])).max(),
                    np.abs(mv - np.array(g['membership_new']['vectors'])).max(),
                    np.abs(centroids - np.array(g['centroids'])).max(),
                    medoid_rows == g['medoid_rows'],
                    dbscan_equal,
                )
            )
    raise SystemExit(0 if ok else 1)


if __name__ == '__main__':
    main()
