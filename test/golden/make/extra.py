#!/usr/bin/env python3
"""Golden outputs for issue 21 (soft clustering, DBSCAN*, centres) from scikit-learn-contrib hdbscan's own code.

Library: scikit-learn-contrib hdbscan 0.8.43, commit b792840bcdfe46bbc29bdc21424a7e01f41d6416, built from source
(see test/golden/hdbscan-extra/README.md for the build); centres: scikit-learn's HDBSCAN._weighted_cluster_center
lines (sklearn/cluster/_hdbscan/hdbscan.py), written out below because scikit-learn >= 1.3 is not installable here.

Every case is fed the canonical mutual-reachability MST (test/golden/README.md): the unique minimum spanning tree
under the order (weight, min(u, v), max(u, v)) of hdbscan's own mutual-reachability matrix (hdbscan's
`mutual_reachability` on sklearn's `pairwise_distances`, exactly as `_hdbscan_generic` builds it), found here by
Kruskal over all pairs in that order; single-linkage rows come from hdbscan's `label()` on the edges (min, max, w)
in that order. hdbscan's tree code (`_tree_to_labels`) then gives the canonical labels and probabilities, and an
HDBSCAN object carrying that canonical state (no `fit`) gives prediction data, membership vectors and DBSCAN* cuts.

Command (from the repository root):
    HDBSCAN_SRC=/tmp/hdbscan-src /usr/bin/python3 test/golden/make/extra.py test/golden
"""

import gzip
import json
import os
import platform
import sys

import numpy as np

sys.path.insert(0, os.environ.get('HDBSCAN_SRC', '/tmp/hdbscan-src'))

import hdbscan  # noqa: E402
import scipy  # noqa: E402
import sklearn  # noqa: E402
from hdbscan._hdbscan_linkage import label  # noqa: E402
from hdbscan._hdbscan_reachability import mutual_reachability  # noqa: E402
from hdbscan.hdbscan_ import HDBSCAN, _tree_to_labels  # noqa: E402
from hdbscan.prediction import all_points_membership_vectors, membership_vector  # noqa: E402
from scipy.spatial.distance import cdist  # noqa: E402
from sklearn.metrics import pairwise_distances  # noqa: E402

HDBSCAN_VERSION = '0.8.43'
HDBSCAN_COMMIT = 'b792840bcdfe46bbc29bdc21424a7e01f41d6416'
SKLEARN_CENTERS_SOURCE = (
    'scikit-learn sklearn/cluster/_hdbscan/hdbscan.py HDBSCAN._weighted_cluster_center, '
    'commit 007c340c834777fc3cf26db65aa6b630f40a5c02 (same lines since 1.3.0)'
)

# (case, source folder of points.csv or None for new points, params)
CASES = [
    ('blobs2d-1000', 'hdbscan/blobs2d-1000', dict(min_cluster_size=15, min_samples=1)),
    ('moons-1500', 'hdbscan/moons-1500', dict(min_cluster_size=20, min_samples=1)),
    ('blobs3d-900', None, dict(min_cluster_size=20, min_samples=5)),
    ('blobs10d-800', None, dict(min_cluster_size=20, min_samples=5)),
    ('duplicates-650', 'hdbscan/duplicates-650', dict(min_cluster_size=10, min_samples=4)),
    ('noisy2d-900', None, dict(min_cluster_size=40, min_samples=8)),
    ('single-blob-600', 'hdbscan/single-blob-600', dict(min_cluster_size=50, min_samples=5, allow_single_cluster=True)),
]


def new_points(case):
    """Seeded float32 point sets for the cases test/golden/hdbscan/ does not have."""
    if case == 'blobs3d-900':
        rng = np.random.default_rng(2103)
        centres = rng.uniform(-10, 10, size=(4, 3))
        sizes = [300, 250, 200, 150]
        pts = np.vstack([rng.normal(c, s, size=(m, 3)) for c, s, m in zip(centres, [1.0, 1.5, 0.7, 2.0], sizes)])
        names = ['x', 'y', 'z']
    elif case == 'blobs10d-800':
        rng = np.random.default_rng(2114)
        centres = rng.uniform(-6, 6, size=(4, 10))
        sizes = [250, 200, 200, 150]
        pts = np.vstack([rng.normal(c, s, size=(m, 10)) for c, s, m in zip(centres, [1.0, 1.2, 0.8, 1.5], sizes)])
        names = ['x%d' % i for i in range(10)]
    elif case == 'noisy2d-900':
        # 60 % uniform background noise over three small blobs.
        rng = np.random.default_rng(2160)
        blobs = [rng.normal(c, 0.6, size=(120, 2)) for c in ([-5.0, -4.0], [4.0, 3.0], [-3.0, 5.0])]
        noise = rng.uniform(-10, 10, size=(540, 2))
        pts = np.vstack(blobs + [noise])
        names = ['x', 'y']
    else:
        raise ValueError(case)
    return pts.astype(np.float32), names


