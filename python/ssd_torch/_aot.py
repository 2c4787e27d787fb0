"""The op on CUDA tensors through a kernel library (docs/python.md, "CUDA
tensors"): pure Python over ctypes, no compiled torch extension.

A kernel library (`python3 -m ssd_torch.kernels build`) holds ahead-of-time
variants and C entry points (lib/AOT/Runtime/KernelLibrary.cpp). A call
checks every rule of the op as the CPU op does (same order, same one-line
messages; TorchOps.cpp's checkCall), picks the variant for the tensors'
signature and the device's chip, and launches it on torch's current stream
with the tensors' device pointers: no device allocation and no host
synchronisation per call, so it can be captured in a CUDA graph.

The rules on the index operands' values (query_start_loc, cache_indices,
checkpoints, trees) need their contents on the host: they are checked when
the tensors are on the CPU (the GPU emulator's libraries) or when the
caller passes check_indices=True (a copy to the host and a wait: not for
graph capture); by default a CUDA call trusts them.
"""

import ctypes
import os
import threading

import torch

_ABI_VERSION = 1

# c10::toString of the scalar types, as the CPU op's messages name dtypes.
_TYPE_NAMES = {
    torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
    torch.bfloat16: "BFloat16", torch.int32: "Int", torch.int64: "Long",
    torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte",
    torch.bool: "Bool", torch.complex64: "ComplexFloat",
    torch.complex128: "ComplexDouble",
}
_MODEL = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
_POOL = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16",
         torch.int8: "i8"}
_GPU_CHUNK = (1, 4096)
# The first workspace of a (device, stream); the tests set 0 to see it grow.
_MIN_WORKSPACE = 1 << 16


def _type(t):
    return _TYPE_NAMES.get(t.dtype, str(t.dtype).replace("torch.", ""))


