// The same kernel as the emulator's rewritten IR: the pair as one 8-byte
// load (flags: read, alignment 2^3), the release store (write | release,
// 2^2), one 32-byte load at alignment 16 (2^4), which NVPTX splits in two,
// the non-coherent load (2^4), the volatile load (read | relaxed, 2^2),
// the atomic and the reduction (write | atomic, 2^2), the cp.async, the
// shared load, the ldmatrix (mode: 4 matrices), the barrier and the fence.
gpu.binary @k  [#gpu.object<#ssd.gpu_emulator_target, offload = "  %1 = call ptr %ssdemu.global(ptr %a, i64 8, i32 768, i32 0)\0A  %2 = call ptr %ssdemu.global1(ptr %b, i64 4, i32 529, i32 1)\0A  %3 = call ptr %ssdemu.global2(ptr %c, i64 32, i32 1024, i32 2)\0A  %5 = call ptr %ssdemu.shared(ptr %e, i64 4, i32 512, i32 4)\0A  call void %ssdemu.ldmatrix(i32 5, i32 4, ptr %f, ptr %g)\0A  call void %ssdemu.barrier(i32 6, i32 0, i32 0)\0A  call void %ssdemu.fence(i32 7)\0A  %6 = call ptr %ssdemu.global4(ptr %h, i64 16, i32 1024, i32 8)\0A  %7 = call ptr %ssdemu.global5(ptr %i, i64 4, i32 544, i32 9)\0A  %8 = call ptr %ssdemu.global6(ptr %j, i64 4, i32 515, i32 10)\0A  %9 = call ptr %ssdemu.global7(ptr %j, i64 4, i32 515, i32 11)\0A  call void %ssdemu.cp_async(i32 12, ptr %k, ptr %l, i32 16, i32 %m)\0A">]