def read_csv_gz(path):
    with gzip.open(path, 'rt') as f:
        header = f.readline().strip().split(',')
        data = np.loadtxt(f, delimiter=',', dtype=np.float64, ndmin=2)
    return data, header


def write_csv_gz(path, pts32, names):
    lines = [','.join(names)] + [','.join(repr(float(v)) for v in row) for row in pts32]
    write_gz(path, ('\n'.join(lines) + '\n').encode())


def write_gz(path, data):
    # gzip -9n: no name, mtime 0.
    with open(path, 'wb') as raw:
        with gzip.GzipFile(filename='', mode='wb', compresslevel=9, fileobj=raw, mtime=0) as f:
            f.write(data)


def canonical_mst(mr):
    """Unique MST of the dense matrix under (weight, min, max): Kruskal over all pairs i < j in that order."""
    n = mr.shape[0]
    iu, ju = np.triu_indices(n, k=1)
    w = mr[iu, ju]
    order = np.lexsort((ju, iu, w))
    parent = np.arange(n)

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    edges = []
    for e in order:
        a, b = find(iu[e]), find(ju[e])
        if a != b:
            parent[a] = b
            edges.append((int(iu[e]), int(ju[e]), float(w[e])))
            if len(edges) == n - 1:
                break
    return np.array(edges, dtype=np.float64)  # rows (min, max, w), already in (w, min, max) order


def ties(weights):
    w = np.sort(weights)
    d = np.diff(w)
    exact = bool((d == 0).any())
    rel = d / np.maximum(np.abs(w[1:]), 1e-300)
    near = bool(((d > 0) & (rel < 1e-6)).any())
    return exact, near


def cut_distances(weights):
    """Three DBSCAN* cuts near the 50/85/97 % quantiles of the distinct MST weights, each halfway across the widest
    relative gap between adjacent distinct weights within 20 places of the quantile (so no weight sits near a cut)."""
    w = np.unique(weights)
    w = w[w > 0]
    cuts = []
    for q in (0.5, 0.85, 0.97):
        i = int(q * (len(w) - 1))
        lo, hi = max(i - 20, 0), min(i + 20, len(w) - 2)
        j = max(range(lo, hi + 1), key=lambda j: (w[j + 1] - w[j]) / w[j + 1])
        cuts.append((float(0.5 * (w[j] + w[j + 1])), float((w[j + 1] - w[j]) / w[j + 1])))
    return cuts


def sklearn_centers(X, labels, probabilities):
    """scikit-learn's _weighted_cluster_center, line for line (metric='euclidean', no metric params)."""
    n_clusters = len(set(labels) - {-1, -2})
    centroids = np.empty((n_clusters, X.shape[1]), dtype=np.float64)
    medoids = np.empty((n_clusters, X.shape[1]), dtype=np.float64)
    medoid_rows, medoid_margin = [], []
    for idx in range(n_clusters):
        mask = labels == idx
        data = X[mask]
        strength = probabilities[mask]
        centroids[idx] = np.average(data, weights=strength, axis=0)
        dist_mat = pairwise_distances(data, metric='euclidean')
        dist_mat = dist_mat * strength
        medoid_index = np.argmin(dist_mat.sum(axis=1))
        medoids[idx] = data[medoid_index]
        medoid_rows.append(int(np.flatnonzero(mask)[medoid_index]))
        # Not scikit-learn: the same sums with exact distances, to show how safe "medoids equal" is.
        exact = (cdist(data, data) * strength).sum(axis=1)
        assert int(np.argmin(exact)) == int(medoid_index), 'sklearn medoid differs from the exact-distance one'
        s = np.sort(exact)
        medoid_margin.append(float((s[1] - s[0]) / s[0]) if len(s) > 1 and s[0] > 0 else None)
    return centroids, medoids, medoid_rows, medoid_margin


