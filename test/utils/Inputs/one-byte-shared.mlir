// Two gpu.binary objects as gpu-module-to-binary format=isa prints them,
// each storing a word at byte 4 of a shared buffer: one declares the buffer
// as NVPTX printed upstream's dynamic shared memory (a one-byte static
// variable, which ptxas flags as a potential out-of-bound access), the other
// as PTX's extern of unknown size. Input of test/utils/extract-ptx.test.
module attributes {gpu.container_module} {
  gpu.binary @one_byte [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = ".version 7.0\0A.target sm_80\0A.address_size 64\0A\0A.shared .align 16 .b8 smem;\0A\0A.visible .entry one_byte(.param .u32 p)\0A{\0A  .reg .b32 %r<2>;\0A  ld.param.u32 %r1, [p];\0A  st.shared.u32 [smem+4], %r1;\0A  ret;\0A}\0A">]
  gpu.binary @extern_array [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = ".version 7.0\0A.target sm_80\0A.address_size 64\0A\0A.extern .shared .align 16 .b8 smem[];\0A\0A.visible .entry extern_array(.param .u32 p)\0A{\0A  .reg .b32 %r<2>;\0A  ld.param.u32 %r1, [p];\0A  st.shared.u32 [smem+4], %r1;\0A  ret;\0A}\0A">]
}
