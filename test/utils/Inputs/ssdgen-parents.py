#!/usr/bin/env python3
"""Checks what `ssdgen.py gen --parents` wrote and what `ssdgen.py ref` makes
of it, for test/utils/ssdgen-parents.test:

  ssdgen-parents.py shape DIR [--order bfs|dfs]
      every entry of DIR/token_parents.npy in [-1, j); with --order, each
      tree numbered in that order; prints one line per sequence (tokens,
      kind, depth, branching).
  ssdgen-parents.py unroll DIR
      ssdgen's reference of DIR against the reference of the same tokens
      laid out as linear sequences, one per token (its path from the
      initial state): the token's y row and state (every token given a
      checkpoint slot) must agree bit for bit, since both perform the same
      updates in the same order; a writing sequence's final state must be
      its last token's.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "utils"))
import ssdgen  # noqa: E402


def sequences(arrs):
    qsl = arrs["query_start_loc"]
    parents = arrs["token_parents"]
    for b in range(len(qsl) - 1):
        lo, hi = int(qsl[b]), int(qsl[b + 1])
        yield b, lo, [int(v) for v in parents[lo:hi]]


def depths(p):
    out = []
    for v in p:
        out.append(1 if v < 0 else out[v] + 1)
    return out


def in_order(p, order):
    """Whether the tokens are numbered breadth-first (depths never decrease,
    and neither do the parents: siblings follow their parents' order) or
    in preorder (each token's parent is the token before it or one of that
    token's ancestors)."""
    if order == "bfs":
        d = depths(p)
        return d == sorted(d) and p == sorted(p)
    for j in range(1, len(p)):
        a = j - 1
        while a != -1 and a != p[j]:
            a = p[a]
        if a != p[j]:
            return False
    return True


def cmd_shape(args):
    arrs = ssdgen.load_inputs(args.dir)
    parents = arrs["token_parents"]
    if parents is None or parents.dtype != np.int32 or parents.shape != (
            arrs["x"].shape[0],):
        print("FAIL: token_parents.npy is not int32 [T]")
        return 1
    status = 0
    for b, lo, p in sequences(arrs):
        bad = [j for j, v in enumerate(p) if not -1 <= v < j]
        if bad:
            print("FAIL: sequence %d token %d has parent %d" % (b, bad[0],
                                                               p[bad[0]]))
            return 1
        if args.order and not in_order(p, args.order):
            print("FAIL: sequence %d is not numbered %s: %s"
                  % (b, args.order, p))
            status = 1
        counts = {}
        for v in p:
            counts[v] = counts.get(v, 0) + 1
        kind = ("chain" if p == list(range(-1, len(p) - 1)) else
                "roots" if all(v == -1 for v in p) else "tree")
        print("sequence %d: %d tokens, %s, depth %d, branching %d"
              % (b, len(p), kind, max(depths(p), default=0),
                 max(counts.values(), default=0)))
    return status


def cmd_unroll(args):
    tree = ssdgen.load_inputs(args.dir)
    qsl = tree["query_start_loc"]
    T, S = tree["x"].shape[0], tree["ssm_pool"].shape[0]
    batch = len(qsl) - 1
    slots = ssdgen.writers(tree)
    init = tree["has_initial_state"]
    # The tree's call, every token of a sequence that is not padding given
    # a checkpoint slot of its own (interval 1: column j is token j), from
    # S on.
    K = max([int(qsl[b + 1] - qsl[b]) for b in range(batch)] + [1])
    ck = np.full((batch, K), -1, np.int64)
    for b, lo, p in sequences(tree):
        if slots[b][0] is not None:
            ck[b, :len(p)] = S + lo + np.arange(len(p))
    pool = np.concatenate([tree["ssm_pool"], tree["ssm_pool"][:1].repeat(
        T, axis=0)])
    tree_call = dict(tree, ssm_pool=pool, checkpoint_offsets=None,
                     checkpoint_slots=ck.astype(np.uint32).view(np.int32))
    y_tree, pool_tree = ssdgen.reference(tree_call, "f32", interval=1)
    # One linear sequence per token, its path from the initial state,
    # reading its sequence's slot (a copy of it, from S on) and writing its
    # final state there.
    rows, lengths, ci, hi = [], [], [], []
    for b, lo, p in sequences(tree):
        for j in range(len(p)):
            path, a = [], j
            while a != -1:
                path.append(lo + a)
                a = p[a]
            rows += path[::-1]
            lengths.append(len(path))
            slot = slots[b][0]
            ci.append(ssdgen.PADDING if slot is None else S + lo + j)
            hi.append(init is None or bool(init[b]))
    copies = np.stack([tree["ssm_pool"][slots[b][0] if slots[b][0] is not None
                                        else 0]
                       for b, lo, p in sequences(tree) for _ in p]
                      or [tree["ssm_pool"][0]])
    pool = np.concatenate([tree["ssm_pool"], copies])
    linear = {k: tree[k] for k in ["A", "D", "dt_bias"]}
    for k in ["x", "dt", "B", "C"]:
        linear[k] = tree[k][rows]
    linear.update(
        ssm_pool=pool,
        query_start_loc=np.concatenate([[0], np.cumsum(lengths)]).astype(
            np.int32),
        cache_indices=np.array(ci, np.uint32).view(np.int32),
        has_initial_state=np.array(hi, np.bool_),
        update_state=None, checkpoint_slots=None, checkpoint_offsets=None,
        token_parents=None)
    y_lin, pool_lin = ssdgen.reference(linear, "f32")
    last = np.cumsum(lengths) - 1
    y_diff = int(np.sum(y_tree.view(np.uint64) != y_lin[last].view(np.uint64)))
    states = [t for t in range(T) if ci[t] != ssdgen.PADDING]
    s_diff = sum(int(np.sum(pool_tree[S + t].view(np.uint64)
                            != pool_lin[S + t].view(np.uint64)))
                 for t in states)
    # A writing sequence's final state is its last token's, whatever tokens
    # came before.
    f_diff = 0
    for b, lo, p in sequences(tree):
        slot, writes = slots[b]
        if writes and p:
            f_diff += int(np.sum(pool_tree[slot].view(np.uint64)
                                 != pool_tree[S + lo + len(p) - 1].view(
                                     np.uint64)))
    ok = y_diff == s_diff == f_diff == 0
    print("%s unroll tokens=%d states=%d y_differ=%d state_differ=%d "
          "final_differ=%d" % ("PASS" if ok else "FAIL", T, len(states),
                               y_diff, s_diff, f_diff))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("shape")
    s.add_argument("dir")
    s.add_argument("--order", choices=["bfs", "dfs"], default=None)
    u = sub.add_parser("unroll")
    u.add_argument("dir")
    args = ap.parse_args()
    return cmd_shape(args) if args.cmd == "shape" else cmd_unroll(args)


if __name__ == "__main__":
    sys.exit(main())
