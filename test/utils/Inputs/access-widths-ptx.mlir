// PTX of one kernel, as --ssd-to-nvvm stores it: an 8-byte pair load, a
// release store of a flag, two 16-byte loads, a predicated non-coherent
// 16-byte load, a volatile load (relaxed), an atomic add and a reduction,
// a 16-byte cp.async, a shared load, an ldmatrix of four matrices, a block
// barrier, a warp barrier (not counted), an async-proxy fence (not
// counted) and a fence.
gpu.binary @k  [#gpu.object<#nvvm.target, assembly = "\09ld.global.v2.b32 \09{%r1, %r2}, [%rd1];\0A\09st.release.gpu.global.b32 \09[%rd2], %r3;\0A\09ld.global.v4.b32 \09{%r4, %r5, %r6, %r7}, [%rd3];\0A\09ld.global.v4.b32 \09{%r4, %r5, %r6, %r7}, [%rd3+16];\0A\09ld.shared.b32 \09%r8, [%r9];\0A\09ldmatrix.sync.aligned.m8n8.x4.shared.b16 \09{%r10, %r11, %r12, %r13}, [%r14];\0A\09@%p1 ld.global.nc.v4.b32 \09{%r4, %r5, %r6, %r7}, [%rd5];\0A\09ld.volatile.global.b32 \09%r15, [%rd6];\0A\09atom.global.add.u32 \09%r16, [%rd7], 1;\0A\09red.global.add.u32 \09[%rd7], 1;\0A\09cp.async.cg.shared.global [%r17], [%rd8], 16, %r18;\0A\09bar.sync \090;\0A\09bar.warp.sync \09-1;\0A\09fence.proxy.async.shared::cta;\0A\09fence.acq_rel.gpu;\0A">]
