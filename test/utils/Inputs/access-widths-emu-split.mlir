// The pair split into two 4-byte loads (alignment 2^2), as the emulator
// made it before it ran NVPTX's load-store vectorizer, and the ldmatrix
// taken as transposed (mode 0x104); the fence is missing.
gpu.binary @k  [#gpu.object<#ssd.gpu_emulator_target, offload = "  %1 = call ptr %ssdemu.global(ptr %a, i64 4, i32 512, i32 0)\0A  %4 = call ptr %ssdemu.global3(ptr %d, i64 4, i32 512, i32 3)\0A  %2 = call ptr %ssdemu.global1(ptr %b, i64 4, i32 529, i32 1)\0A  %3 = call ptr %ssdemu.global2(ptr %c, i64 32, i32 1024, i32 2)\0A  %5 = call ptr %ssdemu.shared(ptr %e, i64 4, i32 512, i32 4)\0A  call void %ssdemu.ldmatrix(i32 5, i32 260, ptr %f, ptr %g)\0A  call void %ssdemu.barrier(i32 6, i32 0, i32 0)\0A">]
