"""`ssdgen.py invariance`: scheduling invariance checked bit for bit.

An invariant op (issue 41) promises that every sequence's y rows and every
state it writes are the same bits however the sequence is scheduled. This
driver writes one set of random sequences as several schedules of calls,
runs them with any command, and compares the bits:

  ssdgen.py invariance gen PROBLEM --seed S [--shape H,P,N,G]
            [--model f32|bf16] [--pool f32|bf16] [--no-D] [--no-dt-bias]
            [--checkpoint-interval I] [--sequences K | --lengths L,...]
            [--max-cuts C] [--padding N]
  ssdgen.py invariance run PROBLEM RUN -- CMD...   (CMD with {in} and {out})
  ssdgen.py invariance check PROBLEM RUN [RUN2 ...] [--suite TARGET/FORM]

The schedules, each a problem directory under PROBLEM:

  alone/seqK         sequence K alone in one call: what the others must equal;
  batched            every sequence in one call, in random order, with padding
                     sequences (cache index -1) and random distinct slots;
  split/seqK/callI   sequence K cut at random points into a chain of calls,
                     the state carried through its slot: call I+1 starts from
                     the pool call I wrote (`run` copies it), so a chain only
                     runs in order. The shortest sequence's chain is all single
                     tokens (the decode schedule).

PROBLEM/manifest.json maps each call's y rows and written states to (sequence,
token range) and (sequence, tokens held), so `check` compares like with like.
With --checkpoint-interval every call carries checkpoint_slots and
checkpoint_offsets: a checkpoint is placed by the tokens a sequence holds,
counted over the whole sequence (docs/overview.md, State checkpoints), so the
checkpoint after absolute token n is written by whichever call holds it, and
must be the same bits in every schedule.

`check` compares, bitwise (uint32 views: NaN payloads count), the y rows and
states of `batched` and `split` with `alone`, each `alone` call with the
float64 reference within the contract's tolerance (`ssdgen.py check`), and,
given several runs, every output of each run with the first run's (a cpu run
against a gpu-emu run, serial against chunked). With a bf16 pool a chain's
state is rounded to bf16 between its calls, which invariance does not undo:
only each chain's first call is compared there.
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys

import numpy as np

import ssdgen as gen

MANIFEST = "manifest.json"
# The chained calls' actual inputs (the problem's with the pool the previous
# call wrote), inside a run directory.
CHAINED_INPUTS = "chained-inputs"
# References of the alone calls, inside a run directory.
REFERENCES = "reference"


# ----------------------------------------------------------------------------
# gen
# ----------------------------------------------------------------------------

def _lengths(args, rng):
    """Tokens per sequence: --lengths, or --sequences random lengths in
    [1, --max-length] with the last one short (at most 6 tokens): the
    shortest sequence's chain is one call per token, and every call is a
    process that compiles the op."""
    if args.lengths:
        if min(args.lengths) < 1:
            raise SystemExit("ssdgen invariance: --lengths must be >= 1")
        return list(args.lengths)
    if args.sequences < 1:
        raise SystemExit("ssdgen invariance: --sequences must be >= 1")
    lengths = [int(v) for v in rng.integers(1, args.max_length + 1,
                                            size=args.sequences)]
    lengths[-1] = min(lengths[-1], int(rng.integers(1, 7)))
    return lengths


def _cuts(length, rng, single_tokens, max_cuts):
    """Token ranges [(lo, hi)] of a chain: every token alone, or one to
    max_cuts random cut points (a chain of one call when the sequence has
    one token)."""
    if single_tokens:
        return [(j, j + 1) for j in range(length)]
    points = sorted(set(int(v) for v in rng.integers(
        1, length, size=int(rng.integers(1, max_cuts + 1))))) \
        if length > 1 else []
    bounds = [0] + points + [length]
    return list(zip(bounds[:-1], bounds[1:]))


def _checkpoints(offset, lo, hi, interval):
    """[(local token j, tokens held n)] of the checkpoints a call of tokens
    lo..hi-1 of a sequence that held `offset` tokens before its first writes
    (docs/overview.md, State checkpoints: counted on the whole sequence)."""
    if not interval:
        return []
    return [(j, offset + lo + j + 1) for j, _ in
            gen.checkpoint_boundaries(offset + lo, hi - lo, interval)]


class _Sequence:
    """One sequence's tokens, as rows of the batched call's arrays."""

    def __init__(self, src, b, index):
        self.index = index
        qsl = src["query_start_loc"]
        self.rows = slice(int(qsl[b]), int(qsl[b + 1]))
        self.length = int(qsl[b + 1] - qsl[b])
        self.initial = bool(src["has_initial_state"][b])
        slot = int(src["cache_indices"].reshape(-1).view(np.uint32)[b])
        self.state = src["ssm_pool"][slot] if self.initial else None
        offsets = src["checkpoint_offsets"]
        self.offset = int(offsets[b]) if offsets is not None else 0


# Tokens lo..hi-1 of a _Sequence in a call: its slot, whether it reads its
# initial state there, and the slots of the checkpoints it reaches.
_Piece = collections.namedtuple("_Piece", "seq lo hi slot initial ck_slots")


def _write_call(path, src, pieces, pool, interval):
    """A problem directory of one call of `pieces`, with the batched call's
    shared weights (A, D, dt_bias). Returns the manifest's rows and states
    of the call."""
    out = {name: src[name] for name in ("A", "D", "dt_bias")}
    for name in ("x", "dt", "B", "C"):
        out[name] = np.concatenate(
            [src[name][p.seq.rows][p.lo:p.hi] for p in pieces])
    out["query_start_loc"] = np.concatenate(
        [[0], np.cumsum([p.hi - p.lo for p in pieces])]).astype(np.int32)
    out["cache_indices"] = np.array([p.slot for p in pieces], np.int32)
    out["has_initial_state"] = np.array([p.initial for p in pieces],
                                        np.bool_)
    out["update_state"] = np.ones(len(pieces), np.bool_)
    out["ssm_pool"] = pool
    if interval:
        # Every call of a checkpointed problem has the operands, so that
        # one command line (--checkpoint-interval) runs them all.
        k = max([len(p.ck_slots) for p in pieces] + [1])
        ck = np.full((len(pieces), k), -1, np.int32)
        for b, p in enumerate(pieces):
            ck[b, :len(p.ck_slots)] = p.ck_slots
        out["checkpoint_slots"] = ck
        out["checkpoint_offsets"] = np.array(
            [p.seq.offset + p.lo for p in pieces], np.int32)
    os.makedirs(path)
    for name, v in out.items():
        if v is not None:
            gen._save(path, name, v)
    rows, states = [], []
    row = 0
    for p in pieces:
        s = p.seq
        rows.append([s.index, p.lo, p.hi, row])
        row += p.hi - p.lo
        states.append([s.index, s.offset + p.hi, p.slot])
        for (_, n), c in zip(_checkpoints(s.offset, p.lo, p.hi, interval),
                             p.ck_slots):
            states.append([s.index, n, c])
    return rows, states


def _random_pool(rng, slots, src):
    """A pool of `slots` random slots: a call that reads a slot it should
    not, or does not start from zero where it should, gets other bits than
    the alone call."""
    return rng.standard_normal((slots,) + src["ssm_pool"].shape[1:]).astype(
        np.float32)


def _alone(problem, src, s, rng, interval):
    """Sequence s alone: its slot, its checkpoints' slots and one slot no one
    names, at random positions of a pool of their own."""
    n_ck = len(_checkpoints(s.offset, 0, s.length, interval))
    pool = _random_pool(rng, n_ck + 2, src)
    order = [int(v) for v in rng.permutation(n_ck + 2)]
    slot, ck_slots = order[0], order[1:1 + n_ck]
    if s.initial:
        pool[slot] = s.state
    name = "alone/seq%d" % s.index
    rows, states = _write_call(os.path.join(problem, name), src,
                               [_Piece(s, 0, s.length, slot, s.initial,
                                       ck_slots)],
                               pool, interval)
    return [dict(name=name, schedule="alone", rows=rows, states=states)]


def _chain(problem, src, s, rng, interval, single_tokens, max_cuts):
    """Sequence s as a chain of calls through one slot. The pool holds every
    checkpoint of the chain in a slot of its own; the later calls' pool files
    are placeholders (the first call's pool), which `run` replaces with the
    pool the previous call wrote."""
    cuts = _cuts(s.length, rng, single_tokens, max_cuts)
    per_call = [len(_checkpoints(s.offset, lo, hi, interval))
                for lo, hi in cuts]
    slots = [int(v) for v in rng.permutation(sum(per_call) + 2)]
    slot = slots.pop()
    pool = _random_pool(rng, len(slots) + 1, src)
    if s.initial:
        pool[slot] = s.state
    calls = []
    for i, (lo, hi) in enumerate(cuts):
        ck_slots, slots = slots[:per_call[i]], slots[per_call[i]:]
        name = "split/seq%d/call%d" % (s.index, i)
        rows, states = _write_call(
            os.path.join(problem, name), src,
            [_Piece(s, lo, hi, slot, s.initial or i > 0, ck_slots)], pool,
            interval)
        calls.append(dict(name=name, schedule="split", rows=rows,
                          states=states, chain=s.index,
                          pool_from=calls[-1]["name"] if calls else None))
    return calls


def _batched(src, by_entry, interval):
    """The manifest's entry of the batched call (written by generate):
    by_entry maps its sequence indices to the _Sequences."""
    call = dict(name="batched", schedule="batched", rows=[], states=[])
    ci = src["cache_indices"].reshape(-1).view(np.uint32)
    for b, s in sorted(by_entry.items()):
        call["rows"].append([s.index, 0, s.length, s.rows.start])
        call["states"].append([s.index, s.offset + s.length, int(ci[b])])
    for b, j, slot in gen.checkpoint_writes(src, interval):
        if b in by_entry:
            s = by_entry[b]
            call["states"].append([s.index, s.offset + j + 1, slot])
    return call


def cmd_gen(args):
    """Writes the schedules and the manifest. The batched call comes first,
    from ssdgen's generate (its random slots, initial states and padding);
    every other call takes its sequences' rows and initial states from it."""
    H, P, N, G = args.shape
    rng = np.random.default_rng([args.seed, 41])
    lengths = _lengths(args, rng)
    interval = args.checkpoint_interval
    if args.max_cuts < 1 or args.padding < 0:
        raise SystemExit("ssdgen invariance: --max-cuts must be >= 1 and "
                         "--padding >= 0")
    if interval is not None and interval < 1:
        raise SystemExit("ssdgen invariance: --checkpoint-interval must be "
                         ">= 1")
    # Padding sequences of 0 to 8 tokens among the real ones, in random order.
    entries = [("seq", k, n) for k, n in enumerate(lengths)] + [
        ("pad", k, int(rng.integers(0, 9))) for k in range(args.padding)]
    entries = [entries[i] for i in rng.permutation(len(entries))]
    if os.path.isdir(args.problem):
        shutil.rmtree(args.problem)
    batched = os.path.join(args.problem, "batched")
    src = gen.generate(
        batched, [n for _, _, n in entries], H=H, P=P, N=N, G=G,
        seed=args.seed, with_D=args.D, with_dt_bias=args.dt_bias,
        initial="all", update="all",
        padding=[b for b, e in enumerate(entries) if e[0] == "pad"],
        checkpoint_interval=interval,
        checkpoint_offsets=[int(v) for v in rng.integers(
            0, 3 * interval, size=len(entries))] if interval else None)
    # About half the sequences start from a state; at least one does and
    # one does not (the first two).
    real = [b for b, e in enumerate(entries) if e[0] == "seq"]
    initial = rng.random(len(entries)) < 0.5
    initial[real[0]] = False
    if len(real) > 1:
        initial[real[1]] = True
    src["has_initial_state"] = initial
    gen._save(batched, "has_initial_state", initial)

    by_entry = {b: _Sequence(src, b, entries[b][1]) for b in real}
    seqs = sorted(by_entry.values(), key=lambda s: s.index)
    calls = []
    for s in seqs:
        calls += _alone(args.problem, src, s, rng, interval)
    calls.append(_batched(src, by_entry, interval))
    decode = min(seqs, key=lambda s: s.length)
    for s in seqs:
        calls += _chain(args.problem, src, s, rng, interval, s is decode,
                        args.max_cuts)
    manifest = dict(
        seed=args.seed, shape=dict(H=H, P=P, N=N, G=G), model=args.model,
        pool=args.pool, checkpoint_interval=interval,
        sequences=[dict(length=s.length, initial=s.initial, offset=s.offset)
                   for s in seqs],
        calls=calls)
    with open(os.path.join(args.problem, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1)
    print("ssdgen invariance gen: wrote %s (%d sequences of %s tokens, %d "
          "padding; %d calls: %d alone, 1 batched, %d split in %d chains, "
          "sequence %d one token per call%s)"
          % (args.problem, len(seqs), ",".join(str(n) for n in lengths),
             args.padding, len(calls), len(seqs), len(calls) - len(seqs) - 1,
             len(seqs), decode.index,
             ", checkpoints every %d tokens" % interval if interval else ""))
    return 0


# ----------------------------------------------------------------------------
# run
# ----------------------------------------------------------------------------

def load_manifest(problem):
    try:
        with open(os.path.join(problem, MANIFEST)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit("ssdgen invariance: %s is not a problem written by "
                         "`invariance gen`: %s" % (problem, e))


def problem_flags(manifest):
    """ssd-run's flags for what the problem fixes: the model and pool dtypes
    and the checkpoint interval."""
    flags = ["--dtype", manifest["model"], "--pool-dtype", manifest["pool"]]
    if manifest["checkpoint_interval"]:
        flags += ["--checkpoint-interval",
                  str(manifest["checkpoint_interval"])]
    return flags


def _command(template, inputs, outputs, flags):
    """CMD with {in} and {out} filled in; the problem's flags go where an
    argument reads {flags}, else at the end."""
    cmd = []
    for arg in template:
        if arg == "{flags}":
            cmd += flags
        else:
            cmd.append(arg.replace("{in}", inputs).replace("{out}", outputs))
    return cmd if "{flags}" in template else cmd + flags


def cmd_run(args):
    """Runs every call in the manifest's order; a chained call runs on a copy
    of its problem directory holding the pool its predecessor wrote."""
    manifest = load_manifest(args.problem)
    template = args.command[1:] if args.command[:1] == ["--"] else \
        args.command
    if not template:
        raise SystemExit("ssdgen invariance run: no command after --")
    flags = problem_flags(manifest)
    if os.path.isdir(args.run):
        shutil.rmtree(args.run)
    for call in manifest["calls"]:
        inputs = os.path.join(args.problem, call["name"])
        outputs = os.path.join(args.run, call["name"])
        if call.get("pool_from"):
            chained = os.path.join(args.run, CHAINED_INPUTS, call["name"])
            shutil.copytree(inputs, chained)
            shutil.copyfile(
                gen._path(os.path.join(args.run, call["pool_from"]),
                          "ssm_pool"), gen._path(chained, "ssm_pool"))
            inputs = chained
        os.makedirs(outputs)
        cmd = _command(template, inputs, outputs, flags)
        done = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True)
        if done.returncode != 0:
            sys.stdout.write(done.stdout)
            print("ssdgen invariance run: %s failed (exit %d): %s"
                  % (call["name"], done.returncode, " ".join(cmd)))
            return 1
    print("ssdgen invariance run: %d calls into %s"
          % (len(manifest["calls"]), args.run))
    return 0


# ----------------------------------------------------------------------------
# check
# ----------------------------------------------------------------------------

def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def _value(v):
    """A float32 as its bits and its value."""
    v = np.float32(v)
    return "0x%08x (%.9g)" % (int(np.array(v).view(np.uint32)), float(v))


class _Outputs:
    """y.npy and ssm_pool.npy of each call of a run, loaded once."""

    def __init__(self, run):
        self.run = run
        self.cache = {}

    def __call__(self, call, name):
        key = (call, name)
        if key not in self.cache:
            path = gen._path(os.path.join(self.run, call), name)
            try:
                self.cache[key] = np.load(path)
            except (OSError, ValueError) as e:
                raise SystemExit("ssdgen invariance check: cannot load %s: %s"
                                 % (path, e))
        return self.cache[key]


class _Tally:
    """One comparison's count of y row blocks, states and values compared,
    the values that differ, and where the first difference was."""

    def __init__(self, what, kinds):
        self.what = what
        self.counts = dict.fromkeys(kinds, 0)
        self.values = self.differ = 0
        self.first = None

    def compare(self, kind, got, want, where):
        """`where(index)` names an element by its index in `got` (None: the
        whole array)."""
        self.counts[kind] += 1
        self.values += got.size
        if got.shape != want.shape:
            self.differ += got.size
            self.first = self.first or "%s: shape %s, expected %s" % (
                where(None), got.shape, want.shape)
            return
        diff = _bits(got) != _bits(want)
        count = int(np.count_nonzero(diff))
        if count and self.first is None:
            i = tuple(int(v) for v in np.argwhere(diff)[0])
            self.first = "%s: %s, expected %s" % (
                where(i), _value(got[i]), _value(want[i]))
        self.differ += count

    def report(self):
        counts = ", ".join("%d %s" % (n, kind)
                           for kind, n in self.counts.items())
        if self.differ:
            print("FAIL %s: %d of %d values differ (%s); first at %s"
                  % (self.what, self.differ, self.values, counts, self.first))
        else:
            print("PASS %s: %d values bit-identical (%s)"
                  % (self.what, self.values, counts))
        return self.differ == 0


def _row_where(call, seq, lo):
    def where(i):
        if i is None:
            return "%s sequence %d y rows" % (call, seq)
        return "%s sequence %d token %d head %d p %d" % (call, seq, lo + i[0],
                                                        i[1], i[2])
    return where


def _state_where(call, seq, held, slot):
    def where(i):
        head = "%s sequence %d state at %d tokens held (slot %d)" % (
            call, seq, held, slot)
        return head if i is None else head + " head %d p %d n %d" % i
    return where


def _alone_outputs(manifest, outputs):
    """(y rows per sequence, {(sequence, tokens held): state}) of the alone
    calls: what every other schedule must reproduce."""
    y, states = {}, {}
    for call in manifest["calls"]:
        if call["schedule"] != "alone":
            continue
        (seq, lo, hi, row), = call["rows"]
        y[seq] = outputs(call["name"], "y")[row:row + hi - lo]
        pool = outputs(call["name"], "ssm_pool")
        for s, held, slot in call["states"]:
            states[(s, held)] = pool[slot]
    return y, states


def check_schedules(manifest, outputs):
    """batched and split against alone, bit for bit; returns True when all
    agree. A state with no alone counterpart (a chain's state between two
    calls, off a checkpoint) is not compared here: the next call starts from
    it, so its bits reach that call's y rows and states."""
    alone_y, alone_states = _alone_outputs(manifest, outputs)
    bf16_pool = manifest["pool"] == "bf16"
    ok = True
    skipped = 0
    for schedule in ("batched", "split"):
        tally = _Tally("%s vs alone" % schedule, ("y row blocks", "states"))
        for call in manifest["calls"]:
            if call["schedule"] != schedule:
                continue
            if bf16_pool and call.get("pool_from"):
                skipped += 1
                continue
            y = outputs(call["name"], "y")
            for seq, lo, hi, row in call["rows"]:
                tally.compare("y row blocks", y[row:row + hi - lo],
                              alone_y[seq][lo:hi],
                              _row_where(call["name"], seq, lo))
            pool = outputs(call["name"], "ssm_pool")
            for seq, held, slot in call["states"]:
                if (seq, held) in alone_states:
                    tally.compare("states", pool[slot],
                                  alone_states[(seq, held)],
                                  _state_where(call["name"], seq, held, slot))
        ok = tally.report() and ok
    if skipped:
        print("SKIP split: %d calls after the first of a chain (a bf16 pool "
              "rounds the state between calls)" % skipped)
    return ok


def check_reference(manifest, problem, run, suite):
    """Each alone call against the float64 reference, by `ssdgen.py check`
    (the contract's tolerance, and the suite's bound with `suite`)."""
    ok = True
    interval = manifest["checkpoint_interval"]
    for call in manifest["calls"]:
        if call["schedule"] != "alone":
            continue
        inputs = os.path.join(problem, call["name"])
        ref = os.path.join(run, REFERENCES, call["name"])
        gen.write_reference(inputs, ref, manifest["model"], manifest["pool"],
                            interval)
        sys.stdout.write("%s vs reference: " % call["name"])
        sys.stdout.flush()
        ok = gen.cmd_check(argparse.Namespace(
            inputdir=inputs, refdir=ref, outdir=os.path.join(
                run, call["name"]), dtype=manifest["model"], tol=None,
            pool_dtype=manifest["pool"], checkpoint_interval=interval,
            suite=suite)) == 0 and ok
    return ok


def check_runs(manifest, first, other, outputs, other_outputs):
    """Every output of `other` against the same call's of `first`, bit for
    bit: y rows named by sequence and token, pool slots by slot."""
    tally = _Tally("%s vs %s" % (other, first), ("y row blocks", "pools"))
    for call in manifest["calls"]:
        name = call["name"]
        for seq, lo, hi, row in call["rows"]:
            tally.compare("y row blocks",
                          other_outputs(name, "y")[row:row + hi - lo],
                          outputs(name, "y")[row:row + hi - lo],
                          _row_where(name, seq, lo))
        pool, want = other_outputs(name, "ssm_pool"), outputs(name,
                                                              "ssm_pool")
        tally.compare("pools", pool, want, lambda i, name=name: (
            "%s ssm_pool" % name if i is None else
            "%s ssm_pool slot %d head %d p %d n %d" % ((name,) + i)))
    return tally.report()


def cmd_check(args):
    manifest = load_manifest(args.problem)
    runs = [(run, _Outputs(run)) for run in args.runs]
    ok = True
    for run, outputs in runs:
        print("run %s:" % run)
        ok = check_reference(manifest, args.problem, run, args.suite) and ok
        ok = check_schedules(manifest, outputs) and ok
    for run, outputs in runs[1:]:
        ok = check_runs(manifest, runs[0][0], run, runs[0][1], outputs) and ok
    return 0 if ok else 1


# ----------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------

def _shape(s):
    values = gen._int_list(s)
    if len(values) != 4 or min(values) < 1:
        raise argparse.ArgumentTypeError("expected H,P,N,G, got '%s'" % s)
    if values[0] % values[3]:
        raise argparse.ArgumentTypeError("H=%d is not a multiple of G=%d"
                                         % (values[0], values[3]))
    return values


def add_parser(sub):
    """The `invariance` subcommand of ssdgen.py."""
    inv = sub.add_parser(
        "invariance", help="schedules of one problem, compared bit for bit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    isub = inv.add_subparsers(dest="invariance_cmd", required=True)

    g = isub.add_parser("gen", help="write the schedules and the manifest")
    g.add_argument("problem")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--shape", type=_shape, default=[4, 16, 16, 2],
                   metavar="H,P,N,G")
    g.add_argument("--model", choices=["f32", "f16", "bf16"], default="f32",
                   help="model dtype (ssd-run's --dtype)")
    g.add_argument("--pool", choices=["f32", "bf16"], default="f32",
                   help="pool dtype (ssd-run's --pool-dtype)")
    g.add_argument("--no-D", dest="D", action="store_false")
    g.add_argument("--no-dt-bias", dest="dt_bias", action="store_false")
    g.add_argument("--checkpoint-interval", type=int, default=None,
                   metavar="I", help="a checkpoint every I tokens of each "
                   "sequence (random offsets in [0, 3*I))")
    g.add_argument("--sequences", type=int, default=4,
                   help="random sequences (the last at most 6 tokens)")
    g.add_argument("--max-length", type=int, default=200)
    g.add_argument("--lengths", type=gen._int_list, default=None,
                   help="tokens per sequence instead of random ones")
    g.add_argument("--max-cuts", type=int, default=3,
                   help="most cut points of a chain (at least one)")
    g.add_argument("--padding", type=int, default=2,
                   help="padding sequences in the batched call")

    r = isub.add_parser(
        "run", help="run every call, chains in order: CMD's {in} and {out} "
        "are a call's input and output dirs; the problem's --dtype, "
        "--pool-dtype and --checkpoint-interval go where an argument reads "
        "{flags}, else at the end")
    r.add_argument("problem")
    r.add_argument("run", help="output dir (replaced)")
    r.add_argument("command", nargs=argparse.REMAINDER,
                   help="-- CMD ARGS...")

    c = isub.add_parser(
        "check", help="batched and split against alone, bit for bit; alone "
        "against the reference; each further RUN against the first")
    c.add_argument("problem")
    c.add_argument("runs", nargs="+", metavar="RUN")
    c.add_argument("--suite", default=None, metavar="TARGET/FORM",
                   help="also hold the alone calls to the suite's bound "
                        "(ssdgen.py check --suite)")


def main(args):
    return {"gen": cmd_gen, "run": cmd_run,
            "check": cmd_check}[args.invariance_cmd](args)
