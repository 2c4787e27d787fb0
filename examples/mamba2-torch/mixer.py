"""A Mamba-2 mixer layer as a torch.nn.Module on ssd_torch (docs/python.md).

    PYTHONPATH=build/python_packages python3 examples/mamba2-torch/mixer.py

in_proj -> causal depthwise conv1d (with a conv-state pool) -> SiLU ->
ssd_torch.chunk_scan_varlen_ (with the SSM-state pool) -> gated RMSNorm ->
out_proj, over a packed batch of variable-length requests, each owning a slot
of both pools, as a serving engine runs it. main() runs a prefill and then
several decode steps for a batch sharing one pool, and checks every step
against the same layer whose scan is the plain torch recurrence below, and
each request's decode outputs against one prefill of its whole sequence.
"""

import torch
import torch.nn.functional as F

import ssd_torch


def plain_scan(x, dt, A, B, C, ssm_pool, query_start_loc, cache_indices, *,
               D=None, dt_bias=None, has_initial_state=None, update_state=None):
    """The op's recurrence (docs/overview.md) in plain torch, same contract."""
    T, H, P = x.shape
    heads_per_group = H // B.shape[1]
    y = torch.empty_like(x)
    for b in range(query_start_loc.numel() - 1):
        slot = int(cache_indices[b])
        reads = slot != -1 and has_initial_state is not None and bool(has_initial_state[b])
        state = ssm_pool[slot].float().clone() if reads else \
            torch.zeros(H, P, B.shape[2])
        for t in range(int(query_start_loc[b]), int(query_start_loc[b + 1])):
            d = dt[t].float()
            if dt_bias is not None:
                d = F.softplus(d + dt_bias.float())
            Bt = B[t].float().repeat_interleave(heads_per_group, 0)
            Ct = C[t].float().repeat_interleave(heads_per_group, 0)
            state = (torch.exp(d * A.float())[:, None, None] * state
                     + d[:, None, None] * x[t].float()[:, :, None] * Bt[:, None, :])
            out = (state * Ct[:, None, :]).sum(-1)
            if D is not None:
                out = out + D.float()[:, None] * x[t].float()
            y[t] = out.to(y.dtype)
        if slot != -1 and (update_state is None or bool(update_state[b])):
            ssm_pool[slot] = state.to(ssm_pool.dtype)
    return y


class Mamba2Mixer(torch.nn.Module):
    def __init__(self, d_model=32, nheads=4, head_dim=8, ngroups=2, dstate=16,
                 d_conv=4, slots=8, scan=ssd_torch.chunk_scan_varlen_):
        super().__init__()
        self.H, self.P, self.G, self.N, self.K = nheads, head_dim, ngroups, dstate, d_conv
        self.d_inner = nheads * head_dim
        self.conv_dim = self.d_inner + 2 * ngroups * dstate
        self.in_proj = torch.nn.Linear(d_model, 2 * self.d_inner + 2 * ngroups * dstate + nheads,
                                       bias=False)
        self.conv = torch.nn.Conv1d(self.conv_dim, self.conv_dim, d_conv,
                                    groups=self.conv_dim)
        self.A_log = torch.nn.Parameter(torch.log(torch.linspace(1, 16, nheads)))
        self.D = torch.nn.Parameter(torch.ones(nheads))
        self.dt_bias = torch.nn.Parameter(torch.log(torch.expm1(torch.linspace(1e-3, 1e-1, nheads))))
        self.norm_weight = torch.nn.Parameter(torch.ones(self.d_inner))
        self.out_proj = torch.nn.Linear(self.d_inner, d_model, bias=False)
        self.scan = scan
        # The per-request state: one slot of each pool per request.
        self.register_buffer("ssm_pool", torch.zeros(slots, nheads, head_dim, dstate))
        self.register_buffer("conv_pool", torch.zeros(slots, self.conv_dim, d_conv - 1))

    def _conv(self, xBC, query_start_loc, cache_indices, has_initial_state):
        """Causal depthwise conv per request, continuing from its conv state."""
        out = torch.empty_like(xBC)
        for b in range(query_start_loc.numel() - 1):
            s, e, slot = int(query_start_loc[b]), int(query_start_loc[b + 1]), int(cache_indices[b])
            history = self.conv_pool[slot] if bool(has_initial_state[b]) else \
                torch.zeros(self.conv_dim, self.K - 1)
            window = torch.cat([history, xBC[s:e].T], dim=1)  # [conv_dim, K-1+len]
            out[s:e] = F.conv1d(window[None], self.conv.weight, self.conv.bias,
                                groups=self.conv_dim)[0].T
            self.conv_pool[slot] = window[:, -(self.K - 1):]
        return out

    def forward(self, hidden, query_start_loc, cache_indices, has_initial_state):
        """hidden [T, d_model] packed; returns [T, d_model]; updates both pools."""
        T = hidden.shape[0]
        z, xBC, dt = torch.split(self.in_proj(hidden),
                                 [self.d_inner, self.conv_dim, self.H], dim=-1)
        xBC = F.silu(self._conv(xBC, query_start_loc, cache_indices, has_initial_state))
        x, B, C = torch.split(xBC, [self.d_inner, self.G * self.N, self.G * self.N], dim=-1)
        y = self.scan(x.reshape(T, self.H, self.P).contiguous(), dt.contiguous(),
                      -torch.exp(self.A_log), B.reshape(T, self.G, self.N).contiguous(),
                      C.reshape(T, self.G, self.N).contiguous(), self.ssm_pool,
                      query_start_loc, cache_indices, D=self.D, dt_bias=self.dt_bias,
                      has_initial_state=has_initial_state)
        # Gated RMSNorm: normalize y * silu(z).
        g = y.reshape(T, self.d_inner) * F.silu(z)
        g = g * torch.rsqrt(g.pow(2).mean(-1, keepdim=True) + 1e-5) * self.norm_weight
        return self.out_proj(g)