def query_points(X32, rng):
    """40 jittered training points, then 20 uniform ones over the bounding box (float32-exact)."""
    X = X32.astype(np.float64)
    pick = rng.choice(X.shape[0], size=40, replace=False)
    spread = X.std(axis=0)
    jitter = X[pick] + rng.normal(0, 0.05, size=(40, X.shape[1])) * spread
    lo, hi = X.min(axis=0), X.max(axis=0)
    uniform = rng.uniform(lo, hi, size=(20, X.shape[1]))
    return np.vstack([jitter, uniform]).astype(np.float32)


def fnum(x):
    x = float(x)
    if np.isinf(x):
        return 'Infinity' if x > 0 else '-Infinity'
    if np.isnan(x):
        return 'NaN'
    return x


def run_case(root, case, src, params):
    out = os.path.join(root, 'hdbscan-extra', case)
    os.makedirs(out, exist_ok=True)
    if src is None:
        X32, names = new_points(case)
        write_csv_gz(os.path.join(out, 'points.csv.gz'), X32, names)
        points_file = 'points.csv'
        X, _ = read_csv_gz(os.path.join(out, 'points.csv.gz'))
        assert np.array_equal(X, X32.astype(np.float64)), 'points.csv is not float32-exact'
    else:
        X, names = read_csv_gz(os.path.join(root, src, 'points.csv.gz'))
        X32 = X.astype(np.float32)
        assert np.array_equal(X, X32.astype(np.float64))
        points_file = '../../' + src + '/points.csv'
    n, dim = X.shape

    mcs = params['min_cluster_size']
    ms = params['min_samples']
    single = params.get('allow_single_cluster', False)
    ms_eff = min(n - 1, ms) or 1  # hdbscan(): min_samples = min(size - 1, min_samples), 0 -> 1

    # hdbscan's own mutual reachability, as _hdbscan_generic computes it.
    D = pairwise_distances(X, metric='minkowski', p=2)
    mr = mutual_reachability(D, ms_eff, 1.0)
    mst = canonical_mst(mr)
    slt = label(mst)
    labels, probabilities, stabilities, condensed, slt = _tree_to_labels(
        X, slt, mcs, 'eom', single, False, 0.0, 0.0, 0, float('inf')
    )
    exact_ties, near_ties = ties(mst[:, 2])

    # Cross-check against test/golden/hdbscan's canonical block where the case is there.
    checked_against = None
    if src is not None:
        tag = 'mcs%d-ms%d%s' % (mcs, ms, '-single' if single else '')
        ref_path = os.path.join(root, src, tag + '.json.gz')
        if os.path.exists(ref_path):
            with gzip.open(ref_path, 'rt') as f:
                ref = json.load(f)['canonical']
            ref_mst = np.array(ref['mst_edges'], dtype=np.float64)
            assert np.array_equal(ref_mst[:, :2], mst[:, :2]), 'MST differs from test/golden/hdbscan canonical'
            assert np.allclose(ref_mst[:, 2], mst[:, 2], rtol=1e-12, atol=0)
            assert np.array_equal(np.array(ref['labels']), labels)
            for key, ours in (('parent', 'parent'), ('child', 'child'), ('child_size', 'child_size')):
                assert np.array_equal(np.array(ref['condensed_tree'][key]), condensed[ours])
            assert np.allclose(np.array(ref['probabilities']), probabilities, rtol=1e-12, atol=1e-12)
            checked_against = (
                '../../' + src + '/' + tag + '.json (canonical: same MST, condensed tree, labels, probabilities)'
            )

    # An HDBSCAN object holding the canonical state; prediction data from hdbscan's generate_prediction_data().
    c = HDBSCAN(
        min_cluster_size=mcs, min_samples=ms, allow_single_cluster=single, algorithm='generic', prediction_data=True
    )
    c._raw_data = X
    c.labels_ = labels
    c.probabilities_ = probabilities
    c.cluster_persistence_ = stabilities
    c._condensed_tree = condensed
    c._single_linkage_tree = slt
    c._min_spanning_tree = mst
    c.generate_prediction_data()

    selected = [int(s) for s in sorted(c.condensed_tree_._select_clusters())]
    k = len(selected)
    apm = all_points_membership_vectors(c)
    rng = np.random.default_rng(2100 + sum(map(ord, case)))
    Q32 = query_points(X32, rng)
    mv = membership_vector(c, Q32.astype(np.float64))

    cuts = cut_distances(mst[:, 2])
    dbscan = []
    for cut, gap in cuts:
        dl = c.dbscan_clustering(cut, min_cluster_size=mcs)
        dbscan.append(
            dict(
                cut_distance=cut,
                gap_rel=gap,
                labels=[int(v) for v in dl],
                n_clusters=int(len(set(dl.tolist()) - {-1})),
                n_noise=int((dl == -1).sum()),
            )
        )

    centroids, medoids, medoid_rows, medoid_margin = sklearn_centers(X, labels, probabilities)
    for i in range(k):  # hdbscan's own weighted_cluster_centroid / _medoid agree with scikit-learn's lines
        assert np.array_equal(c.weighted_cluster_centroid(i), centroids[i])
        assert np.array_equal(c.weighted_cluster_medoid(i), medoids[i])

    tag = 'mcs%d-ms%d%s' % (mcs, ms, '-single' if single else '')
    result = dict(
        made_by=(
            'scikit-learn-contrib hdbscan %s (commit %s) prediction.all_points_membership_vectors, '
            'prediction.membership_vector, HDBSCAN.dbscan_clustering on the canonical MST of %s; centres: %s. '
            'Command: HDBSCAN_SRC=/tmp/hdbscan-src /usr/bin/python3 test/golden/make/extra.py test/golden'
        )
        % (HDBSCAN_VERSION, HDBSCAN_COMMIT, points_file, SKLEARN_CENTERS_SOURCE),
        versions=dict(
            hdbscan=HDBSCAN_VERSION,
            hdbscan_commit=HDBSCAN_COMMIT,
            python=platform.python_version(),
            numpy=np.__version__,
            scipy=scipy.__version__,
            sklearn=sklearn.__version__,
        ),
        input=points_file,
        params=dict(
            min_cluster_size=mcs,
            min_samples=ms,
            cluster_selection_method='eom',
            allow_single_cluster=single,
            cluster_selection_epsilon=0.0,
            max_cluster_size=0,
            alpha=1.0,
            metric='euclidean',
        ),
        min_samples_effective=ms_eff,
        n=n,
        dim=dim,
        n_clusters=k,
        n_noise=int((labels == -1).sum()),
        exact_ties=exact_ties,
        near_ties=near_ties,
        checked_against=checked_against,
        canonical=dict(
            labels=[int(v) for v in labels],
            probabilities=[fnum(v) for v in probabilities],
            mst_total_weight=float(mst[:, 2].sum()),
            mst_edges=[[int(a), int(b), float(w)] for a, b, w in mst],
            condensed_tree=dict(
                parent=[int(v) for v in condensed['parent']],
                child=[int(v) for v in condensed['child']],
                **{'lambda': [fnum(v) for v in condensed['lambda_val']]},
                child_size=[int(v) for v in condensed['child_size']],
            ),
        ),
        selected_clusters=selected,
        exemplar_counts=[int(len(e)) for e in c.prediction_data_.exemplars],
        all_points_membership=[[fnum(v) for v in row] for row in np.atleast_2d(apm).reshape(n, -1)]
        if k > 0
        else [],
        membership_new=dict(
            points=[[float(v) for v in row] for row in Q32],
            vectors=[[fnum(v) for v in row] for row in mv],
        ),
        dbscan=dict(min_cluster_size=mcs, cuts=dbscan),
        centroids=[[float(v) for v in row] for row in centroids],
        medoids=[[float(v) for v in row] for row in medoids],
        medoid_rows=medoid_rows,
        medoid_margin=medoid_margin,
    )
    write_gz(os.path.join(out, tag + '.json.gz'), json.dumps(result, separators=(',', ':')).encode())
    print(
        '%-16s n=%d d=%d k=%d noise=%d exact_ties=%s near_ties=%s cuts=%s checked=%s'
        % (case, n, dim, k, result['n_noise'], exact_ties, near_ties,
           [(round(d['cut_distance'], 4), d['n_clusters'], '%.1e' % d['gap_rel']) for d in dbscan], bool(checked_against))
        + ' medoid_margin_min=%s' % min([m for m in medoid_margin if m is not None], default=None)
    )
    return dict(case=case, params=tag, n=n, d=dim, n_clusters=k, n_noise=result['n_noise'],
                exact_ties=exact_ties, near_ties=near_ties, input=points_file)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else 'test/golden'
    index = [run_case(root, case, src, params) for case, src, params in CASES]
    write_gz(os.path.join(root, 'hdbscan-extra', 'index.json.gz'), json.dumps(index, indent=1).encode())


if __name__ == '__main__':
    main()
