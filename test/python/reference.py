"""An independent float64 reference of ssd.chunk_scan_varlen for the tests.

The token-serial recurrence of docs/overview.md written with plain torch
ops, in double precision on the inputs as given (already in their dtype).
Sequences read the pool as it was before the call.
"""

import torch

TOLERANCES = {torch.float32: 5e-4, torch.float16: 1e-2, torch.bfloat16: 3e-2}


def reference(x, dt, A, B, C, pool, qsl, ci, D=None, dt_bias=None,
              has_initial_state=None, update_state=None, checkpoint_slots=None,
              checkpoint_offsets=None, checkpoint_interval=None,
              token_parents=None):
    """Returns (y, pool_after) in float64; pool_after as the op writes it
    before any rounding to the pool's dtype, checkpoints included. With
    token_parents, token j of a sequence updates the state of its parent
    token_parents[t] (a local index; -1: the initial state), and the final
    state is the last token's."""
    T, H, P = x.shape
    G, N = B.shape[1], B.shape[2]
    heads_per_group = H // G
    x, dt, A, B, C = (t.double() for t in (x, dt, A, B, C))
    before = pool.double()
    after = before.clone()
    y = torch.zeros(T, H, P, dtype=torch.float64)
    ci = ci.reshape(-1)
    for b in range(qsl.numel() - 1):
        slot = int(ci[b])
        reads = slot != -1 and has_initial_state is not None and bool(has_initial_state[b])
        initial = before[slot].clone() if reads else torch.zeros(H, P, N, dtype=torch.float64)
        o = int(checkpoint_offsets[b]) if checkpoint_offsets is not None else 0
        states, state = [], initial
        for t in range(int(qsl[b]), int(qsl[b + 1])):
            if token_parents is not None:
                p = int(token_parents[t])
                state = initial if p == -1 else states[p]
            d = dt[t]
            if dt_bias is not None:
                d = torch.nn.functional.softplus(d + dt_bias.double())
            Bt = B[t].repeat_interleave(heads_per_group, 0)  # [H, N]
            Ct = C[t].repeat_interleave(heads_per_group, 0)
            state = (torch.exp(d * A)[:, None, None] * state
                     + d[:, None, None] * x[t][:, :, None] * Bt[:, None, :])
            y[t] = (state * Ct[:, None, :]).sum(-1)
            if D is not None:
                y[t] += D.double()[:, None] * x[t]
            states.append(state)
            # After local token j the sequence holds o + j + 1 tokens; each
            # multiple of the interval is the call's next boundary k.
            held = o + t - int(qsl[b]) + 1
            if checkpoint_slots is not None and slot != -1 and held % checkpoint_interval == 0:
                k = held // checkpoint_interval - o // checkpoint_interval - 1
                if k < checkpoint_slots.shape[1] and int(checkpoint_slots[b, k]) != -1:
                    after[int(checkpoint_slots[b, k])] = state
        if slot != -1 and (update_state is None or bool(update_state[b])):
            after[slot] = state
    return y, after


def random_parents(seqlens, seed, chains=(), max_children=3):
    """token_parents (int32 [T]) of random trees: each token's parent drawn
    among the earlier tokens of its sequence with fewer than `max_children`
    children, and the initial state (-1); the sequences in `chains` are
    linear, written as parents j - 1."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for b, n in enumerate(seqlens):
        if b in chains:
            out += list(range(-1, n - 1))
            continue
        children = {}
        for j in range(n):
            room = [p for p in range(-1, j) if children.get(p, 0) < max_children]
            p = room[int(torch.randint(len(room), (1,), generator=g))]
            children[p] = children.get(p, 0) + 1
            out.append(p)
    return torch.tensor(out, dtype=torch.int32)


def rel_err(out, ref):
    ref = ref.double()
    if ref.numel() == 0:
        return 0.0
    scale = ref.abs().max().item()
    return (out.double() - ref).abs().max().item() / (scale if scale > 0 else 1.0)


def make_inputs(seqlens, H=4, P=8, G=2, N=16, S=None, dtype=torch.float32,
                pool_dtype=torch.float32, with_D=True, with_dt_bias=True, seed=0):
    """Inputs in the ranges of docs/overview.md "Accuracy"."""
    g = torch.Generator().manual_seed(seed)
    T = sum(seqlens)
    batch = len(seqlens)
    S = S if S is not None else batch + 2
    x = torch.randn(T, H, P, generator=g).to(dtype)
    # d log-uniform in [1e-3, 1e-1]; with dt_bias, dt is chosen so that
    # softplus(dt + dt_bias) lands there.
    d = torch.exp(torch.empty(T, H).uniform_(-6.9, -2.3, generator=g))
    dt_bias = torch.empty(H).uniform_(-1, 1, generator=g).to(dtype) if with_dt_bias else None
    dt = (torch.log(torch.expm1(d)) - dt_bias.float()) if with_dt_bias else d
    dt = dt.to(dtype)
    A = torch.empty(H).uniform_(-16, -1, generator=g).to(dtype)
    B = torch.randn(T, G, N, generator=g).to(dtype)
    C = torch.randn(T, G, N, generator=g).to(dtype)
    D = torch.randn(H, generator=g).to(dtype) if with_D else None
    pool = torch.randn(S, H, P, N, generator=g).to(pool_dtype)
    qsl = torch.tensor([0] + list(torch.tensor(seqlens).cumsum(0)), dtype=torch.int32)
    ci = torch.randperm(S, generator=g)[:batch].to(torch.int32)
    return dict(x=x, dt=dt, A=A, B=B, C=C, ssm_pool=pool, query_start_loc=qsl,
                cache_indices=ci, D=D, dt_bias=dt_bias)