def packed(lengths):
    return torch.tensor([0] + torch.tensor(lengths).cumsum(0).tolist(), dtype=torch.int32)


def run(decode_steps=4, seed=0):
    """Prefill + decode through ssd_torch and through plain_scan; returns the
    largest relative difference of any step and of the full-sequence check."""
    torch.manual_seed(seed)
    fast = Mamba2Mixer()
    slow = Mamba2Mixer(scan=plain_scan)
    slow.load_state_dict(fast.state_dict())
    slots = torch.tensor([5, 0, 2], dtype=torch.int32)  # three requests
    lengths = [7, 3, 12]
    d_model = fast.in_proj.in_features
    prompts = [torch.randn(n, d_model) for n in lengths]
    worst = 0.0
    outputs = [[] for _ in lengths]

    def step(inputs, qsl, has_init):
        nonlocal worst
        with torch.no_grad():
            a = fast(inputs, qsl, slots, has_init)
            b = slow(inputs, qsl, slots, has_init)
        worst = max(worst, ((a - b).abs().max() / b.abs().max()).item())
        return a

    out = step(torch.cat(prompts), packed(lengths), torch.zeros(3, dtype=torch.bool))
    qsl = packed(lengths)
    for r in range(3):
        outputs[r].append(out[qsl[r]:qsl[r + 1]])
    tokens = [[] for _ in lengths]
    for _ in range(decode_steps):
        new = torch.randn(3, d_model)
        out = step(new, packed([1, 1, 1]), torch.ones(3, dtype=torch.bool))
        for r in range(3):
            tokens[r].append(new[r:r + 1])
            outputs[r].append(out[r:r + 1])

    # Each request's whole sequence in one prefill, in a fresh layer.
    full_worst = 0.0
    for r in range(3):
        fresh = Mamba2Mixer(scan=plain_scan)
        fresh.load_state_dict(fast.state_dict())
        fresh.ssm_pool.zero_()
        fresh.conv_pool.zero_()
        whole = torch.cat([prompts[r]] + tokens[r])
        with torch.no_grad():
            ref = fresh(whole, packed([whole.shape[0]]), torch.tensor([0], dtype=torch.int32),
                        torch.zeros(1, dtype=torch.bool))
        got = torch.cat(outputs[r])
        full_worst = max(full_worst, ((got - ref).abs().max() / ref.abs().max()).item())
    pool_diff = ((fast.ssm_pool - slow.ssm_pool).abs().max()
                 / slow.ssm_pool.abs().max()).item()
    return worst, full_worst, pool_diff


def main():
    worst, full_worst, pool_diff = run()
    print("per-step max relative difference vs plain recurrence: %.2e" % worst)
    print("decode vs one prefill of each whole sequence:         %.2e" % full_worst)
    print("ssm pool difference:                                  %.2e" % pool_diff)
    ok = max(worst, full_worst, pool_diff) <= 5e-4
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