def _shape(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _value_error(message):
    raise ValueError(message)


def _expect_shape(name, t, shape, spelled):
    if list(t.shape) != list(shape):
        _value_error("%s: shape %s does not match %s = [%s]" % (
            name, _shape(t), spelled, ", ".join(str(s) for s in shape)))


def _expect_rank(name, t, rank, spelled):
    if t.dim() != rank:
        _value_error("%s: expected rank %d %s, got shape %s" % (
            name, rank, spelled, _shape(t)))


class KernelLibrary:
    """A loaded kernel library: its target, variants and per-stream
    workspaces."""

    def __init__(self, path, cuda_index=None):
        self.path = os.path.abspath(path)
        if not os.path.exists(self.path):
            raise RuntimeError("kernels: no kernel library at %s (build one with "
                               "`python3 -m ssd_torch.kernels build`, docs/python.md)"
                               % self.path)
        # The CUDA runtime inside loads the kernels at load time, into the
        # primary context of the device SSD_CUDA_DEVICE names.
        saved = os.environ.get("SSD_CUDA_DEVICE")
        if cuda_index is not None:
            os.environ["SSD_CUDA_DEVICE"] = str(cuda_index)
        try:
            if cuda_index is None:
                lib = ctypes.CDLL(self.path)
            else:
                # The runtime makes that context current on this thread;
                # torch's current device is restored after.
                with torch.cuda.device(cuda_index):
                    lib = ctypes.CDLL(self.path)
        except OSError as e:
            raise RuntimeError("kernels: cannot load %s: %s" % (self.path, e)) from None
        finally:
            if cuda_index is not None:
                if saved is None:
                    del os.environ["SSD_CUDA_DEVICE"]
                else:
                    os.environ["SSD_CUDA_DEVICE"] = saved
        self.cuda_index = cuda_index
        try:
            version = lib.ssd_kernels_abi_version()
        except AttributeError:
            raise RuntimeError("kernels: %s is not an ssd kernel library (no "
                               "ssd_kernels_abi_version)" % self.path) from None
        if version != _ABI_VERSION:
            raise RuntimeError("kernels: %s has entry points of version %d, this "
                               "package calls version %d: rebuild it"
                               % (self.path, version, _ABI_VERSION))
        c = ctypes
        lib.ssd_kernels_target.restype = c.c_char_p
        lib.ssd_kernels_list.restype = c.c_int64
        lib.ssd_kernels_list.argtypes = [c.c_char_p, c.c_size_t]
        lib.ssd_kernels_device.restype = c.c_int64
        lib.ssd_kernels_device.argtypes = [c.c_char_p, c.c_size_t]
        lib.ssd_kernels_select.restype = c.c_int64
        lib.ssd_kernels_select.argtypes = [c.c_char_p, c.c_char_p, c.c_size_t]
        lib.ssd_kernels_chip.restype = c.c_char_p
        lib.ssd_kernels_chip.argtypes = [c.c_int64]
        lib.ssd_kernels_check_limits.restype = c.c_int
        lib.ssd_kernels_check_limits.argtypes = [c.c_void_p, c.c_char_p, c.c_size_t]
        lib.ssd_kernels_check_indices.restype = c.c_int
        lib.ssd_kernels_check_indices.argtypes = [c.c_void_p, c.c_void_p,
                                                  c.c_char_p, c.c_size_t]
        lib.ssd_kernels_launch.restype = c.c_int
        lib.ssd_kernels_launch.argtypes = [
            c.c_int64, c.c_int64, c.c_void_p, c.c_void_p, c.c_void_p, c.c_void_p,
            c.c_void_p, c.c_void_p, c.c_void_p, c.c_int64, c.c_uint64,
            c.c_void_p, c.c_char_p, c.c_size_t]
        self._lib = lib
        self.target = lib.ssd_kernels_target().decode()
        self._ids = {}
        self._workspaces = {}
        self._seeds = {}
        self._lock = threading.Lock()
        self._error = ctypes.create_string_buffer(4096)

    def variants(self):
        """(key, chip, format, target) of every compiled variant."""
        n = self._lib.ssd_kernels_list(None, 0)
        buffer = ctypes.create_string_buffer(int(n))
        self._lib.ssd_kernels_list(buffer, n)
        return [tuple(line.split("\t"))
                for line in buffer.value.decode().splitlines()]

    def describe_device(self):
        buffer = ctypes.create_string_buffer(512)
        self._lib.ssd_kernels_device(buffer, 512)
        return buffer.value.decode()

    def select(self, key):
        """The id of the variant of `key` for this device; RuntimeError
        naming the key and the command that builds it when there is none."""
        found = self._ids.get(key)
        if found is not None:
            return found
        error = ctypes.create_string_buffer(4096)
        found = self._lib.ssd_kernels_select(key.encode(), error, 4096)
        if found < 0:
            text = error.value.decode()
            if text.startswith("no variant compiled for"):
                raise RuntimeError(
                    "ssd.chunk_scan_varlen_: the kernel library %s has no variant "
                    "'%s'; build one that does with: %s"
                    % (self.path, key, _build_command(key, self.path)))
            raise RuntimeError("ssd.chunk_scan_varlen_: " + text)
        self._ids[key] = found
        return found

    def chip(self, key):
        return self._lib.ssd_kernels_chip(self.select(key)).decode()

    def check_limits(self, T, H, P, G, N):
        extents = (ctypes.c_int64 * 5)(T, H, P, G, N)
        error = ctypes.create_string_buffer(1024)
        if self._lib.ssd_kernels_check_limits(extents, error, 1024):
            _value_error(error.value.decode())

    def check_indices(self, extents, index):
        """`index`: host tensors (contiguous) or None, in
        ssd_kernels_check_indices order."""
        e = (ctypes.c_int64 * len(extents))(*extents)
        pointers = (ctypes.c_void_p * 7)(*[t.data_ptr() if t is not None else None
                                           for t in index])
        error = ctypes.create_string_buffer(4096)
        if self._lib.ssd_kernels_check_indices(e, pointers, error, 4096):
            _value_error(error.value.decode())

    def workspace(self, device, stream, needed=0):
        """The grow-only workspace of (device, stream): torch memory, kept
        for the next calls on that stream."""
        ws = self._workspaces.get((device, stream))
        if ws is None or ws.numel() < needed:
            size = max(needed, _MIN_WORKSPACE)
            size = (size + 4095) // 4096 * 4096
            ws = torch.empty(size, dtype=torch.uint8, device=device)
            self._workspaces[(device, stream)] = ws
        return ws

    def seed(self, device, value):
        """rounding_seed as a 0-d int64 on the device: a tensor given is used
        as it is; an int is written into a buffer kept per device (a fill on
        the stream, no allocation)."""
        if isinstance(value, torch.Tensor):
            if value.dtype != torch.int64 or value.dim() != 0 or \
                    value.device != torch.device(device):
                _value_error("rounding_seed: a tensor must be a 0-d int64 on x's "
                             "device %s, got %s %s on %s" % (
                                 device, _shape(value), _type(value), value.device))
            return value
        buf = self._seeds.get(device)
        if buf is None:
            buf = torch.empty((), dtype=torch.int64, device=device)
            self._seeds[device] = buf
        buf.fill_(value)
        return buf

    def launch(self, id, operands, written, device, stream):
        """Launches variant `id` on `operands` (tensors in
        ssd::operandLayouts order), growing the workspace when it asks for
        more."""
        n = len(operands)
        ranks, sizes, strides = [], [], []
        for t in operands:
            ranks.append(t.dim())
            sizes.extend(t.shape)
            # Row-major strides: every operand is contiguous here, and a
            # size-1 dimension's torch stride may be anything.
            s, acc = [], 1
            for extent in reversed(t.shape):
                s.append(acc)
                acc *= extent
            strides.extend(reversed(s))
        c = ctypes
        data = (c.c_void_p * n)(*[t.data_ptr() for t in operands])
        r = (c.c_int64 * n)(*ranks)
        sz = (c.c_int64 * max(1, len(sizes)))(*sizes)
        st = (c.c_int64 * max(1, len(strides)))(*strides)
        eb = (c.c_int64 * n)(*[t.element_size() for t in operands])
        wr = (c.c_uint8 * n)(*written)
        needed = c.c_int64(0)
        ws = self.workspace(device, stream)
        # One launch at a time per library: ctypes releases the GIL, and the
        # runtime keeps the first error of the process's calls.
        with self._lock:
            for _ in range(2):
                rc = self._lib.ssd_kernels_launch(
                    id, n, data, r, sz, st, eb, wr, c.c_void_p(ws.data_ptr()),
                    ws.numel(), stream, c.byref(needed), self._error,
                    len(self._error))
                if rc != 1:
                    break
                ws = self.workspace(device, stream, needed.value)
            error = self._error.value.decode()
        if rc != 0:
            raise RuntimeError("ssd.chunk_scan_varlen_: " + (
                error if rc < 0 else
                "the workspace asked for %d bytes twice" % needed.value))


def _build_command(key, library):
    from .kernels import build_command
    return build_command(key, library)


_libraries = {}
_libraries_lock = threading.Lock()


def load(path, cuda_index=None):
    """The kernel library at `path`, loaded once per process."""
    key = os.path.abspath(path)
    with _libraries_lock:
        lib = _libraries.get(key)
        if lib is None:
            lib = KernelLibrary(key, cuda_index)
            _libraries[key] = lib
    return lib


def _library_for(kernels, x):
    if isinstance(kernels, KernelLibrary):
        return kernels
    path = kernels or os.environ.get("SSD_TORCH_KERNELS")
    if not path:
        raise RuntimeError(
            "ssd.chunk_scan_varlen_: tensors on %s need a kernel library: pass "
            "kernels=PATH or set SSD_TORCH_KERNELS (build one with `python3 -m "
            "ssd_torch.kernels build`, docs/python.md)" % x.device)
    return load(path, x.device.index if x.device.type == "cuda" else None)


def chunk_scan_varlen_(x, dt, A, B, C, ssm_pool, query_start_loc, cache_indices,
                       D, dt_bias, has_initial_state, update_state, form,
                       chunk_size, checkpoint_slots, checkpoint_offsets,
                       checkpoint_interval, invariant, token_parents,
                       ssm_pool_scales, pool_dtype, pool_rounding, rounding_seed,
                       kernels, check_indices):
    # The call's own arguments (parseSettings).
    if form not in ("auto", "serial", "chunked"):
        _value_error("form: '%s' is not auto, serial or chunked" % form)
    chunk = 256 if chunk_size is None else chunk_size
    if not _GPU_CHUNK[0] <= chunk <= _GPU_CHUNK[1]:
        _value_error("chunk_size: must be in [%d, %d], got %d"
                     % (_GPU_CHUNK + (chunk,)))
    if pool_rounding not in ("nearest", "stochastic"):
        _value_error("pool_rounding: '%s' is not nearest or stochastic"
                     % pool_rounding)
    stochastic = pool_rounding == "stochastic"
    if stochastic and rounding_seed is None:
        _value_error('rounding_seed: required with pool_rounding="stochastic" '
                     "(give each call its own seed)")
    if not stochastic and rounding_seed is not None:
        _value_error('rounding_seed: given without pool_rounding="stochastic"')
    # checkCheckpointArguments.
    if checkpoint_offsets is not None and checkpoint_slots is None:
        _value_error("checkpoint_offsets: given without checkpoint_slots (offsets "
                     "only place checkpoints)")
    if checkpoint_slots is not None and checkpoint_interval is None:
        _value_error("checkpoint_interval: required with checkpoint_slots")
    if checkpoint_slots is None and checkpoint_interval is not None:
        _value_error("checkpoint_interval: given without checkpoint_slots")
    if checkpoint_interval is not None and checkpoint_interval < 1:
        _value_error("checkpoint_interval: %d is not >= 1" % checkpoint_interval)

    named = [("x", x), ("dt", dt), ("A", A), ("B", B), ("C", C),
             ("ssm_pool", ssm_pool), ("query_start_loc", query_start_loc),
             ("cache_indices", cache_indices)]
    for name, t in (("D", D), ("dt_bias", dt_bias),
                    ("has_initial_state", has_initial_state),
                    ("update_state", update_state),
                    ("checkpoint_slots", checkpoint_slots),
                    ("checkpoint_offsets", checkpoint_offsets),
                    ("token_parents", token_parents),
                    ("ssm_pool_scales", ssm_pool_scales)):
        if t is not None:
            named.append((name, t))
    # checkEveryTensor: each on the library's device (all on x's), none
    # asking for a gradient.
    for name, t in named:
        if not isinstance(t, torch.Tensor):
            _value_error("%s: undefined tensor" % name)
    lib = _library_for(kernels, x)
    on_cuda = lib.target == "cuda"
    for name, t in named:
        if t.device != x.device or t.device.type != ("cuda" if on_cuda else "cpu"):
            raise RuntimeError(
                "%s: tensors on %s are not supported by the kernel library %s "
                "(--target %s: %s tensors%s)" % (
                    name, t.device, lib.path, lib.target,
                    "CUDA" if on_cuda else "CPU",
                    ", all on x's device " + str(x.device) if on_cuda else ""))
        if t.requires_grad and torch.is_grad_enabled():
            _value_error("%s: requires grad; chunk_scan_varlen_ is forward only "
                         "(call it under torch.no_grad() or pass detached tensors)"
                         % name)
    if on_cuda and lib.cuda_index is not None and x.device.index != lib.cuda_index:
        raise RuntimeError(
            "x: tensors on %s, but the kernel library %s was loaded for cuda:%d "
            "(one device per library file; copy the file for another device)"
            % (x.device, lib.path, lib.cuda_index))

    # readDTypes.
    model = _MODEL.get(x.dtype)
    if model is None:
        _value_error("x: dtype %s is not float32, float16 or bfloat16" % _type(x))
    for name, t in named:
        if name in ("x", "ssm_pool", "query_start_loc", "cache_indices",
                    "has_initial_state", "update_state", "checkpoint_slots",
                    "checkpoint_offsets", "token_parents", "ssm_pool_scales"):
            continue
        if t.dtype != x.dtype:
            _value_error("%s: dtype %s differs from x's %s (one model dtype for x, "
                         "dt, A, B, C, D, dt_bias)" % (name, _type(t), _type(x)))
    pool = _POOL.get(ssm_pool.dtype)
    if pool is None and ssm_pool.dtype != torch.uint8:
        _value_error("ssm_pool: dtype %s is not float32, bfloat16, float16, int8, "
                     'or uint8 holding f8E4M3FN codes (pool_dtype="f8e4m3")'
                     % _type(ssm_pool))
    if pool_dtype is None:
        if pool is None:
            _value_error('ssm_pool: a uint8 pool needs pool_dtype="f8e4m3" (the '
                         "tensor holds f8E4M3FN codes)")
    else:
        if pool_dtype not in ("f32", "bf16", "f16", "f8e4m3", "i8"):
            _value_error("pool_dtype: '%s' is not f32, bf16, f16, f8e4m3 or i8"
                         % pool_dtype)
        if pool_dtype != (pool or "f8e4m3"):
            _value_error("pool_dtype: '%s' does not match ssm_pool's dtype %s"
                         % (pool_dtype, _type(ssm_pool)))
        pool = pool_dtype
    if query_start_loc.dtype != torch.int32:
        _value_error("query_start_loc: dtype %s is not int32" % _type(query_start_loc))
    if cache_indices.dtype != torch.int32:
        _value_error("cache_indices: dtype %s is not int32" % _type(cache_indices))
    for name, t in (("checkpoint_slots", checkpoint_slots),
                    ("checkpoint_offsets", checkpoint_offsets),
                    ("token_parents", token_parents)):
        if t is not None and t.dtype != torch.int32:
            _value_error("%s: dtype %s is not int32" % (name, _type(t)))
    for name, t in (("has_initial_state", has_initial_state),
                    ("update_state", update_state)):
        if t is not None and t.dtype != torch.bool:
            _value_error("%s: dtype %s is not bool" % (name, _type(t)))

    # readModelExtents.
    _expect_rank("x", x, 3, "[T, H, P]")
    T, H, P = x.shape
    if H < 1 or P < 1:
        _value_error("x: H and P must be at least 1, got shape %s" % _shape(x))
    _expect_shape("dt", dt, [T, H], "[T, H]")
    _expect_shape("A", A, [H], "[H]")
    _expect_rank("B", B, 3, "[T, G, N]")
    G, N = B.shape[1], B.shape[2]
    _expect_shape("B", B, [T, G, N], "[T, G, N]")
    if G < 1 or N < 1:
        _value_error("B: G and N must be at least 1, got shape %s" % _shape(B))
    lib.check_limits(T, H, P, G, N)
    if H % G:
        _value_error("B: H = %d (from x) is not a multiple of G = %d" % (H, G))
    _expect_shape("C", C, [T, G, N], "[T, G, N]")
    if D is not None:
        _expect_shape("D", D, [H], "[H]")
    if dt_bias is not None:
        _expect_shape("dt_bias", dt_bias, [H], "[H]")

    # readPool.
    _expect_rank("ssm_pool", ssm_pool, 4, "[S, H, P, N]")
    S = ssm_pool.shape[0]
    _expect_shape("ssm_pool", ssm_pool, [S, H, P, N], "[S, H, P, N]")
    if not ssm_pool.is_contiguous():
        _value_error("ssm_pool: not contiguous (the pool is updated in place; "
                     "pass a contiguous pool, e.g. allocated with torch.zeros)")
    if ssm_pool.is_inference() and not torch.is_inference_mode_enabled():
        _value_error("ssm_pool: an inference tensor cannot be updated in place "
                     "outside torch.inference_mode()")
    scaled = pool in ("f8e4m3", "i8")
    if not scaled and ssm_pool_scales is not None:
        _value_error("ssm_pool_scales: given for a %s pool (only 8-bit pools, "
                     "f8e4m3 and i8, have scales)" % pool)
    if scaled and ssm_pool_scales is None:
        _value_error("ssm_pool_scales: required for an %s pool (float32 [S, H, "
                     "P], one scale per row of N codes)" % pool)
    if scaled:
        if ssm_pool_scales.dtype != torch.float32:
            _value_error("ssm_pool_scales: dtype %s is not float32"
                         % _type(ssm_pool_scales))
        _expect_shape("ssm_pool_scales", ssm_pool_scales, [S, H, P], "[S, H, P]")
        if not ssm_pool_scales.is_contiguous():
            _value_error("ssm_pool_scales: not contiguous (updated in place with "
                         "the pool)")
        if ssm_pool_scales.is_inference() and not torch.is_inference_mode_enabled():
            _value_error("ssm_pool_scales: an inference tensor cannot be updated "
                         "in place outside torch.inference_mode()")
    if pool == "f32" and stochastic:
        _value_error("pool_rounding: stochastic has nothing to round in a float32 "
                     "pool")

    # readSequenceExtents.
    _expect_rank("query_start_loc", query_start_loc, 1, "[batch + 1]")
    if query_start_loc.shape[0] < 1:
        _value_error("query_start_loc: needs at least one offset (shape "
                     "[batch + 1])")
    batch = query_start_loc.shape[0] - 1
    ci = cache_indices
    if ci.dim() == 2 and ci.shape[0] == 1 and ci.shape[1] == batch:
        row = True
    elif ci.dim() != 1 or ci.shape[0] != batch:
        _value_error("cache_indices: shape %s is neither [batch] = [%d] nor "
                     "[1, batch] = [1, %d] (batch from query_start_loc)"
                     % (_shape(ci), batch, batch))
    else:
        row = False
    if has_initial_state is not None:
        _expect_shape("has_initial_state", has_initial_state, [batch], "[batch]")
    if update_state is not None:
        _expect_shape("update_state", update_state, [batch], "[batch]")
    K = 0
    if checkpoint_slots is not None:
        _expect_rank("checkpoint_slots", checkpoint_slots, 2, "[batch, K]")
        K = checkpoint_slots.shape[1]
        _expect_shape("checkpoint_slots", checkpoint_slots, [batch, K],
                      "[batch, K]")
    if checkpoint_offsets is not None:
        _expect_shape("checkpoint_offsets", checkpoint_offsets, [batch], "[batch]")
    if token_parents is not None:
        _expect_shape("token_parents", token_parents, [T], "[T]")

    index = [query_start_loc, cache_indices, has_initial_state, update_state,
             checkpoint_slots, checkpoint_offsets, token_parents]
    if check_indices is None:
        check_indices = not on_cuda
    if check_indices:
        # The index contract on host copies (on CUDA: a copy and a wait).
        host = [None if t is None else
                (t.view(torch.uint8) if t.dtype == torch.bool else t)
                .contiguous().cpu() for t in index]
        lib.check_indices(
            [T, S, batch, K, checkpoint_interval or 0,
             has_initial_state is not None, update_state is not None,
             checkpoint_slots is not None, checkpoint_offsets is not None,
             token_parents is not None], host)
    # checkTreeOptions.
    if token_parents is not None:
        if form == "chunked":
            _value_error("token_parents (a draft tree) needs the serial form: the "
                         "chunked form follows a chain of tokens, not a token's "
                         "parent")
        if invariant:
            _value_error("token_parents (a draft tree) cannot run invariant: the "
                         "invariant kernels follow a chain of tokens, not a "
                         "token's parent")

    from .kernels import variant_key
    key = variant_key(
        model, H, P, G, N, D is not None, dt_bias is not None,
        has_initial_state is not None, update_state is not None, row, pool,
        stochastic,
        (K, checkpoint_offsets is not None, checkpoint_interval)
        if checkpoint_slots is not None else None,
        token_parents is not None, form, chunk, bool(invariant))
    variant = lib.select(key)

    # The launch: operands in ssd::operandLayouts order, y last.
    device = x.device
    stream = torch.cuda.current_stream(device).cuda_stream if on_cuda else 0
    y = torch.empty((T, H, P), dtype=x.dtype, device=device)
    operands = [x.contiguous(), dt.contiguous(), A.contiguous(), B.contiguous(),
                C.contiguous()]
    if D is not None:
        operands.append(D.contiguous())
    if dt_bias is not None:
        operands.append(dt_bias.contiguous())
    written = [0] * len(operands)
    operands.append(ssm_pool)
    written.append(1)
    if scaled:
        operands.append(ssm_pool_scales)
        written.append(1)
    extra = [query_start_loc]
    if has_initial_state is not None:
        extra.append(has_initial_state)
    extra.append(cache_indices)
    for t in (update_state, checkpoint_slots, checkpoint_offsets, token_parents):
        if t is not None:
            extra.append(t)
    if stochastic:
        extra.append(lib.seed(device, rounding_seed))
    operands.extend(t.contiguous() for t in extra)
    written.extend([0] * len(extra))
    operands.append(y)
    written.append(1)
    if on_cuda:
        # The runtime makes the device's primary context current on this
        # thread; torch's current device is restored after.
        with torch.cuda.device(device):
            lib.launch(variant, operands, written, device, stream)
    else:
        lib.launch(variant, operands, written, device, stream)
    # As the CPU op does: autograd and torch's in-place checks see the pool
    # (and the scales) as modified; a metadata-only in-place op, no launch.
    for t in (ssm_pool, ssm_pool_scales if scaled else None):
        if t is not None and not t.is_inference():
            t.as_strided_(t.shape, t.stride(), t.storage_offset())
    return y
