// PTX of one kernel, as --ssd-to-nvvm stores it: an 8-byte pair load, a
// release store of a flag, two 16-byte loads, a shared load, an ldmatrix
// of four matrices, a block barrier, a warp barrier (not counted) and a
// fence.
gpu.binary @k  [#gpu.object<#nvvm.target, assembly = "\09ld.global.v2.b32 \09{%r1, %r2}, [%rd1];\0A\09st.release.gpu.global.b32 \09[%rd2], %r3;\0A\09ld.global.v4.b32 \09{%r4, %r5, %r6, %r7}, [%rd3];\0A\09ld.global.v4.b32 \09{%r4, %r5, %r6, %r7}, [%rd3+16];\0A\09ld.shared.b32 \09%r8, [%r9];\0A\09ldmatrix.sync.aligned.m8n8.x4.shared.b16 \09{%r10, %r11, %r12, %r13}, [%r14];\0A\09bar.sync \090;\0A\09bar.warp.sync \09-1;\0A\09fence.acq_rel.gpu;\0A">]
